/**
 * Command: a catalog manager creates a promotion — a percentage (1 to 100) or a fixed amount
 * off, by code (unique per store) or automatic, with a validity window and an optional usage
 * limit (counted at checkout by a conditional update, so concurrency never exceeds it).
 */
import { Effect } from "effect";
import { ValidationFailed, type FieldError } from "../kernel/Errors.js";
import { PromotionCodeTaken } from "./Errors.js";
import { now } from "../kernel/Clock.js";
import { Ids } from "../../ports/Ids.js";
import { CatalogRepository } from "../../ports/commerce/CatalogRepository.js";
import type { Promotion, PromotionKind } from "./model/Promotion.js";
import { requireStaffRole } from "./Access.js";
import { withSpan } from "../kernel/Span.js";
import { type OrderId, PromotionId, type StoreId } from "./model/Ids.js";

export interface CreatePromotionInput {
  readonly code: string | null;
  readonly kind: PromotionKind;
  readonly value: number;
  readonly automatic: boolean;
  readonly startsAt: Date | null;
  readonly endsAt: Date | null;
  readonly usageLimit: number | null;
}

/** A promotion's times are in the years 2000 to 9999: both databases hold them, and they sort as written. */
const inPromotionYears = (time: Date): boolean => time.getUTCFullYear() >= 2000 && time.getUTCFullYear() <= 9999;
const promotionYearsMessage = "a time in the years 2000 to 9999";

export const createPromotion = (userId: string, storeId: StoreId, input: CreatePromotionInput) =>
  Effect.gen(function* () {
    yield* requireStaffRole(storeId, userId, "catalog_manager");
    const at = yield* now;
    const startsAt = input.startsAt ?? at;
    const errors: FieldError[] = [
      ...(Number.isSafeInteger(input.value) && input.value > 0 && (input.kind !== "percentage" || input.value <= 100)
        ? []
        : [{ path: "value", message: input.kind === "percentage" ? "1 to 100 (percent)" : "a positive amount of minor units" }]),
      ...(input.code === null ? [] : /^[A-Z0-9_-]{1,40}$/.test(input.code) ? [] : [{ path: "code", message: "1 to 40 of A-Z, 0-9, _ and -" }]),
      ...(input.automatic || input.code !== null ? [] : [{ path: "code", message: "a promotion without a code must be automatic" }]),
      ...(input.startsAt === null || inPromotionYears(input.startsAt) ? [] : [{ path: "starts_at", message: promotionYearsMessage }]),
      ...(input.endsAt === null || inPromotionYears(input.endsAt) ? [] : [{ path: "ends_at", message: promotionYearsMessage }]),
      ...(input.endsAt === null || input.endsAt.getTime() > startsAt.getTime() ? [] : [{ path: "ends_at", message: "after starts_at" }]),
      ...(input.usageLimit === null || (Number.isSafeInteger(input.usageLimit) && input.usageLimit > 0 && input.usageLimit <= 1_000_000_000) ? [] : [{ path: "usage_limit", message: "an integer from 1 to 1,000,000,000" }]),
    ];
    if (errors.length > 0) return yield* Effect.fail(new ValidationFailed({ errors }));
    const promotion: Promotion = {
      id: PromotionId.make(yield* (yield* Ids).next),
      storeId,
      code: input.code,
      kind: input.kind,
      value: input.value,
      automatic: input.automatic,
      startsAt,
      endsAt: input.endsAt,
      usageLimit: input.usageLimit,
      usageCount: 0,
      createdAt: at,
    };
    if (!(yield* (yield* CatalogRepository).insertPromotion(promotion))) return yield* Effect.fail(new PromotionCodeTaken({ code: input.code ?? "" }));
    return promotion;
  }).pipe(withSpan("commerce.createPromotion"));

/**
 * Gives back the promotion uses of an order that will never be paid (failed, expired, cancelled),
 * once: a limited code is spent only by orders that go through.
 */
export const givePromotionUsesBack = (orderId: OrderId) =>
  Effect.gen(function* () {
    yield* (yield* CatalogRepository).releasePromotionUses(orderId, yield* now);
  });
