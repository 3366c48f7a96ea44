/**
 * The inbox kit fails for a broken Inbox and names the rule it broke: each broken adapter is our
 * SQLite adapter with one rule taken out (the Inbox replaced by a wrapper over the real one).
 */
import { Context, Effect, Layer } from "effect";
import t from "tap";
import { inboxSuite } from "../contract/index.js";
import { Inbox } from "../../ports/Inbox.js";
import { sqlAdapterFactory } from "../support/sqlAdapter.js";
import { kitFailures } from "./kitRecorder.js";

const sqlite = sqlAdapterFactory("sqlite");

/** The SQLite adapter with its Inbox replaced by `breakIt(inbox)`. */
const brokenInbox = (breakIt: (inbox: Inbox) => Inbox) =>
  kitFailures((test) =>
    inboxSuite({
      test,
      factory: async () => {
        const adapter = await sqlite();
        const layer = Layer.effectContext(Effect.map(Effect.context<Layer.Layer.Success<typeof adapter.layer>>(), (ctx) => Context.add(ctx, Inbox, breakIt(Context.get(ctx, Inbox))))).pipe(
          Layer.provide(adapter.layer),
        );
        return { layer, close: adapter.close };
      },
    }),
  );

const broke = (failures: ReadonlyArray<string>, rule: string) => failures.some((f) => f.startsWith(`${rule}:`));

t.test("the SQLite inbox through the same wrapper, unbroken, passes every case (the control)", async (t) => {
  t.same(await brokenInbox((inbox) => inbox), []);
});

t.test("an inbox keyed by event alone breaks 'consumers keep separate inboxes'", async (t) => {
  const failures = await brokenInbox((inbox) => ({ ...inbox, claim: (_consumer, eventId) => inbox.claim("one-for-all", eventId) }));
  t.ok(broke(failures, "inbox: consumers keep separate inboxes"), "the separate-inboxes case fails");
});

t.test("a claimMany that answers every id asked breaks 'claimMany answers exactly the events not claimed before'", async (t) => {
  const failures = await brokenInbox((inbox) => ({
    ...inbox,
    claimMany: (consumer, eventIds) => Effect.as(inbox.claimMany!(consumer, eventIds), new Set(eventIds) as ReadonlySet<string>),
  }));
  t.ok(broke(failures, "inbox: claimMany (when offered) answers exactly the events not claimed before, and claims them"), "the claimMany case fails");
});

t.test("a retention that ignores its cutoff breaks 'retention deletes records made before the cutoff; later ones stay'", async (t) => {
  const failures = await brokenInbox((inbox) => ({ ...inbox, purgeProcessed: (_before, limit) => inbox.purgeProcessed(new Date(8.64e15), limit) }));
  t.ok(broke(failures, "inbox: retention deletes records made before the cutoff (events the outbox does not hold); later ones stay"), "the retention case fails");
});
