/**
 * The RealtimeBus, WorkSignals and FieldSealer kits fail for a broken adapter and name the rule
 * it broke (the kits' own runs on our adapters are test/storage/realtime-contract.test.ts and
 * field-sealer-contract.test.ts).
 */
import { Context, Effect, Layer } from "effect";
import t from "tap";
import { inProcessWorkSignals } from "../../adapters/sql/InProcessWorkSignals.js";
import { makeTransactions } from "../../adapters/sql/Transactions.js";
import { FieldSealer } from "../../ports/commerce/FieldSealer.js";
import { RealtimeBus, type RealtimeNotice } from "../../ports/Realtime.js";
import { Transactions } from "../../ports/Transactions.js";
import { WorkSignals } from "../../ports/WorkSignals.js";
import { FieldSealerRotated, fieldSealerSuite, RealtimeBusPeer, realtimeBusSuite, workSignalsSuite } from "../contract/index.js";
import { openTestDatabase } from "../support/databases.js";
import { broke } from "./raceBreaks.js";
import { kitFailures } from "./kitRecorder.js";

/** Two buses sharing their listeners in memory; `breaks` says what they do wrong. */
const memoryBuses = (breaks: { readonly stopDoesNothing?: boolean }) => {
  const listeners = new Set<(n: RealtimeNotice) => void>();
  const bus: RealtimeBus = {
    // Delivered at once: inside a transaction too, and whether it commits or not.
    publish: (n) => Effect.sync(() => listeners.forEach((l) => l(n))),
    listen: (l) =>
      Effect.sync(() => {
        listeners.add(l);
        return () => void (breaks.stopDoesNothing === true || listeners.delete(l));
      }),
  };
  return bus;
};

/** The bus kit's failures for `memoryBuses(breaks)`, with SQLite's transactions. */
const busFailures = (breaks: { readonly stopDoesNothing?: boolean }) =>
  kitFailures((test) =>
    realtimeBusSuite({
      test,
      factory: async () => {
        const teardowns: Array<() => unknown> = [];
        const db = await openTestDatabase("sqlite", { teardown: (fn) => teardowns.push(fn) });
        const bus = memoryBuses(breaks);
        return {
          layer: Layer.succeedContext(Context.make(RealtimeBus, bus).pipe(Context.add(RealtimeBusPeer, { bus }), Context.add(Transactions, makeTransactions(db)))),
          close: async () => {
            for (const fn of teardowns.reverse()) await fn();
          },
        };
      },
    }),
  );

t.test("a bus that delivers at once, in a transaction too, breaks 'delivered once it commits, never after a rollback'", async (t) => {
  const failures = await busFailures({});
  t.ok(broke(failures, "realtime bus: a notice published inside a transaction is delivered once it commits, never after a rollback"), "the transaction case fails");
  t.notOk(broke(failures, "realtime bus: a notice reaches every listener, in this process and in another over the same backend, once"), "the delivery case passes");
});

t.test("a bus whose listeners cannot stop breaks 'a listener that stopped hears nothing more'", async (t) => {
  const failures = await busFailures({ stopDoesNothing: true });
  t.ok(broke(failures, "realtime bus: a listener that stopped hears nothing more; the others still do"), "the stop case fails");
});

t.test("work signals sent at once, inside a transaction too, break 'sent once it commits, never after a rollback'", async (t) => {
  const failures = await kitFailures((test) =>
    workSignalsSuite({
      test,
      factory: async () => {
        const teardowns: Array<() => unknown> = [];
        const db = await openTestDatabase("sqlite", { teardown: (fn) => teardowns.push(fn) });
        // Hooks run at once instead of after the commit.
        const signals = inProcessWorkSignals({}, (_key, hook) => Effect.sync(hook));
        return {
          layer: Layer.succeedContext(Context.make(WorkSignals, signals).pipe(Context.add(Transactions, makeTransactions(db)))),
          close: async () => {
            for (const fn of teardowns.reverse()) await fn();
          },
        };
      },
    }),
  );
  t.ok(broke(failures, "work signals: a signal inside a transaction is sent once it commits, never after a rollback"), "the transaction case fails");
  t.notOk(broke(failures, "work signals: a signal outside a transaction wakes a listener of its kind"), "the plain case passes");
});

t.test("a sealer that only encodes breaks 'a tampered value does not open' and 'new seals use the new key'", async (t) => {
  const encoding: FieldSealer = {
    seal: (text) => `b64.${Buffer.from(`secret:${text}`).toString("base64url")}`,
    open: (sealed) => {
      const [tag, body] = sealed.split(".");
      if (tag !== "b64" || body === undefined) throw new Error("not sealed");
      return Buffer.from(body, "base64url").toString("utf8").replace(/^secret:/, "");
    },
  };
  const failures = await kitFailures((test) =>
    fieldSealerSuite({
      test,
      factory: async () => ({ layer: Layer.succeedContext(Context.make(FieldSealer, encoding).pipe(Context.add(FieldSealerRotated, { sealer: encoding }))), close: async () => undefined }),
    }),
  );
  t.ok(broke(failures, "field sealer: a tampered sealed value does not open"), "the tamper case fails");
  t.ok(broke(failures, "field sealer: after a key rotation the old key still opens what it sealed, and new seals use the new key"), "the rotation case fails");
});
