/** GET /orders/:id/substitutions (the order's customer): the substitutions proposed on the order, by line (one page). */
import type { OrderId } from "./model/Ids.js";
import { Effect } from "effect";
import type { Page } from "../kernel/Page.js";
import { withSpan } from "../kernel/Span.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { Substitutions } from "../../ports/delivery/Substitutions.js";
import type { Principal } from "../../ports/Principal.js";
import { notFound, requireUser } from "./Access.js";
import { substitutionView, type SubstitutionView } from "./model/Substitution.js";

/** The substitutions of the caller's order; another customer's order is NotFound. */
export const listSubstitutions = (principal: Principal, orderId: OrderId) =>
  Effect.gen(function* () {
    const customerId = yield* requireUser(principal);
    const order = yield* (yield* OrdersRepository).findOrder(orderId);
    if (order === null || order.customerId !== customerId) return yield* Effect.fail(notFound("order"));
    const substitutions = yield* (yield* Substitutions).ofOrder(order.id);
    return { data: substitutions.map((s) => substitutionView(s, order)), next_cursor: null } satisfies Page<SubstitutionView>;
  }).pipe(withSpan("delivery.listSubstitutions"));
