/**
 * The checkout risk kit fails for a broken CheckoutRiskRepository and names the rule it broke:
 * each broken adapter is our SQL adapter with one rule taken out (the repository replaced by a
 * wrapper over the real one). The lock is only observable with concurrent connections: Postgres.
 */
import { Context, Effect, Layer } from "effect";
import t from "tap";
import type { CheckoutRiskRepository } from "../../ports/commerce/CheckoutRiskRepository.js";
import { CheckoutRiskRepository as CheckoutRiskRepositoryTag } from "../../ports/commerce/CheckoutRiskRepository.js";
import { compose } from "../../hosts/Composition.js";
import { makeCommerceModule } from "../../hosts/modules/commerceModule.js";
import { paymentsModule } from "../../hosts/modules/paymentsModule.js";
import { checkoutRiskCases, runCases, type CheckoutRiskKitPorts, type KitCase } from "../contract/index.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { openTestDatabase, type Dialect } from "../support/databases.js";
import { sqlCapabilities } from "../support/sqlAdapter.js";
import { kitFailures } from "./kitRecorder.js";

const commerceModule = makeCommerceModule({ mailer: { send: () => Effect.dieMessage("the kit sends no mail") } });
const modules = compose().add(paymentsModule).add(commerceModule);

/** Runs the kit's cases named by `rules` against the SQL adapter of `dialect` with its repository replaced by `breakIt(real)`. */
const brokenRisk = (dialect: Dialect, rules: ReadonlyArray<string>, breakIt: (risk: CheckoutRiskRepository) => CheckoutRiskRepository) => {
  const cases: ReadonlyArray<KitCase<CheckoutRiskKitPorts>> = checkoutRiskCases.filter((c) => rules.includes(c.name));
  if (cases.length !== rules.length) throw new Error(`no such case among ${rules.join(" | ")}`);
  return kitFailures((test) =>
    runCases(
      {
        test,
        supports: sqlCapabilities(dialect),
        factory: async () => {
          const teardowns: Array<() => unknown> = [];
          const db = await openTestDatabase(dialect, { teardown: (fn) => teardowns.push(fn) }, [paymentsModule, commerceModule]);
          const sql = moduleLayer(db, modules);
          const layer = Layer.effectContext(
            Effect.map(Effect.context<Layer.Layer.Success<typeof sql>>(), (ctx) => Context.add(ctx, CheckoutRiskRepositoryTag, breakIt(Context.get(ctx, CheckoutRiskRepositoryTag)))),
          ).pipe(Layer.provide(sql));
          return { layer, close: async () => { for (const fn of teardowns.reverse()) await fn(); } };
        },
      },
      cases,
    ),
  );
};

const inOrder = "checkout risk: a signal counts its checkouts recorded since the window's start whose payment is unresolved, each signal on its own, in the order asked";
const locksKept = "checkout risk retention: locks last taken before the cut are deleted; a lock taken again since stays";
const underLock =
  "checkout risk: checkouts under one signal are counted one after the other under its lock: ten at once under a bound of three record three, whatever order they name their signals in";

const broke = (failures: ReadonlyArray<string>, rule: string) => failures.some((f) => f.startsWith(`${rule}:`));

t.test("the SQL repository through the same wrapper, unbroken, passes the cases used below (the control)", async (t) => {
  t.same(await brokenRisk("sqlite", [inOrder, locksKept], (risk) => risk), []);
  t.same(await brokenRisk("postgres", [underLock], (risk) => risk), []);
});

t.test("risks answered in digest order instead of the order asked break 'each signal on its own, in the order asked'", async (t) => {
  const failures = await brokenRisk("sqlite", [inOrder], (risk) => ({ ...risk, riskSince: (signals, since, limit) => risk.riskSince([...signals].sort(), since, limit) }));
  t.ok(broke(failures, inOrder), "the per-signal case fails");
});

t.test("a window that ignores its start breaks 'checkouts recorded since the window's start'", async (t) => {
  const failures = await brokenRisk("sqlite", [inOrder], (risk) => ({ ...risk, riskSince: (signals, _since, limit) => risk.riskSince(signals, new Date(0), limit) }));
  t.ok(broke(failures, inOrder), "the window case fails");
});

t.test("lock retention that ignores its cut breaks 'a lock taken again since stays'", async (t) => {
  const failures = await brokenRisk("sqlite", [locksKept], (risk) => ({ ...risk, deleteLocksBefore: (_before, limit) => risk.deleteLocksBefore(new Date(8.64e15), limit) }));
  t.ok(broke(failures, locksKept), "the lock retention case fails");
});

t.test("a lock that locks nothing breaks 'checkouts under one signal are counted one after the other' (Postgres, concurrent connections)", async (t) => {
  const failures = await brokenRisk("postgres", [underLock], (risk) => ({ ...risk, lockSignals: () => Effect.void }));
  t.ok(broke(failures, underLock), "the race admits more than the bound");
});
