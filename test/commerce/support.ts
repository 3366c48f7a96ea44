/**
 * Test support of the e-commerce module: its migrations, a runtime built from the module
 * definitions (the payment module with a sandbox provider, then the commerce module with its
 * in-process payment gateway and merchant provisioning), and a small store fixture.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option, TestClock, TestContext } from "effect";
import { sql } from "kysely";
import { makeSandboxProvider, type SandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { inProcessRealtimeBus } from "../../adapters/sql/InProcessRealtimeBus.js";
import { RealtimeBus, type RealtimeNotice } from "../../ports/Realtime.js";
import { makeAesGcmFieldSealer, type FieldSealerKeys } from "../../adapters/commerce/FieldSealer.js";
import { commerceMigrations } from "../../adapters/sql/commerce/index.js";
import { compose } from "../../hosts/Composition.js";
import { makeCommerceModule, type CommerceModuleOptions } from "../../hosts/modules/commerceModule.js";
import { createCart, setCartLine } from "../../core/commerce/Carts.js";
import { createProduct } from "../../core/commerce/Catalog.js";
import { createLocation, createStore } from "../../core/commerce/CreateStore.js";
import { adjustStock } from "../../core/commerce/Inventory.js";
import { placeOrder, type PlaceOrderInput } from "../../core/commerce/PlaceOrder.js";
import type { Shopper } from "../../core/commerce/Access.js";
import type { CartId, StoreId, VariantId } from "../../core/commerce/model/Ids.js";
import type { CommerceServices } from "../../core/commerce/Services.js";
import { Mailer, MailDeliveryFailed, type MailMessage } from "../../ports/Mailer.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { forEachDialect, testModules, type TapTest } from "../support/databases.js";
import type { HasTeardown } from "../support/databases.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { sandboxPaymentsModule, type PaymentServices } from "../payments/support.js";

/** The tables a commerce test database gets: the reference modules' and this module's. */
export const commerceTestModules = [...testModules, { name: "commerce", migrations: commerceMigrations }];

/** `forEachDialect` on a database with this module's tables. */
export const forEachCommerceDialect = (t: TapTest, name: string, fn: (t: TapTest, db: SqlDatabase) => Promise<void>): Promise<unknown> =>
  forEachDialect(t, name, fn, commerceTestModules);

/** The sealing key of the tests (key id `k1`). */
export const testSealingKey = randomBytes(32);
const testSealingKeys: FieldSealerKeys = { currentKeyId: "k1", keys: { k1: testSealingKey } };

/**
 * The commerce core over `db`, built from the module definitions the reference server composes
 * (the payment module over `provider`, then the commerce module with an observable Mailer and the
 * test sealing key): one runtime, attached to the modules' in-process payment bindings.
 */
export const commerceRuntime = (
  t: HasTeardown,
  db: SqlDatabase,
  provider: SandboxProvider = makeSandboxProvider(),
  sealingKeys: FieldSealerKeys = testSealingKeys,
  moduleOptions: Pick<CommerceModuleOptions, "checkoutRiskBounds"> = {},
) => {
  const mail = { sent: [] as MailMessage[], failing: false };
  const mailer: Mailer = {
    send: (message) =>
      mail.failing ? Effect.fail(new MailDeliveryFailed({ detail: "test transport down" })) : Effect.sync(() => void mail.sent.push(message)),
  };
  const commerce = makeCommerceModule({ mailer, sealingKeys, ...moduleOptions });
  // The realtime bus the hosts use on one process (notices delivered after commit), heard here.
  const bus = inProcessRealtimeBus(db);
  const notices: RealtimeNotice[] = [];
  const runtime = ManagedRuntime.make(
    Layer.merge(moduleLayer(db, compose().add(sandboxPaymentsModule(provider)).add(commerce)), Layer.succeed(RealtimeBus, bus)),
  );
  commerce.attachRuntime?.(runtime);
  const stopListening = Effect.runSync(bus.listen((notice) => void notices.push(notice)));
  t.teardown(() => {
    stopListening();
    return runtime.dispose();
  });
  const payments = { run: <A, E>(effect: Effect.Effect<A, E, PaymentServices>): Promise<A> => runtime.runPromise(effect) };
  const sealer = makeAesGcmFieldSealer(sealingKeys);
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
  /** Runs a host-side program (job runner, outbox relay, dead letters) with the clock `ms` into the future. */
  const host = <A, E>(ms: number, effect: Effect.Effect<A, E, ManagedRuntime.ManagedRuntime.Context<typeof runtime>>): Promise<A> =>
    runtime.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.now() + ms);
        return yield* effect;
      }).pipe(Effect.provide(TestContext.TestContext)),
    );
  return { run, attempt, later, host, payments, provider, sealer, mail, notices };
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

/**
 * A store as {@link seedStore} makes it, whose variant is also stocked (`secondStock` units,
 * default 1) at a second location, so an order can ship from two.
 */
export const seedStoreWithTwoLocations = async (
  c: CommerceRuntime,
  options: { readonly stock?: number; readonly price?: number; readonly secondStock?: number } = {},
) => {
  const seeded = await seedStore(c, options);
  const second = await c.run(createLocation(seeded.ownerId, seeded.store.id, { name: "Second warehouse" }));
  await c.run(adjustStock(seeded.ownerId, { variantId: seeded.variant.id, locationId: second.id, delta: options.secondStock ?? 1, reason: "initial stock" }));
  return { ...seeded, second };
};

/** A customer's cart holding `quantity` of `variantId`. */
export const cartWith = async (c: CommerceRuntime, shopper: Shopper & { kind: "customer" }, storeId: StoreId, variantId: VariantId, quantity: number) => {
  const { cart } = await c.run(createCart(shopper.userId, storeId));
  await c.run(setCartLine(shopper, cart.id, { variantId, quantity }));
  return cart;
};

/** A new customer's order of `quantity` units, placed and confirmed (its authorization stands). */
export const confirmedOrder = async (c: CommerceRuntime, storeId: StoreId, variantId: VariantId, quantity = 1) => {
  const shopper = customer();
  const cart = await cartWith(c, shopper, storeId, variantId, quantity);
  const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id, { email: ownEmail(shopper) })));
  return { shopper, placed };
};

/**
 * The e-mail of a new customer's checkout in the helpers below: each its own, as independent
 * customers' are (checkouts of one e-mail in flight at once are bounded by checkout risk).
 */
const ownEmail = (shopper: Shopper & { kind: "customer" }) => `customer-${shopper.userId}@example.com`;

/** A checkout request for `cartId` with a fresh key. */
export const checkoutInput = (cartId: CartId, overrides: Partial<PlaceOrderInput> = {}): PlaceOrderInput => ({
  cartId,
  paymentMethod: "pm_card_visa",
  shippingAddress: { name: "Ada Lovelace", line1: "1 Analytical St", line2: null, city: "London", postcode: "N1 1AA", country: "GB" },
  email: "ada@example.com",
  promotionCodes: [],
  expectedTotalMinor: null,
  idempotencyKey: `checkout-${randomUUID()}`,
  clientIp: null,
  ...overrides,
});

/**
 * A customer's order left in checkout by a lost provider answer (`pm_card_timeout_after`):
 * `payment_pending`, its reservation active, its payment id known.
 */
export const pendingPaymentOrder = async (c: CommerceRuntime, storeId: StoreId, variantId: VariantId, quantity: number) => {
  const shopper = customer();
  const cart = await cartWith(c, shopper, storeId, variantId, quantity);
  const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id, { paymentMethod: "pm_card_timeout_after", email: ownEmail(shopper) })));
  const payment = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findPayment(placed.order.id)));
  return { shopper, order: placed.order, paymentId: payment?.paymentId ?? null };
};

/**
 * A customer's order left `pending` as a crash leaves it: the provider answered (authorized, or
 * declined with `pm_card_declined`), then the process stopped before checkout recorded the answer (only the resolution job checkout
 * scheduled would find it). Its order and payment record as checkout committed them.
 */
export const unrecordedAuthorizationOrder = async (c: CommerceRuntime, storeId: StoreId, variantId: VariantId, quantity = 1, paymentMethod = "pm_card_visa") => {
  const shopper = customer();
  const cart = await cartWith(c, shopper, storeId, variantId, quantity);
  const gateway = await c.run(PaymentGateway);
  // The provider answers (authorized or declined), then the process stops.
  const stopping = PaymentGateway.of({ ...gateway, authorize: (request) => Effect.zipRight(Effect.exit(gateway.authorize(request)), Effect.die(new Error("process stopped"))) });
  const stopped = await c.attempt(Effect.provideService(placeOrder(shopper, checkoutInput(cart.id, { paymentMethod, email: ownEmail(shopper) })), PaymentGateway, stopping)).then(
    () => null,
    (error: unknown) => error,
  );
  if (!(stopped instanceof Error)) throw new Error("checkout was expected to stop after the provider answered");
  const orders = await c.run(OrdersRepository);
  const [order] = await c.run(orders.ordersOfCustomer(shopper.userId, null, 1));
  if (order === undefined || order.status !== "pending") throw new Error("checkout was expected to leave a pending order");
  const payment = (await c.run(orders.findPayment(order.id)))!;
  return { shopper, order, payment };
};

/** Every row of the module's tables (and the outbox), as text: what a retention test searches for personal data. */
export const everyCommerceRow = async (db: SqlDatabase): Promise<string> => {
  const tables =
    db.dialect === "sqlite"
      ? await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND (name LIKE 'shop%' OR name = 'outbox')`.execute(db.db)
      : await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND (table_name LIKE 'shop%' OR table_name = 'outbox')`.execute(db.db);
  const texts: string[] = [];
  for (const { name } of tables.rows) {
    const rows = await sql`SELECT * FROM ${sql.table(name)}`.execute(db.db);
    texts.push(JSON.stringify(rows.rows));
  }
  return texts.join("\n");
};

/** A guest's order of one unit, placed. */
export const guestOrder = async (c: CommerceRuntime, storeId: StoreId, variantId: VariantId) => {
  const cart = await c.run(createCart(null, storeId));
  const guest = { kind: "guest" as const, cartToken: cart.cartToken! };
  await c.run(setCartLine(guest, cart.cart.id, { variantId, quantity: 1 }));
  const placed = await c.run(placeOrder(guest, checkoutInput(cart.cart.id)));
  return { guest, orderId: placed.order.id };
};
