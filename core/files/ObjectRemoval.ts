/**
 * Removing objects whose rows are gone, durably. A command that deletes the rows that reference
 * objects (the trash purge) removes the objects after its commit, when nothing can reach them any
 * more; if that fails (the store is down, the process stops) the bytes would stay in the store for
 * good, unreferenced and unbilled. So the same transaction schedules this job with the keys, a
 * few minutes later: it removes them again (removing is idempotent: an object already gone is
 * not an error) and a store failure fails the job, which the runner retries with backoff.
 */
import { Effect, Schema } from "effect";
import { defineJob } from "../kernel/JobDefinition.js";
import { withSpan } from "../kernel/Span.js";
import type { Jobs } from "../../ports/Jobs.js";
import { ObjectStore } from "../../ports/ObjectStore.js";

/** Keys per job: a large purge becomes several small jobs. */
export const objectRemovalBatch = 200;

/** How long after the commit the job checks that the objects are gone. */
export const objectRemovalDelayMs = 10 * 60_000;

/** The job: removes every key of its payload. */
export const objectRemovalJob = defineJob({
  kind: "files.object_removal",
  payload: Schema.Struct({ keys: Schema.Array(Schema.String) }),
  handle: ({ keys }) =>
    Effect.flatMap(ObjectStore, (store) => Effect.forEach(keys, (key) => store.remove(key), { discard: true })).pipe(withSpan("files.removeObjects")),
});

/**
 * Schedules the removal of `keys` (inside the transaction that deletes their rows), in batches
 * keyed `<scope>:<n>` so a repeated schedule adds nothing.
 */
export const scheduleObjectRemoval = (scope: string, keys: ReadonlyArray<string>, at: Date): Effect.Effect<void, never, Jobs> =>
  Effect.forEach(
    Array.from({ length: Math.ceil(keys.length / objectRemovalBatch) }, (_, n) => n),
    (n) =>
      objectRemovalJob.schedule(
        { keys: keys.slice(n * objectRemovalBatch, (n + 1) * objectRemovalBatch) },
        { key: `${scope}:${n}`, runAt: new Date(at.getTime() + objectRemovalDelayMs) },
      ),
    { discard: true },
  );

/**
 * Schedules the removal of a settled upload session's `keys` again once every grant it issued
 * has expired (`grantsExpireAt`, the session's expiry): a grant stays valid after the session
 * settles, so bytes PUT with it meanwhile are deleted then, never kept (spec: unfinished uploads
 * are bounded by their reservation; unclaimed objects deleted). Nothing when the grants already
 * expired (the removal scheduled at settlement runs after that).
 */
export const scheduleObjectRemovalAfterGrants = (scope: string, keys: ReadonlyArray<string>, grantsExpireAt: Date, at: Date): Effect.Effect<void, never, Jobs> =>
  grantsExpireAt.getTime() > at.getTime() ? scheduleObjectRemoval(`${scope}:after-grants`, keys, grantsExpireAt) : Effect.void;
