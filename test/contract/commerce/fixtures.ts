/**
 * Records shared by the commerce contract kits: UUID-shaped ids that sort by their number, and a
 * store (with a location, a product and an active variant) written through the module's ports,
 * since every `shop_` row references its store.
 */
import { Effect } from "effect";
import type { Order, OrderLine } from "../../../core/commerce/model/Order.js";
import type { Store } from "../../../core/commerce/model/Store.js";
import type { Variant } from "../../../core/commerce/model/Variant.js";
import { CatalogRepository } from "../../../ports/commerce/CatalogRepository.js";
import { StoresRepository } from "../../../ports/commerce/StoresRepository.js";
import { T0 } from "../Kit.js";
import { CartId, FulfillmentTaskId, LocationId, OrderId, OrderLineId, ProductId, PromotionId, ReservationId, ReturnId, ShipmentId, StoreId, VariantId } from "../../../core/commerce/model/Ids.js";

/** A time-ordered, UUID-shaped id of a kind: ids of one kind sort by `n`. */
export const uid = (kind: string, n: number): string =>
  `${Buffer.from(kind).toString("hex").padEnd(8, "0").slice(0, 8)}-0000-7000-8000-${n.toString(16).padStart(12, "0")}`;

/** Branded ids of the kits' records, `n` as in `uid`. */
export const kitId = {
  store: (n: number): StoreId => StoreId.make(uid("store", n)),
  loc: (n: number): LocationId => LocationId.make(uid("loc", n)),
  prod: (n: number): ProductId => ProductId.make(uid("prod", n)),
  var: (n: number): VariantId => VariantId.make(uid("var", n)),
  promo: (n: number): PromotionId => PromotionId.make(uid("promo", n)),
  cart: (n: number): CartId => CartId.make(uid("cart", n)),
  order: (n: number): OrderId => OrderId.make(uid("order", n)),
  line: (n: number): OrderLineId => OrderLineId.make(uid("line", n)),
  res: (n: number): ReservationId => ReservationId.make(uid("res", n)),
  ship: (n: number): ShipmentId => ShipmentId.make(uid("ship", n)),
  ret: (n: number): ReturnId => ReturnId.make(uid("ret", n)),
  task: (n: number): FulfillmentTaskId => FulfillmentTaskId.make(uid("task", n)),
};

/** Store `n` (EUR, no tax). */
export const storeRecord = (n: number): Store => ({
  id: kitId.store(n),
  name: `Kit shop ${n}`,
  currency: "EUR",
  ownerId: uid("user", 1),
  merchantId: uid("mer", n),
  taxRateBasisPoints: 0,
  createdAt: T0,
});

/** Variant `n` of product `productN` in store `storeN`. */
export const variantRecord = (n: number, options: { readonly storeN?: number; readonly productN?: number; readonly sku?: string; readonly status?: Variant["status"] } = {}): Variant => ({
  id: kitId.var(n),
  storeId: kitId.store(options.storeN ?? 1),
  productId: kitId.prod(options.productN ?? 1),
  sku: options.sku ?? `KIT-${n}`,
  status: options.status ?? "active",
  priceMinor: 100 * n,
  currency: "EUR",
  version: 1,
  updatedAt: T0,
});

/** Store `n` with location `n`, product `n` ("Kit teapot") and its active variant `n`. */
export const seedStore = (n = 1) =>
  Effect.gen(function* () {
    const stores = yield* StoresRepository;
    const catalog = yield* CatalogRepository;
    yield* stores.insertStore(storeRecord(n));
    yield* stores.insertLocation({ id: kitId.loc(n), storeId: kitId.store(n), name: `Kit warehouse ${n}`, createdAt: T0 });
    yield* catalog.insertProduct({ id: kitId.prod(n), storeId: kitId.store(n), title: "Kit teapot", description: "Cast iron", createdAt: T0 });
    yield* catalog.insertVariant(variantRecord(n, { storeN: n, productN: n }));
  });

/** Order `n` of store 1 (pending, total 100) by `customerId` (a guest when null). */
export const orderRecord = (n: number, customerId: string | null = uid("user", 2)): Order => ({
  id: kitId.order(n),
  storeId: kitId.store(1),
  customerId,
  cartId: kitId.cart(n),
  status: "pending",
  currency: "EUR",
  subtotalMinor: 100,
  discountMinor: 0,
  taxMinor: 0,
  totalMinor: 100,
  paymentIntentRef: null,
  email: "ada@example.com",
  shippingAddress: { name: "Ada Lovelace", line1: "1 Analytical St", line2: null, city: "London", postcode: "N1 1AA", country: "GB" },
  version: 1,
  createdAt: T0,
  updatedAt: T0,
});

/** Line `n` of order `orderN` (store 1, variant 1): quantity `n`, 100 a unit. */
export const lineOf = (orderN: number, n: number): OrderLine => ({
  id: kitId.line(orderN * 10 + n),
  storeId: kitId.store(1),
  orderId: kitId.order(orderN),
  variantId: kitId.var(1),
  sku: "KIT-1",
  quantity: n,
  unitPriceMinor: 100,
  discountMinor: 0,
  taxMinor: 0,
  totalMinor: 100 * n,
});
