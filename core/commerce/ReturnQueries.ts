/**
 * Query: a return authorization, for whoever may see its order (its customer, the guest holding
 * the cart token, or support staff of the store), in its order's currency; anyone else gets NotFound.
 */
import { Effect } from "effect";
import { NotFound } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { loadVisibleOrder } from "./Access.js";
import { orderActorOf } from "./Callers.js";
import { withSpan } from "../kernel/Span.js";
import type { ReturnId } from "./model/Ids.js";
import { returnView } from "./model/Return.js";

export const getReturn = (principal: Principal, returnId: ReturnId) =>
  Effect.gen(function* () {
    const ret = yield* (yield* OrdersRepository).findReturn(returnId);
    if (ret === null) return yield* Effect.fail(new NotFound({ resource: "return" }));
    const order = yield* loadVisibleOrder(yield* orderActorOf(principal, ret.orderId, "support"), ret.orderId);
    return returnView(ret, order);
  }).pipe(withSpan("commerce.getReturn"));
