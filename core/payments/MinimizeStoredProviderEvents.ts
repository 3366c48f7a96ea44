/**
 * The one-off rewrite of inbox rows stored before the inbox kept only what the core reads
 * (ProviderEventRecord.ts): their payload is the provider's whole body. A batch reads unminimized
 * rows by id, decodes each payload with the configured provider adapter's decoder
 * (ProviderWebhookReceiver.decode) and stores `storedPayloadOf(event)` with the minimized marker,
 * in one transaction per batch; the database allows that rewrite once (payments migration 32). A
 * payload the decoder cannot read is left whole and counted, never guessed at; paging by id, it
 * does not stop the rows after it. A payload already in the stored shape (written before the
 * marker existed) is only marked.
 */
import { Effect, Either } from "effect";
import { Transactions } from "../../ports/Transactions.js";
import { ProviderEventsInbox, ProviderWebhookReceiver } from "../../ports/payments/ProviderEvents.js";
import { now } from "../kernel/Clock.js";
import { withSpan } from "../kernel/Span.js";
import { isStoredPayload, storedPayloadOf } from "./ProviderEventRecord.js";

/** What a batch (or a whole run) did. */
export interface InboxMinimization {
  /** Rows rewritten to what the core reads and marked. */
  readonly minimized: number;
  /** Rows the decoder could not read, left whole and unmarked. */
  readonly undecodable: number;
  /** Unminimized rows after this batch's last id (of a whole run: the inbox's unminimized rows). */
  readonly remaining: number;
}

type Services = ProviderEventsInbox | ProviderWebhookReceiver | Transactions;

/** Minimizes up to `batch` unminimized rows with ids after `after` (null: from the first) in one transaction. */
export const minimizeStoredProviderEvents = (page: {
  readonly batch: number;
  readonly after?: string | null;
}): Effect.Effect<InboxMinimization & { readonly after: string | null }, never, Services> =>
  Effect.gen(function* () {
    const inbox = yield* ProviderEventsInbox;
    const receiver = yield* ProviderWebhookReceiver;
    const at = yield* now;
    const after = page.after ?? null;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // At least one row per batch, so a run always moves on.
        const rows = yield* inbox.listUnminimized({ after, limit: Math.max(1, Math.floor(page.batch)) });
        let minimized = 0;
        let undecodable = 0;
        for (const row of rows) {
          const decoded = yield* Effect.either(receiver.decode(row.payload));
          const payload = Either.isRight(decoded) ? storedPayloadOf(decoded.right) : isStoredPayload(row.payload) ? row.payload : null;
          if (payload === null) undecodable += 1;
          else if (yield* inbox.minimizePayload({ id: row.id, payload, at })) minimized += 1;
        }
        const last = rows.at(-1)?.id ?? after;
        return { minimized, undecodable, remaining: yield* inbox.countUnminimized(last), after: last };
      }),
    );
  }).pipe(withSpan("Payments.minimizeStoredProviderEvents"));

/** Minimizes every unminimized row, `batch` rows per transaction; answers the sums and the unminimized rows left. */
export const minimizeProviderEventInbox = (options: { readonly batch: number }): Effect.Effect<InboxMinimization, never, Services> =>
  Effect.gen(function* () {
    let after: string | null = null;
    let minimized = 0;
    let undecodable = 0;
    for (;;) {
      const done: InboxMinimization & { readonly after: string | null } = yield* minimizeStoredProviderEvents({ batch: options.batch, after });
      minimized += done.minimized;
      undecodable += done.undecodable;
      after = done.after;
      if (done.remaining === 0) break;
    }
    return { minimized, undecodable, remaining: yield* (yield* ProviderEventsInbox).countUnminimized(null) };
  }).pipe(withSpan("Payments.minimizeProviderEventInbox"));
