/**
 * The search backfill (files migration 9 on a drive that already had files): migration 9 wrote a
 * document for every stored node, with its name and type but no version, so no text. This job
 * gives those documents their node's current version, in pages, and queues the text of each
 * text-like one (`files.search_text`, keyed by version, as the indexer does). Hosts schedule it
 * when a worker starts (keyed: one at a time); with nothing left to adopt it is one indexed read.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { withSpan } from "../kernel/Span.js";
import type { Jobs } from "../../ports/Jobs.js";
import { NodeSearchIndex } from "../../ports/files/NodeSearchIndex.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import { Transactions } from "../../ports/Transactions.js";
import { searchBackfillJobType } from "./SearchBackfillJobType.js";
import { isTextLike, searchTextJob } from "./SearchText.js";

/** Documents adopted per run. */
export const searchBackfillPageSize = 500;

/** Schedules the backfill now (a no-op while one is pending or running). */
export const scheduleSearchBackfill = (nowMs: number): Effect.Effect<void, never, Jobs> =>
  Effect.asVoid(searchBackfillJobType.schedule({ page: 0 }, { runAt: new Date(nowMs), key: "backfill" }));

/** One page: adopts up to `pageSize` documents' versions, queues their texts, and the next page when it was full. */
export const backfillSearchVersions = (page: number, pageSize: number = searchBackfillPageSize) =>
  Effect.gen(function* () {
    const versions = yield* VersionsRepository;
    const at = yield* now;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const adopted = yield* (yield* NodeSearchIndex).adoptCurrentVersions(pageSize);
        for (const document of adopted) {
          if (document.versionId === null) continue;
          const version = yield* versions.find(document.workspaceId, document.versionId);
          if (version === null || !isTextLike(version)) continue;
          const payload = { workspace_id: document.workspaceId, node_id: document.nodeId, version_id: version.id };
          yield* searchTextJob.schedule(payload, { runAt: at, key: version.id, maxAttempts: 3 });
        }
        // A full page: there may be more (the running job holds the "backfill" key, so the next page has its own).
        if (adopted.length === pageSize) yield* searchBackfillJobType.schedule({ page: page + 1 }, { runAt: at, key: `backfill-page-${page + 1}` });
        return adopted.length;
      }),
    );
  }).pipe(withSpan("files.backfillSearchVersions"));

/** The backfill job a worker runs. */
export const searchBackfillJob = searchBackfillJobType.handledBy((payload) => Effect.asVoid(backfillSearchVersions(payload.page)));
