/**
 * The settlement commands as a finance operator runs them, through the built CLI:
 * `settlement reconcile --day` reconciles that day's settlement file and is idempotent (a
 * second run opens no exception twice, spec rule 12), printing JSON; `settlement exceptions`
 * lists the open exceptions of every merchant; a bad day exits 2 with the usage text.
 */
import t from "tap";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { Config } from "../../hosts/Config.js";
import { createMerchantWithKey } from "../../hosts/modules/paymentsModule.js";
import { call, freshKey } from "../payments/support.js";
import { cli, forEachDialectConfig, startReferenceServer, testConfig } from "./support.js";


t.test("settlement reconcile is idempotent and settlement exceptions lists what it opened", (t) =>
  forEachDialectConfig(t, "settlement cli", async (t, config) => {
    // A capture recorded by a server whose provider (an in-memory sandbox) the CLI process does
    // not share: the CLI's provider has no settlement row for it, so it is "missing".
    const { server } = await startReferenceServer(t, { ...config, workerInProcess: false });
    const { merchant_id, api_key: key } = await createMerchantWithKey(server.core.runtime, { name: "Settled shop", scopes: ["payments:write"] });
    const intent = await call(`${server.url}/v1/payment-intents`, { key, idempotencyKey: freshKey(), body: { amount_minor: 5100, currency: "EUR" } });
    const confirmed = await call(`${server.url}/v1/payment-intents/${String(intent.body.id)}/confirm`, {
      key,
      idempotencyKey: freshKey(),
      body: { payment_method: sandboxTokens.visa },
    });
    t.equal(confirmed.body.status, "succeeded");
    const day = String(confirmed.body.updated_at).slice(0, 10);

    const first = JSON.parse((await cli(config, ["settlement", "reconcile", "--day", day])).stdout) as Record<string, unknown>;
    t.same(first, { day, rows: 0, mismatches: 1, mismatches_opened: 1 }, "our capture is missing from the provider's file");
    const second = JSON.parse((await cli(config, ["settlement", "reconcile", "--day", day])).stdout) as Record<string, unknown>;
    t.same(second, { day, rows: 0, mismatches: 1, mismatches_opened: 0 }, "a second run opens nothing new");

    const listed = JSON.parse((await cli(config, ["settlement", "exceptions", "--status", "open"])).stdout) as {
      data: Array<Record<string, unknown>>;
    };
    t.equal(listed.data.length, 1, "one exception, opened once");
    t.match(listed.data[0], {
      merchant_id,
      kind: "missing",
      settlement_window: day,
      subject_type: "payment_intent",
      subject_id: intent.body.id,
      status: "open",
      currency: "EUR",
      expected: { amount_minor: 5100, currency: "EUR" },
      observed: null,
    });
  }),
);

t.test("settlement reconcile without a calendar day exits 2 with the usage", async (t) => {
  const config = await testConfig("sqlite", t);
  const invocations = [["settlement", "reconcile", "--day", "2026-02-30"], ["settlement", "exceptions", "--status", "closed"]];
  // Usage errors touch no database, so the invocations may run side by side.
  const failures = await Promise.all(
    invocations.map((args) =>
      cli(config, args).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      ),
    ),
  );
  invocations.forEach((args, i) => {
    t.equal(failures[i]?.code, 2, args.join(" "));
    t.match(failures[i]?.stderr ?? "", /settlement reconcile --day YYYY-MM-DD/, "the usage names the settlement commands");
  });
});
