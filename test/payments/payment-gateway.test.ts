/**
 * The payment port other modules call (issue 4: "callable in-process as well as over HTTP"):
 * the payment gateway contract kit runs against the in-process adapter (the payment core on its
 * runtime) and the HTTP adapter (our own /v1 routes on a reference server with the payment
 * module), each on SQLite and Postgres. Plus what only one adapter can show: the in-process
 * gateway runs outside the caller's transaction, and over HTTP an unreachable service is an
 * ambiguous outcome, never a guess.
 */
import { Effect, Layer } from "effect";
import t from "tap";
import { makeSandboxProvider, sandboxTokens, type SandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { makeHttpPaymentGateway } from "../../adapters/payments/gateway/HttpPaymentGateway.js";
import { makeInProcessPaymentGateway } from "../../adapters/payments/gateway/InProcessPaymentGateway.js";
import { createMerchant } from "../../core/payments/Merchants.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { Transactions } from "../../ports/Transactions.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { PaymentGatewayFixture, paymentGatewaySuite } from "../contract/paymentGatewayKit.js";
import { forEachDialect, openTestDatabase } from "../support/databases.js";
import { paymentsRuntime, startPaymentsServer } from "./support.js";
import { createLogger } from "../../adapters/koa/Logging.js";
import { migrateModules, openConfiguredDatabase } from "../../hosts/Database.js";
import { makePaymentGatewayModule } from "../../hosts/modules/paymentGateway.js";
import { createMerchantWithKey, makePaymentsModule } from "../../hosts/modules/paymentsModule.js";
import { compose } from "../../hosts/Composition.js";
import { createHostCore } from "../../hosts/Runtime.js";
import { testConfig } from "../hosts/support.js";

const authorizations = (provider: SandboxProvider) => Effect.sync(() => provider.calls.filter((c) => c.operation === "authorize").length);
const paymentMethods = { approved: sandboxTokens.visa, declined: sandboxTokens.declined, ambiguous: sandboxTokens.timeoutAfter };

void forEachDialect(t, "the in-process payment gateway passes the contract kit", async (t, db) => {
  const payments = paymentsRuntime(t, db, makeSandboxProvider());
  const gateway = makeInProcessPaymentGateway({ runtime: () => payments.runtime, caller: "kit" });
  const fixture: PaymentGatewayFixture = {
    newMerchant: Effect.promise(() =>
      payments.run(createMerchant({ name: "Gateway shop", scopes: ["payments:write"], actor: "system:test" })),
    ).pipe(Effect.map((created) => created.merchant.id)),
    paymentMethods,
    authorizations: authorizations(payments.provider),
  };
  await paymentGatewaySuite({
    test: (name, fn) => t.test(name, fn),
    factory: async () => ({
      layer: Layer.mergeAll(Layer.succeed(PaymentGateway, gateway), Layer.succeed(PaymentGatewayFixture, fixture)),
      close: async () => undefined,
    }),
  });
});

void forEachDialect(t, "the HTTP payment gateway passes the contract kit against the reference server", async (t, db) => {
  const { server, provider, merchant } = await startPaymentsServer(t, db.dialect);
  const keys = new Map<string, string>();
  const gateway = makeHttpPaymentGateway({ baseUrl: server.url, apiKeyFor: (merchantId) => keys.get(merchantId) });
  const fixture: PaymentGatewayFixture = {
    newMerchant: Effect.promise(() => merchant(["payments:write", "refunds:write"])).pipe(
      Effect.map((created) => {
        keys.set(created.merchant_id, created.api_key);
        return created.merchant_id;
      }),
    ),
    paymentMethods,
    authorizations: authorizations(provider),
  };
  await paymentGatewaySuite({
    test: (name, fn) => t.test(name, fn),
    factory: async () => ({
      layer: Layer.mergeAll(Layer.succeed(PaymentGateway, gateway), Layer.succeed(PaymentGatewayFixture, fixture)),
      close: async () => undefined,
    }),
  });
});

t.test("the in-process gateway runs outside the caller's transaction: a rolled-back caller keeps the payment [postgres]", async (t) => {
  const db = await openTestDatabase("postgres", t);
  const payments = paymentsRuntime(t, db, makeSandboxProvider());
  const gateway = makeInProcessPaymentGateway({ runtime: () => payments.runtime, caller: "orders" });
  const created = await payments.run(createMerchant({ name: "Order shop", scopes: ["payments:write"], actor: "system:test" }));
  const merchantId = created.merchant.id;
  let paymentId = "";
  const rolledBack = await payments.attempt(
    Effect.flatMap(Transactions, (tx) =>
      tx.run(
        Effect.gen(function* () {
          const payment = yield* gateway.authorize({
            merchantId,
            idempotencyKey: "order-1-payment",
            reference: "order:1",
            amount: { amount_minor: 1500, currency: "EUR" },
            paymentMethod: sandboxTokens.visa,
          });
          paymentId = payment.paymentId;
          return yield* Effect.fail("the order failed after paying" as const);
        }),
      ),
    ),
  );
  t.same(rolledBack, { ok: false, error: "the order failed after paying" });
  const stored = await payments.run(Effect.flatMap(PaymentsRepository, (repo) => repo.findIntent(paymentId)));
  t.equal(stored?.status, "requires_capture", "the authorization committed on its own");
  const again = await payments.run(gateway.status({ merchantId, paymentId }));
  t.equal(again.capturableMinor, 1500);
});

t.test("over HTTP an unreachable payment service is an ambiguous outcome, never a guess", async (t) => {
  const gateway = makeHttpPaymentGateway({ baseUrl: "http://127.0.0.1:9", apiKeyFor: () => "sk_test_unused", timeoutMs: 2_000 });
  const failure = await Effect.runPromise(
    Effect.flip(
      gateway.authorize({
        merchantId: "m",
        idempotencyKey: "k",
        reference: "order:9",
        amount: { amount_minor: 100, currency: "EUR" },
        paymentMethod: sandboxTokens.visa,
      }),
    ),
  );
  t.equal(failure._tag, "PaymentOutcomeAmbiguous");
  t.notMatch(JSON.stringify(failure), /sk_test_/, "the API key never appears in the error");
  const refused = await Effect.runPromise(
    Effect.flip(makeHttpPaymentGateway({ baseUrl: "http://127.0.0.1:9", apiKeyFor: () => undefined }).status({ merchantId: "m", paymentId: "p" })),
  );
  t.equal(refused._tag, "PaymentGatewayRefused", "no credential for the merchant: refused before any call");
});

t.test("a host mounting the payment gateway module hands its runtime to the port, and other modules' programs can pay", async (t) => {
  const config = await testConfig("sqlite", t);
  const database = await openConfiguredDatabase(config);
  const gatewayModule = makePaymentGatewayModule({ caller: "commerce" });
  const modules = compose().add(makePaymentsModule({ provider: makeSandboxProvider() })).add(gatewayModule);
  await migrateModules(database, modules.modules);
  const core = await createHostCore({ database, modules, logger: createLogger({ level: "silent" }) });
  t.teardown(core.close);
  gatewayModule.attachRuntime?.(core.runtime);
  const { merchant_id } = await createMerchantWithKey(core.runtime, { name: "Host shop", scopes: ["payments:write"] });
  // What an order core does: it needs only the PaymentGateway port.
  const payOrder = Effect.flatMap(PaymentGateway, (gateway) =>
    gateway.authorize({
      merchantId: merchant_id,
      idempotencyKey: "order-7",
      reference: "order:7",
      amount: { amount_minor: 4200, currency: "EUR" },
      paymentMethod: sandboxTokens.visa,
    }),
  );
  const payment = await core.runtime.runPromise(payOrder);
  t.equal(payment.status, "requires_capture");
  t.same(await core.runtime.runPromise(payOrder), payment, "replayed under the same key");
});
