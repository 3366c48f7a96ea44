/**
 * Catalog commands and queries: catalog managers create products with variants (SKU unique per
 * store, price ≥ 0, purchasable unless told otherwise) and change a variant's price or status
 * against its version; anyone browses purchasable products by an opaque keyset cursor.
 */
import { Effect } from "effect";
import { NotFound, PreconditionRequired, ValidationFailed, VersionMismatch, type FieldError } from "../kernel/Errors.js";
import { searchTerms } from "../kernel/SearchTerms.js";
import { now } from "../kernel/Clock.js";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { versionMismatch } from "../kernel/Versioning.js";
import { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";
import { CatalogRepository } from "../../ports/commerce/CatalogRepository.js";
import { toWire } from "../kernel/Wire.js";
import type { Product, ProductWithVariants } from "./model/Product.js";
import { Variant, type VariantStatus } from "./model/Variant.js";
import { loadStore, requireStaffRole } from "./Access.js";
import { SkuTaken } from "./Errors.js";
import { withSpan } from "../kernel/Span.js";
import { ProductId, VariantId, type StoreId } from "./model/Ids.js";
import { maxPriceMinor } from "./Pricing.js";

export interface NewVariantInput {
  readonly sku: string;
  readonly priceMinor: number;
  readonly status?: VariantStatus;
}

export interface CreateProductInput {
  readonly title: string;
  readonly description?: string | null;
  readonly variants: ReadonlyArray<NewVariantInput>;
}

/** Most characters of a product's description (a public page of products stays bounded). */
export const maxDescriptionLength = 5000;

const priceErrors = (path: string, price: number): FieldError[] =>
  Number.isSafeInteger(price) && price >= 0 && price <= maxPriceMinor ? [] : [{ path, message: `an integer of minor units from 0 to ${maxPriceMinor}` }];

const withVariants = (product: Product, variants: ReadonlyArray<Variant>): ProductWithVariants => ({
  ...product,
  variants,
});

/** Command: a catalog manager creates a product with its variants. */
export const createProduct = (userId: string, storeId: StoreId, input: CreateProductInput) =>
  Effect.gen(function* () {
    const store = yield* requireStaffRole(storeId, userId, "catalog_manager");
    const errors: FieldError[] = [
      ...(input.title.trim().length === 0 || input.title.length > 500 ? [{ path: "title", message: "1 to 500 characters" }] : []),
      ...((input.description ?? "").length > maxDescriptionLength ? [{ path: "description", message: `at most ${maxDescriptionLength} characters` }] : []),
      ...(input.variants.length === 0 || input.variants.length > 100 ? [{ path: "variants", message: "1 to 100 variants" }] : []),
      ...input.variants.flatMap((v, i) => [
        ...(v.sku.trim().length === 0 || v.sku.length > 100 ? [{ path: `variants/${i}/sku`, message: "1 to 100 characters" }] : []),
        ...priceErrors(`variants/${i}/price_minor`, v.priceMinor),
      ]),
    ];
    if (new Set(input.variants.map((v) => v.sku)).size !== input.variants.length) errors.push({ path: "variants", message: "SKUs must differ" });
    if (errors.length > 0) return yield* Effect.fail(new ValidationFailed({ errors }));
    const ids = yield* Ids;
    const at = yield* now;
    const product: Product = { id: ProductId.make(yield* ids.next), storeId, title: input.title, description: input.description ?? null, createdAt: at };
    const variants: Variant[] = [];
    for (const v of input.variants) {
      variants.push({
        id: VariantId.make(yield* ids.next),
        storeId,
        productId: product.id,
        sku: v.sku,
        status: v.status ?? "active",
        priceMinor: v.priceMinor,
        currency: store.currency,
        version: 1,
        updatedAt: at,
      });
    }
    const catalog = yield* CatalogRepository;
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* catalog.insertProduct(product);
        for (const variant of variants) {
          if (!(yield* catalog.insertVariant(variant))) return yield* Effect.fail(new SkuTaken({ sku: variant.sku }));
        }
      }),
    );
    return withVariants(product, variants);
  }).pipe(withSpan("commerce.createProduct"));

/** Command: a catalog manager changes a variant's price or status (If-Match on its version is required). */
export const updateVariant = (
  userId: string,
  variantId: VariantId,
  input: { readonly priceMinor?: number; readonly status?: VariantStatus; readonly expectedVersion: number | undefined },
) =>
  Effect.gen(function* () {
    const catalog = yield* CatalogRepository;
    const variant = yield* catalog.findVariant(variantId);
    if (variant === null) return yield* Effect.fail(new NotFound({ resource: "variant" }));
    yield* requireStaffRole(variant.storeId, userId, "catalog_manager");
    if (input.expectedVersion === undefined) return yield* Effect.fail(new PreconditionRequired({}));
    if (input.priceMinor !== undefined) {
      const errors = priceErrors("price_minor", input.priceMinor);
      if (errors.length > 0) return yield* Effect.fail(new ValidationFailed({ errors }));
    }
    if (variant.version !== input.expectedVersion) return yield* Effect.fail(versionMismatch(toWire(Variant, variant)));
    const next: Variant = {
      ...variant,
      priceMinor: input.priceMinor ?? variant.priceMinor,
      status: input.status ?? variant.status,
      version: variant.version + 1,
      updatedAt: yield* now,
    };
    if (!(yield* catalog.updateVariant(next, variant.version))) {
      const current = yield* catalog.findVariant(variantId);
      return yield* Effect.fail(current === null ? new VersionMismatch({ current: null }) : versionMismatch(toWire(Variant, current)));
    }
    return next;
  }).pipe(withSpan("commerce.updateVariant"));

/** Query: a product with its purchasable variants (public). */
export const getProduct = (productId: ProductId) =>
  Effect.gen(function* () {
    const catalog = yield* CatalogRepository;
    const product = yield* catalog.findProduct(productId);
    if (product === null) return yield* Effect.fail(new NotFound({ resource: "product" }));
    const variants = (yield* catalog.variantsOfProduct(productId)).filter((v) => v.status === "active");
    if (variants.length === 0) return yield* Effect.fail(new NotFound({ resource: "product" }));
    return withVariants(product, variants);
  }).pipe(withSpan("commerce.getProduct"));

/** Query: one page of a store's purchasable products by id, optionally searched (public; 400 invalid_cursor). */
export const listProducts = (input: {
  readonly storeId: StoreId;
  readonly q: string | null;
  readonly cursor: string | null;
  readonly limit: number;
}) =>
  Effect.gen(function* () {
    yield* loadStore(input.storeId);
    const after =
      input.cursor === null
        ? null
        : yield* decodeCursor(IdCursorKey, input.cursor);
    const catalog = yield* CatalogRepository;
    const rows = yield* catalog.listProducts({ storeId: input.storeId, words: input.q === null ? [] : searchTerms(input.q), afterId: after === null ? null : after[0], limit: input.limit + 1 });
    const page = pageFrom(rows, input.limit, (p) => [p.id]);
    // One query for the page's variants, not one per product.
    const active = (yield* catalog.variantsOfProducts(page.data.map((p) => p.id))).filter((v) => v.status === "active");
    const data: ProductWithVariants[] = page.data.map((p) => withVariants(p, active.filter((v) => v.productId === p.id)));
    const result: Page<ProductWithVariants> = { data, next_cursor: page.next_cursor };
    return result;
  }).pipe(withSpan("commerce.listProducts"));
