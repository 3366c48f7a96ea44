/**
 * POST /orders/:id/substitutions/:substitution_id/accept and /refuse (the order's customer):
 * decides a proposed substitution once, before pickup (SubstitutionWindow.ts: 409
 * substitution_not_allowed after pickup, delivery or rejection). Repeating the same decision
 * answers the same substitution; the other decision afterwards is 409 substitution_conflict. Either way the
 * line's price is unchanged (the authorization is never exceeded): accepted, the replacement is
 * supplied instead; refused, the restaurant supplies the original or rejects the order (which
 * voids the authorization). Another customer's order or substitution answers 404.
 */
import type { OrderId, SubstitutionId } from "./model/Ids.js";
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { withSpan } from "../kernel/Span.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { Substitutions } from "../../ports/delivery/Substitutions.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { notFound, requireUser } from "./Access.js";
import { SubstitutionConflict } from "./Errors.js";
import { lockSubstitutionWindow } from "./SubstitutionWindow.js";
import { substitutionView, type Substitution } from "./model/Substitution.js";

/** Accepts or refuses the substitution; answers it decided. */
export const decideSubstitution = (principal: Principal, orderId: OrderId, substitutionId: SubstitutionId, decision: "accepted" | "refused") =>
  Effect.gen(function* () {
    const customerId = yield* requireUser(principal);
    const order = yield* (yield* OrdersRepository).findOrder(orderId);
    const substitutions = yield* Substitutions;
    const substitution = yield* substitutions.find(substitutionId);
    if (order === null || order.customerId !== customerId || substitution === null || substitution.orderId !== order.id) {
      return yield* Effect.fail(notFound("substitution"));
    }
    if (substitution.status === decision) return substitutionView(substitution, order);
    const at = yield* now;
    const decided = yield* (yield* Transactions).run(
      Effect.zipRight(lockSubstitutionWindow(order.id), substitutions.decide(substitution.id, decision, at)),
    );
    if (!decided) {
      const current = yield* substitutions.find(substitution.id);
      if (current !== null && current.status === decision) return substitutionView(current, order);
      return yield* Effect.fail(new SubstitutionConflict({ substitutionId: substitution.id, detail: `the substitution is already ${current?.status ?? "gone"}` }));
    }
    return substitutionView({ ...substitution, status: decision, decidedAt: at } satisfies Substitution, order);
  }).pipe(withSpan("delivery.decideSubstitution"));
