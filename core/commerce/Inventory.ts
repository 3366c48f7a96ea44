/**
 * Inventory commands and queries: a warehouse operator adjusts stock at a location (audited
 * with a reason; refused with 409 if on_hand would drop below reserved), and reads stock per
 * variant and location with available = on_hand − reserved.
 */
import { Effect } from "effect";
import { NotFound, ValidationFailed } from "../kernel/Errors.js";
import { now } from "../kernel/Clock.js";
import { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";
import { CatalogRepository } from "../../ports/commerce/CatalogRepository.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { StoresRepository } from "../../ports/commerce/StoresRepository.js";
import { maxOnHand, viewOfStock, type StockLevelView } from "./model/StockLevel.js";
import { requireStaffRole } from "./Access.js";
import { StockBelowReserved } from "./Errors.js";
import { withSpan } from "../kernel/Span.js";
import { type LocationId, StockAdjustmentId, type VariantId } from "./model/Ids.js";

export interface AdjustStockInput {
  readonly variantId: VariantId;
  readonly locationId: LocationId;
  readonly delta: number;
  readonly reason: string;
}

/** Command: adjust on_hand by `delta` (audited). */
export const adjustStock = (userId: string, input: AdjustStockInput) =>
  Effect.gen(function* () {
    const variant = yield* (yield* CatalogRepository).findVariant(input.variantId);
    if (variant === null) return yield* Effect.fail(new NotFound({ resource: "variant" }));
    yield* requireStaffRole(variant.storeId, userId, "warehouse_operator");
    const location = yield* (yield* StoresRepository).findLocation(variant.storeId, input.locationId);
    if (location === null) return yield* Effect.fail(new NotFound({ resource: "location" }));
    const errors = [
      ...(Number.isSafeInteger(input.delta) && input.delta !== 0 && Math.abs(input.delta) <= maxOnHand
        ? []
        : [{ path: "delta", message: `a non-zero integer of at most ${maxOnHand} units either way` }]),
      ...(input.reason.trim().length === 0 || input.reason.length > 500 ? [{ path: "reason", message: "1 to 500 characters" }] : []),
    ];
    if (errors.length > 0) return yield* Effect.fail(new ValidationFailed({ errors }));
    const inventory = yield* InventoryRepository;
    const at = yield* now;
    const id = StockAdjustmentId.make(yield* (yield* Ids).next);
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const after = yield* inventory.adjust({ storeId: variant.storeId, variantId: variant.id, locationId: location.id, delta: input.delta, now: at });
        if (after === null) {
          // Refused by the conditional update: below what is reserved, or above what a location holds.
          const current = yield* inventory.findStock(variant.id, location.id);
          if ((current?.onHand ?? 0) + input.delta > maxOnHand) {
            return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "delta", message: `on hand would exceed ${maxOnHand} units` }] }));
          }
          return yield* Effect.fail(new StockBelowReserved({ variantId: variant.id, locationId: location.id }));
        }
        yield* inventory.insertAdjustment({
          id,
          storeId: variant.storeId,
          variantId: variant.id,
          locationId: location.id,
          delta: input.delta,
          reason: input.reason,
          actorId: `user:${userId}`,
          createdAt: at,
        });
        return viewOfStock(after);
      }),
    );
  }).pipe(withSpan("commerce.adjustStock"));

/** Query: a variant's stock at every location (warehouse operators of its store). */
export const stockOfVariant = (userId: string, variantId: VariantId) =>
  Effect.gen(function* () {
    const variant = yield* (yield* CatalogRepository).findVariant(variantId);
    if (variant === null) return yield* Effect.fail(new NotFound({ resource: "variant" }));
    yield* requireStaffRole(variant.storeId, userId, "warehouse_operator");
    const rows = yield* (yield* InventoryRepository).stockOf([variantId]);
    const views: ReadonlyArray<StockLevelView> = rows.map(viewOfStock);
    return views;
  }).pipe(withSpan("commerce.stockOfVariant"));
