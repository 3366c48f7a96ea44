/** Routes of the catalog (products, variants, search) and inventory (adjustments, stock). */
import { Effect, Schema } from "effect";
import { userOf } from "../../../core/commerce/Callers.js";
import { createProduct, getProduct, listProducts, updateVariant } from "../../../core/commerce/Catalog.js";
import { adjustStock, stockOfVariant } from "../../../core/commerce/Inventory.js";
import { ProductWithVariants } from "../../../core/commerce/model/Product.js";
import { StockLevelWire } from "../../../core/commerce/model/StockLevel.js";
import { VariantWire } from "../../../core/commerce/model/Variant.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { wireShape } from "../../../core/kernel/Wire.js";
import { defineRoute } from "../Route.js";
import { CreateProductBody, PatchVariantBody, ProductListQuery, StockAdjustmentBody } from "./CatalogSchemas.js";
import { ProductParams, StoreParams, VariantParams } from "./StoreSchemas.js";

const tags = ["commerce"];

/** A product with its (purchasable) variants. */
export const ProductWire = wireShape(ProductWithVariants);

/** POST /v1/stores/:id/products — a catalog manager creates a product with its variants. */
export const createProductRoute = defineRoute({
  method: "POST",
  path: "/v1/stores/:id/products",
  operationId: "createProduct",
  summary: "Create a product with its variants (catalog manager)",
  description: "SKUs are unique per store (409 sku_taken); price_minor is 0 to 10,000,000,000 minor units (422 otherwise), in the store's currency.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: StoreParams,
  body: CreateProductBody,
  responses: { 201: ProductWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    Effect.flatMap(userOf(principal), (userId) =>
      createProduct(userId, params.id, {
        title: body.title,
        description: body.description ?? null,
        variants: body.variants.map((v) => ({ sku: v.sku, priceMinor: v.price_minor, ...(v.status === undefined ? {} : { status: v.status }) })),
      }),
    ).pipe(Effect.map((product) => ({ status: 201, body: product }))),
});

/** GET /v1/products — public browse and search of a store's purchasable products. */
export const listProductsRoute = defineRoute({
  method: "GET",
  path: "/v1/products",
  operationId: "listProducts",
  summary: "Browse or search a store's purchasable products (public; opaque keyset cursor)",
  tags,
  auth: "none",
  pagination: true,
  query: ProductListQuery,
  responses: { 200: PageOf(ProductWire) },
  problems: [400, 404],
  handler: ({ query, page }) =>
    listProducts({ storeId: query.store_id, q: query.q ?? null, cursor: page.cursor ?? null, limit: page.limit }).pipe(
      Effect.map((listed) => ({ status: 200, body: listed })),
    ),
});

/** GET /v1/products/:id — public. */
export const getProductRoute = defineRoute({
  method: "GET",
  path: "/v1/products/:id",
  operationId: "getProduct",
  summary: "Read a product with its purchasable variants (public)",
  tags,
  auth: "none",
  params: ProductParams,
  responses: { 200: ProductWire },
  problems: [404],
  handler: ({ params }) => getProduct(params.id).pipe(Effect.map((product) => ({ status: 200, body: product }))),
});

/** PATCH /v1/variants/:id — price or status against the variant's version. */
export const patchVariantRoute = defineRoute({
  method: "PATCH",
  path: "/v1/variants/:id",
  operationId: "updateVariant",
  summary: "Change a variant's price or status with its version in If-Match (catalog manager)",
  description: "428 without If-Match; 412 version_mismatch carries the current variant in `current`.",
  tags,
  auth: "required",
  answersEtag: "version",
  ifMatch: "required",
  params: VariantParams,
  body: PatchVariantBody,
  responses: { 200: VariantWire },
  problems: [403, 404, 412, 422, 428],
  handler: ({ principal, params, body, ifMatch }) =>
    Effect.flatMap(userOf(principal), (userId) =>
      updateVariant(userId, params.id, {
        expectedVersion: ifMatch,
        ...(body.price_minor === undefined ? {} : { priceMinor: body.price_minor }),
        ...(body.status === undefined ? {} : { status: body.status }),
      }),
    ).pipe(Effect.map((variant) => ({ status: 200, body: variant, etag: variant.version }))),
});

/** POST /v1/inventory/adjustments — a warehouse operator adjusts on_hand (audited with a reason). */
export const adjustStockRoute = defineRoute({
  method: "POST",
  path: "/v1/inventory/adjustments",
  operationId: "adjustStock",
  summary: "Adjust stock on hand at a location, with a reason (warehouse operator; audited)",
  description: "409 stock_below_reserved when on_hand would drop below what is reserved.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  body: StockAdjustmentBody,
  responses: { 201: StockLevelWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, body }) =>
    Effect.flatMap(userOf(principal), (userId) =>
      adjustStock(userId, { variantId: body.variant_id, locationId: body.location_id, delta: body.delta, reason: body.reason }),
    ).pipe(Effect.map((stock) => ({ status: 201, body: stock }))),
});

/** GET /v1/variants/:id/stock — stock per location (available = on_hand − reserved). */
export const variantStockRoute = defineRoute({
  method: "GET",
  path: "/v1/variants/:id/stock",
  operationId: "getVariantStock",
  summary: "Read a variant's stock at every location (warehouse operator)",
  description: "One page: a store has at most 200 locations, so next_cursor is always null.",
  tags,
  auth: "required",
  params: VariantParams,
  responses: { 200: PageOf(StockLevelWire) },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    Effect.flatMap(userOf(principal), (userId) => stockOfVariant(userId, params.id)).pipe(
      Effect.map((levels) => ({ status: 200, body: { data: levels, next_cursor: null } })),
    ),
});

/** Catalog and inventory routes. */
export const catalogRoutes = [createProductRoute, listProductsRoute, getProductRoute, patchVariantRoute, adjustStockRoute, variantStockRoute];
