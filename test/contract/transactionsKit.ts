/**
 * Contract kit for the Transactions port. Observed through UserEpochs, the smallest store:
 * commit keeps writes, failure / defect / interruption roll them back, nested runs join.
 */
import { Deferred, Effect, Exit, Fiber } from "effect";
import { Transactions } from "../../ports/Transactions.js";
import { UserEpochs } from "../../ports/UserEpochs.js";
import { runCases, warmUp, type KitCase, type SuiteOptions } from "./Kit.js";

/** The ports this kit needs. */
export type TransactionsKitPorts = Transactions | UserEpochs;

const bump = (user: string) => Effect.flatMap(UserEpochs, (e) => e.bump(user));
const current = (user: string) => Effect.flatMap(UserEpochs, (e) => e.current(user));
const inTx = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.flatMap(Transactions, (tx) => tx.run(effect));

/** The cases of the transactions kit. */
export const transactionsCases: ReadonlyArray<KitCase<TransactionsKitPorts>> = [
  {
    name: "transactions: a successful run commits its writes",
    run: async (t, run) => {
      const result = await run(inTx(Effect.zipRight(bump("u1"), bump("u1"))));
      t.equal(result, 2, "the run answers its effect's value");
      t.equal(await run(current("u1")), 2, "the writes are visible after commit");
    },
  },
  {
    name: "transactions: a write is visible to later reads in the same transaction",
    run: async (t, run) => {
      t.equal(await run(inTx(Effect.zipRight(bump("u1"), current("u1")))), 1);
    },
  },
  {
    name: "transactions: a failed run rolls back and keeps its typed error",
    run: async (t, run) => {
      const exit = await run(Effect.exit(inTx(Effect.zipRight(bump("u1"), Effect.fail("boom" as const)))));
      t.ok(Exit.isFailure(exit), "the run fails");
      t.same(Exit.isFailure(exit) ? exit.cause._tag : null, "Fail", "with the typed failure, not a defect");
      t.equal(await run(current("u1")), 0, "the write was rolled back");
    },
  },
  {
    name: "transactions: a defect rolls back",
    run: async (t, run) => {
      const exit = await run(Effect.exit(inTx(Effect.zipRight(bump("u1"), Effect.die(new Error("bug"))))));
      t.ok(Exit.isFailure(exit));
      t.equal(await run(current("u1")), 0);
    },
  },
  {
    name: "transactions: an interrupted run rolls back",
    run: async (t, run) => {
      await run(
        Effect.gen(function* () {
          const wrote = yield* Deferred.make<void>();
          const fiber = yield* Effect.fork(inTx(Effect.zipRight(bump("u1"), Effect.zipRight(Deferred.succeed(wrote, undefined), Effect.never))));
          yield* Deferred.await(wrote);
          yield* Fiber.interrupt(fiber);
        }),
      );
      t.equal(await run(current("u1")), 0);
    },
  },
  {
    name: "transactions: a nested run joins the outer one and commits with it",
    run: async (t, run) => {
      await run(inTx(Effect.zipRight(bump("outer"), inTx(bump("inner")))));
      t.equal(await run(current("outer")), 1);
      t.equal(await run(current("inner")), 1);
    },
  },
  {
    name: "transactions: when the outer run fails, the nested run's writes roll back too",
    run: async (t, run) => {
      await run(Effect.exit(inTx(Effect.zipRight(inTx(bump("inner")), Effect.fail("later")))));
      t.equal(await run(current("inner")), 0);
    },
  },
  {
    name: "transactions: concurrent runs each commit (none is lost)",
    run: async (t, run) => {
      await run(warmUp(10, current("u0")));
      await run(Effect.all(Array.from({ length: 10 }, () => inTx(bump("u1"))), { concurrency: "unbounded" }));
      t.equal(await run(current("u1")), 10);
    },
  },
  {
    name: "transactions: uncommitted writes are invisible outside the transaction",
    requires: ["concurrentConnections"],
    run: async (t, run) => {
      await run(
        Effect.gen(function* () {
          const wrote = yield* Deferred.make<void>();
          const release = yield* Deferred.make<void>();
          const fiber = yield* Effect.fork(
            inTx(Effect.zipRight(bump("u1"), Effect.zipRight(Deferred.succeed(wrote, undefined), Deferred.await(release)))),
          );
          yield* Deferred.await(wrote);
          const seen = yield* current("u1");
          yield* Deferred.succeed(release, undefined);
          yield* Fiber.join(fiber);
          t.equal(seen, 0, "not visible before commit");
          t.equal(yield* current("u1"), 1, "visible after commit");
        }),
      );
    },
  },
];

/** Runs the transactions kit against an adapter. */
export const transactionsSuite = (options: SuiteOptions<TransactionsKitPorts>): Promise<unknown> =>
  runCases(options, transactionsCases);
