/**
 * Test support of the e-commerce module: its migrations registered (the ONE place; the
 * registry is being replaced), a runtime of the commerce core over one test database with the
 * real SQL repositories and the real in-process payment gateway (the payment core on its own
 * runtime over the same database, with the sandbox provider), a merchant provisioning that
 * creates a payments merchant per store reference once, and a small store fixture.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option, TestClock, TestContext } from "effect";
import { makeInProcessPaymentGateway } from "../../adapters/payments/gateway/InProcessPaymentGateway.js";
import { makeSandboxProvider, type SandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { storageLayer } from "../../adapters/sql/storageLayer.js";
import {
  commerceMigrations,
  cryptoCartTokens,
  makeSqlCartsRepository,
  makeSqlCatalogRepository,
  makeSqlInventoryRepository,
  makeSqlOrdersRepository,
  makeSqlStoresRepository,
  makeAesGcmFieldSealer,
} from "../../adapters/sql/commerce/index.js";
import { createMerchant } from "../../core/payments/Merchants.js";
import { createCart, setCartLine } from "../../core/commerce/Carts.js";
import { createProduct } from "../../core/commerce/Catalog.js";
import { createLocation, createStore } from "../../core/commerce/CreateStore.js";
import { adjustStock } from "../../core/commerce/Inventory.js";
import { placeOrder, type PlaceOrderInput } from "../../core/commerce/PlaceOrder.js";
import type { Shopper } from "../../core/commerce/Access.js";
import type { CommerceServices } from "../../core/commerce/Services.js";
import { Mailer, MailDeliveryFailed, type MailMessage } from "../../ports/Mailer.js";
import { MerchantProvisioning } from "../../ports/MerchantProvisioning.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import type { FieldSealer } from "../../ports/commerce/FieldSealer.js";
import { CartTokens } from "../../ports/commerce/CartTokens.js";
import { CartsRepository } from "../../ports/commerce/CartsRepository.js";
import { CatalogRepository } from "../../ports/commerce/CatalogRepository.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { StoresRepository } from "../../ports/commerce/StoresRepository.js";
import { forEachDialect, testModules, type TapTest } from "../support/databases.js";
import type { HasTeardown } from "../support/databases.js";
import { paymentsRuntime } from "../payments/support.js";

/** The tables a commerce test database gets: the reference modules' and this module's. */
export const commerceTestModules = [...testModules, { name: "commerce", migrations: commerceMigrations }];

/** `forEachDialect` on a database with this module's tables. */
export const forEachCommerceDialect = (t: TapTest, name: string, fn: (t: TapTest, db: SqlDatabase) => Promise<void>): Promise<unknown> =>
  forEachDialect(t, name, fn, commerceTestModules);

/** The sealing key of the tests (key id `k1`). */
export const testSealingKey = randomBytes(32);
const testSealer = makeAesGcmFieldSealer({ currentKeyId: "k1", keys: { k1: testSealingKey } });

/** The commerce core over `db` with the in-process payment gateway, disposed at teardown. */
export const commerceRuntime = (
  t: HasTeardown,
  db: SqlDatabase,
  provider: SandboxProvider = makeSandboxProvider(),
  sealer: FieldSealer = testSealer,
) => {
  const payments = paymentsRuntime(t, db, provider);
  const gateway = makeInProcessPaymentGateway({ runtime: () => payments.runtime, caller: "commerce" });
  const merchants = new Map<string, Promise<string>>();
  const provisioning: MerchantProvisioning = {
    provision: ({ name, reference }) =>
      Effect.promise(() => {
        let merchant = merchants.get(reference);
        if (merchant === undefined) {
          merchant = payments
            .run(createMerchant({ name, scopes: ["payments:write", "refunds:write"], actor: "system:commerce" }))
            .then((created) => created.merchant.id);
          merchants.set(reference, merchant);
        }
        return merchant;
      }).pipe(Effect.map((merchantId) => ({ merchantId }))),
  };
  const mail = { sent: [] as MailMessage[], failing: false };
  const mailer: Mailer = {
    send: (message) =>
      mail.failing ? Effect.fail(new MailDeliveryFailed({ detail: "test transport down" })) : Effect.sync(() => void mail.sent.push(message)),
  };
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(
      storageLayer(db),
      Layer.succeed(Mailer, mailer),
      Layer.succeed(StoresRepository, makeSqlStoresRepository(db)),
      Layer.succeed(CatalogRepository, makeSqlCatalogRepository(db)),
      Layer.succeed(InventoryRepository, makeSqlInventoryRepository(db)),
      Layer.succeed(CartsRepository, makeSqlCartsRepository(db)),
      Layer.succeed(OrdersRepository, makeSqlOrdersRepository(db, sealer)),
      Layer.succeed(CartTokens, cryptoCartTokens),
      Layer.succeed(PaymentGateway, gateway),
      Layer.succeed(MerchantProvisioning, provisioning),
    ),
  );
  t.teardown(() => runtime.dispose());
  const run = <A, E>(effect: Effect.Effect<A, E, CommerceServices>): Promise<A> => runtime.runPromise(effect);
  /** The typed failure or the value of `effect`. */
  const attempt = async <A, E>(effect: Effect.Effect<A, E, CommerceServices>): Promise<{ ok: true; value: A } | { ok: false; error: E }> => {
    const exit = await runtime.runPromiseExit(effect);
    if (Exit.isSuccess(exit)) return { ok: true, value: exit.value };
    const failure = Cause.failureOption(exit.cause);
    if (Option.isNone(failure)) throw new Error(`unexpected defect: ${Cause.pretty(exit.cause)}`);
    return { ok: false, error: failure.value };
  };
  /** Runs `effect` with the clock set `ms` into the future (e.g. past a reservation's expiry). */
  const later = <A, E>(ms: number, effect: Effect.Effect<A, E, CommerceServices>): Promise<A> =>
    run(
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.now() + ms);
        return yield* effect;
      }).pipe(Effect.provide(TestContext.TestContext)),
    );
  return { run, attempt, later, payments, provider, gateway, sealer, mail };
};

export type CommerceRuntime = ReturnType<typeof commerceRuntime>;

/** A customer. */
export const customer = (): Shopper & { kind: "customer" } => ({ kind: "customer", userId: randomUUID() });

/** A store (tax 10%) with one location and one product of one variant priced 1,000 with `stock` units. */
export const seedStore = async (c: CommerceRuntime, options: { readonly stock?: number; readonly price?: number } = {}) => {
  const ownerId = randomUUID();
  const store = await c.run(createStore(ownerId, { name: "Test shop", currency: "EUR", taxRateBasisPoints: 1000 }));
  const location = await c.run(createLocation(ownerId, store.id, { name: "Main warehouse" }));
  const product = await c.run(
    createProduct(ownerId, store.id, { title: "Teapot", variants: [{ sku: `TEA-${randomUUID().slice(0, 8)}`, priceMinor: options.price ?? 1000 }] }),
  );
  const variant = product.variants[0]!;
  if ((options.stock ?? 10) > 0) {
    await c.run(adjustStock(ownerId, { variantId: variant.id, locationId: location.id, delta: options.stock ?? 10, reason: "initial stock" }));
  }
  return { ownerId, store, location, product, variant };
};

/** A customer's cart holding `quantity` of `variantId`. */
export const cartWith = async (c: CommerceRuntime, shopper: Shopper & { kind: "customer" }, storeId: string, variantId: string, quantity: number) => {
  const { cart } = await c.run(createCart(shopper.userId, storeId));
  await c.run(setCartLine(shopper, cart.id, { variantId, quantity }));
  return cart;
};

/** A checkout request for `cartId` with a fresh key. */
export const checkoutInput = (cartId: string, overrides: Partial<PlaceOrderInput> = {}): PlaceOrderInput => ({
  cartId,
  paymentMethod: "pm_card_visa",
  shippingAddress: { name: "Ada Lovelace", line1: "1 Analytical St", line2: null, city: "London", postcode: "N1 1AA", country: "GB" },
  email: "ada@example.com",
  promotionCodes: [],
  expectedTotalMinor: null,
  idempotencyKey: `checkout-${randomUUID()}`,
  ...overrides,
});

/**
 * A customer's order left in checkout by a lost provider answer (`pm_card_timeout_after`):
 * `payment_pending`, its reservation active, its payment id known.
 */
export const pendingPaymentOrder = async (c: CommerceRuntime, storeId: string, variantId: string, quantity: number) => {
  const shopper = customer();
  const cart = await cartWith(c, shopper, storeId, variantId, quantity);
  const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id, { paymentMethod: "pm_card_timeout_after" })));
  const payment = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findPayment(placed.order.id)));
  return { shopper, order: placed.order, paymentId: payment?.paymentId ?? null };
};
