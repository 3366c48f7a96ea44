/**
 * POST /restaurant-orders/:id/substitutions (staff of the owning restaurant): proposes to replace
 * one line of an authorized or accepted order, before pickup, with another available item of the
 * current menu (same quantity); answered in the order's currency. One proposal per line (a second answers 409
 * substitution_conflict). The replacement is supplied at the original line's price: the
 * customer is never charged more than authorized (the replacement's menu price is shown for the
 * decision). SubstitutionProposed goes to the outbox (a push to the customer; the restaurant's
 * channel). Another restaurant's order answers 404.
 */
import type { MenuItemId, OrderId } from "./model/Ids.js";
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { ValidationFailed } from "../kernel/Errors.js";
import { withSpan } from "../kernel/Span.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import { Substitutions } from "../../ports/delivery/Substitutions.js";
import { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { notFound, requireUser } from "./Access.js";
import { SubstitutionConflict, SubstitutionNotAllowed } from "./Errors.js";
import { lockSubstitutionWindow } from "./SubstitutionWindow.js";
import { SubstitutionProposed } from "./Events.js";
import { SubstitutionId, substitutionView, type Substitution } from "./model/Substitution.js";

/** What the restaurant proposes. */
export interface SubstitutionProposal {
  readonly lineNo: number;
  readonly replacementItemId: MenuItemId;
  readonly reason: string | null;
}

/** Proposes a substitution on the order's line; answers it (status `proposed`). */
export const proposeSubstitution = (principal: Principal, orderId: OrderId, proposal: SubstitutionProposal) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const orders = yield* OrdersRepository;
    const restaurants = yield* RestaurantsRepository;
    const workflow = yield* orders.findWorkflow(orderId);
    if (workflow === null || !(yield* restaurants.isStaff(workflow.restaurantId, userId))) return yield* Effect.fail(notFound("order"));
    const delivery = yield* (yield* DispatchRepository).findDeliveryByOrder(orderId);
    const beforePickup = delivery === null || delivery.status === "pending" || delivery.status === "assigned";
    if ((workflow.status !== "authorized" && workflow.status !== "accepted") || !beforePickup) {
      return yield* Effect.fail(new SubstitutionNotAllowed({ status: workflow.status, detail: "substitutions are proposed on an authorized or accepted order before pickup" }));
    }
    const trimmed = proposal.reason?.trim() ?? "";
    if (trimmed.length > 500) return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "must be at most 500 characters" }] }));
    const reason = trimmed === "" ? null : trimmed;
    const line = (yield* orders.orderLines(orderId)).find((l) => l.lineNo === proposal.lineNo);
    if (line === undefined) return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "line_no", message: "the order has no such line" }] }));
    const restaurant = yield* restaurants.findRestaurant(workflow.restaurantId);
    const order = yield* orders.findOrder(orderId);
    if (restaurant === null || order === null) return yield* Effect.fail(notFound("order"));
    const replacement = (yield* restaurants.menuItems(restaurant.id, restaurant.menuVersion)).find((item) => item.id === proposal.replacementItemId);
    if (replacement === undefined || !replacement.available || replacement.id === line.itemId) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "item_id", message: "must be another available item of the current menu" }] }));
    }
    const substitution: Substitution = {
      id: SubstitutionId.make(yield* (yield* Ids).next),
      orderId: line.orderId,
      lineNo: line.lineNo,
      originalItemId: line.itemId,
      originalName: line.name,
      replacementItemId: replacement.id,
      replacementName: replacement.name,
      quantity: line.quantity,
      replacementUnitPriceMinor: replacement.priceMinor,
      chargedLineTotalMinor: line.lineTotalMinor,
      reason,
      status: "proposed",
      proposedBy: userId,
      decidedAt: null,
      createdAt: yield* now,
    };
    const event = yield* SubstitutionProposed.make({
      tenant_id: restaurant.id,
      aggregate_id: line.orderId,
      aggregate_version: workflow.version,
      actor_id: userId,
      data: { order_id: line.orderId, restaurant_id: restaurant.id, substitution_id: substitution.id, line_no: line.lineNo, replacement_name: replacement.name },
    });
    const inserted = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // Checked again under the locks: a pickup or a rejection may have committed meanwhile.
        yield* lockSubstitutionWindow(orderId);
        const answer = yield* (yield* Substitutions).insert(substitution);
        if (answer === "inserted") yield* (yield* Outbox).append([event]);
        return answer;
      }),
    );
    if (inserted === "exists") {
      const existing = (yield* (yield* Substitutions).ofOrder(orderId)).find((s) => s.lineNo === line.lineNo);
      return yield* Effect.fail(new SubstitutionConflict({ substitutionId: existing?.id ?? null, detail: `line ${line.lineNo} already has a substitution` }));
    }
    return substitutionView(substitution, order);
  }).pipe(withSpan("delivery.proposeSubstitution"));
