/**
 * `runIdempotentInTransaction` on the SQL adapters (both dialects): the key, the work and the
 * stored answer are one transaction. Nothing of the work stays without its answer (the window a
 * crash leaves on the three-transaction path), a settled failure's writes are undone while its
 * answer is stored, an unsettled one releases the key, and racing requests under one key run the
 * work once on real connections.
 */
import t from "tap";
import { Cause, Data, Effect, Exit, Layer } from "effect";
import { runIdempotentInTransaction, type IdempotentRequest } from "../../core/kernel/Idempotency.js";
import { makeSqlIdempotencyStore } from "../../adapters/sql/SqlIdempotencyStore.js";
import { makeSqlUserEpochs } from "../../adapters/sql/SqlUserEpochs.js";
import { makeTransactions } from "../../adapters/sql/Transactions.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { IdempotencyStore, type StoredResponse } from "../../ports/IdempotencyStore.js";
import { Transactions } from "../../ports/Transactions.js";
import { forEachDialect } from "../support/databases.js";

class Refused extends Data.TaggedError("Refused")<{}> {}
class Unavailable extends Data.TaggedError("Unavailable")<{}> {}

const user = "00000000-0000-4000-8000-000000000001";
const request = (key: string): IdempotentRequest => ({ scope: "account:test", key, requestHash: "hash-1" });

/** The pieces over one database: the work bumps the user's epoch (a write) and answers it. */
const setup = (db: SqlDatabase) => {
  const transactions = makeTransactions(db);
  const store = makeSqlIdempotencyStore(db, db.features);
  const epochs = makeSqlUserEpochs(db);
  const services = (idempotency = store) => Layer.mergeAll(Layer.succeed(Transactions, transactions), Layer.succeed(IdempotencyStore, idempotency));
  const bump: Effect.Effect<StoredResponse> = Effect.map(epochs.bump(user), (epoch) => ({ status: 201, body: { epoch } }));
  const epoch = () => Effect.runPromise(epochs.current(user));
  const record = async (key: string) =>
    (await db.db.selectFrom("idempotency_keys").selectAll().where("scope", "=", "account:test").where("key", "=", key).execute())[0];
  const settleRefused = <R>(work: Effect.Effect<StoredResponse, Refused, R>) =>
    Effect.catchTag(work, "Refused", () => Effect.succeed<StoredResponse>({ status: 422, body: { code: "refused" } }));
  return { services, store, bump, epoch, record, settleRefused };
};

t.test("the key, the work and the stored answer commit together", (t) =>
  forEachDialect(t, "one transaction", async (t, db) => {
    const { services, bump, epoch, record, settleRefused } = setup(db);
    const run = (key: string) => Effect.runPromise(runIdempotentInTransaction(request(key), bump, settleRefused).pipe(Effect.provide(services())));
    const first = await run("k1");
    t.same(first, { response: { status: 201, body: { epoch: 1 } }, replayed: false }, "the work ran and answered");
    t.equal(await epoch(), 1, "its write committed");
    const stored = await record("k1");
    t.equal(stored?.state, "completed", "the key is completed in the same commit");
    const again = await run("k1");
    t.same(again, { response: { status: 201, body: { epoch: 1 } }, replayed: true }, "a retry replays the stored answer");
    t.equal(await epoch(), 1, "and does not run the work again");
  }),
);

t.test("no work stays without its stored answer: a failure to store it rolls the work back and frees the key", (t) =>
  forEachDialect(t, "answer lost", async (t, db) => {
    const { services, store, bump, epoch, record, settleRefused } = setup(db);
    // What a crash between the work and storing its answer leaves: the answer is never written.
    const crashing: IdempotencyStore = { ...store, complete: () => Effect.die(new Error("crashed before the answer was stored")) };
    const exit = await Effect.runPromiseExit(runIdempotentInTransaction(request("k2"), bump, settleRefused).pipe(Effect.provide(services(crashing))));
    t.ok(Exit.isFailure(exit) && Cause.isDie(exit.cause), "the request fails");
    t.equal(await epoch(), 0, "its work did not stay");
    t.equal(await record("k2"), undefined, "its key is free");
    const retried = await Effect.runPromise(runIdempotentInTransaction(request("k2"), bump, settleRefused).pipe(Effect.provide(services())));
    t.same(retried, { response: { status: 201, body: { epoch: 1 } }, replayed: false }, "a retry runs the work once");
  }),
);

t.test("a settled failure's writes are undone and its answer is stored; an unsettled failure releases the key", (t) =>
  forEachDialect(t, "failures", async (t, db) => {
    const { services, bump, epoch, record, settleRefused } = setup(db);
    // Writes, then fails: the 4xx a caller may see again.
    const refusedAfterWriting = Effect.zipRight(bump, Effect.fail(new Refused()));
    const refused = await Effect.runPromise(runIdempotentInTransaction(request("k3"), refusedAfterWriting, settleRefused).pipe(Effect.provide(services())));
    t.same(refused, { response: { status: 422, body: { code: "refused" } }, replayed: false }, "the failure is answered");
    t.equal(await epoch(), 0, "the write made before it is undone");
    t.equal((await record("k3"))?.state, "completed", "its answer is stored");
    const replay = await Effect.runPromise(runIdempotentInTransaction(request("k3"), bump, settleRefused).pipe(Effect.provide(services())));
    t.same(replay, { response: { status: 422, body: { code: "refused" } }, replayed: true }, "and replayed; the work does not run");
    t.equal(await epoch(), 0, "still nothing written");

    // Writes, then fails in a way nobody settles (a server error): everything rolls back.
    const unavailable = Effect.zipRight(bump, Effect.fail(new Unavailable()));
    const exit = await Effect.runPromiseExit(
      runIdempotentInTransaction(request("k4"), unavailable, (work) => work).pipe(Effect.provide(services())),
    );
    t.ok(Exit.isFailure(exit), "the request fails");
    t.equal(await epoch(), 0, "its write is undone");
    t.equal(await record("k4"), undefined, "its key is released");
  }),
);

t.test("racing requests under one key run the work once; each gets the one answer", (t) =>
  forEachDialect(t, "race", async (t, db) => {
    const { services, bump, epoch, settleRefused } = setup(db);
    const racers = 8;
    // Each holds its transaction a moment, so the others arrive while it is open.
    const slowBump = Effect.zipLeft(bump, Effect.sleep("20 millis"));
    const outcomes = await Promise.all(
      Array.from({ length: racers }, () =>
        Effect.runPromise(Effect.either(runIdempotentInTransaction(request("k5"), slowBump, settleRefused).pipe(Effect.provide(services())))),
      ),
    );
    const answers = outcomes.flatMap((o) => (o._tag === "Right" ? [o.right] : []));
    t.equal(answers.length, racers, "every request is answered (a retry waits for the first instead of failing)");
    t.equal(answers.filter((a) => !a.replayed).length, 1, "exactly one ran the work");
    t.ok(answers.every((a) => a.response.status === 201 && (a.response.body as { epoch: number }).epoch === 1), "all got its answer");
    t.equal(await epoch(), 1, "the work ran once");
    // Different keys do not wait for each other's answers to run.
    const distinct = await Promise.all(
      Array.from({ length: racers }, (_, i) => Effect.runPromise(runIdempotentInTransaction(request(`k6-${i}`), bump, settleRefused).pipe(Effect.provide(services())))),
    );
    t.equal(distinct.filter((a) => !a.replayed).length, racers, "each distinct key runs");
    t.equal(await epoch(), 1 + racers, "once each");
  }),
);
