/**
 * Session revocation (docs/conventions.md, Authentication) on both dialects: the user's epoch
 * advances, and the `access_changed` notice reaches listeners only once the new epoch is
 * committed (a listener that re-reads the epoch sees the new one); a failing realtime bus does not
 * stop the revocation.
 */
import t from "tap";
import { Effect, Layer } from "effect";
import { revokeSessions } from "../../core/identity/RevokeSessions.js";
import { realtimeBus } from "../../adapters/sql/realtimeBus.js";
import { makeSqlUserEpochs } from "../../adapters/sql/SqlUserEpochs.js";
import { makeTransactions } from "../../adapters/sql/Transactions.js";
import { RealtimeBus, type RealtimeNotice } from "../../ports/Realtime.js";
import { Transactions } from "../../ports/Transactions.js";
import { UserEpochs } from "../../ports/UserEpochs.js";
import { forEachDialect } from "../support/databases.js";

const user = "00000000-0000-4000-8000-0000000000aa";

t.test("revoking sessions advances the epoch and announces it only once the new epoch is committed", (t) =>
  forEachDialect(t, "revoke", async (t, db) => {
    const epochs = makeSqlUserEpochs(db);
    const bus = await realtimeBus(db);
    t.teardown(() => bus.close());
    const heard: Array<{ readonly notice: RealtimeNotice; readonly epoch: Promise<number> }> = [];
    let delivered!: () => void;
    const arrived = new Promise<void>((resolve) => (delivered = resolve));
    await Effect.runPromise(
      bus.listen((notice) => {
        // What a realtime host does on the notice: re-read the user's epoch.
        heard.push({ notice, epoch: Effect.runPromise(epochs.current(user)) });
        delivered();
      }),
    );
    const services = Layer.mergeAll(
      Layer.succeed(UserEpochs, epochs),
      Layer.succeed(Transactions, makeTransactions(db)),
      Layer.succeed(RealtimeBus, bus),
    );
    const before = await Effect.runPromise(epochs.current(user));
    const epoch = await Effect.runPromise(Effect.provide(revokeSessions(user), services));
    t.equal(epoch, before + 1, "the epoch advanced by one");
    await arrived;
    t.same(heard.map((h) => h.notice), [{ type: "access_changed", userId: user }]);
    t.equal(await heard[0]!.epoch, epoch, "a listener re-reading the epoch on the notice sees the new one");
  }),
);

t.test("a failing realtime bus does not stop the revocation", (t) =>
  forEachDialect(t, "revoke with the bus down", async (t, db) => {
    const epochs = makeSqlUserEpochs(db);
    const down = { publish: () => Effect.dieMessage("realtime is down"), listen: () => Effect.dieMessage("realtime is down") };
    const services = Layer.mergeAll(Layer.succeed(UserEpochs, epochs), Layer.succeed(Transactions, makeTransactions(db)), Layer.succeed(RealtimeBus, down));
    const epoch = await Effect.runPromise(Effect.provide(revokeSessions(user), services));
    t.equal(await Effect.runPromise(epochs.current(user)), epoch, "the new epoch is committed");
    t.equal(epoch, 1);
  }),
);
