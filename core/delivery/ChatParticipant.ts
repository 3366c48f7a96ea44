/**
 * Who may chat on a delivery (spec: masked customer–courier chat): its customer and its assigned
 * courier. Anyone else, like an unknown delivery, gets NotFound. Shared by sending and reading.
 */
import type { DeliveryId } from "./model/Ids.js";
import { Effect } from "effect";
import type { NotFound, Forbidden } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { notFound, requireUser } from "./Access.js";
import type { ChatSenderRole } from "./model/ChatMessage.js";
import type { Delivery } from "./model/Delivery.js";

/** The delivery and the caller's role on it. */
export interface ChatSeat {
  readonly delivery: Delivery;
  readonly userId: string;
  readonly role: ChatSenderRole;
}

/** True while the delivery has an assigned courier and is not finished: the only time chat is open. */
export const chatOpen = (delivery: Delivery): boolean => delivery.courierId !== null && (delivery.status === "assigned" || delivery.status === "picked_up");

/** The caller's seat on the delivery's chat; NotFound for anyone but its customer and assigned courier. */
export const chatSeat = (principal: Principal, deliveryId: DeliveryId): Effect.Effect<ChatSeat, NotFound | Forbidden, DispatchRepository> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const dispatch = yield* DispatchRepository;
    const delivery = yield* dispatch.findDelivery(deliveryId);
    if (delivery === null) return yield* Effect.fail(notFound("delivery"));
    if (delivery.customerId === userId) return { delivery, userId, role: "customer" as const };
    if (delivery.courierId !== null) {
      const courier = yield* dispatch.findCourierByUser(userId);
      if (courier !== null && courier.id === delivery.courierId) return { delivery, userId, role: "courier" as const };
    }
    return yield* Effect.fail(notFound("delivery"));
  });
