/**
 * Push notifications to the delivery module's users' devices (spec: background work, push
 * notifications). `id` is stable per event and recipient, so a provider that deduplicates sees
 * a retried job as the same push. A failure is retried by the push job with backoff.
 */
import { Context, type Effect } from "effect";

/** One push to one user. Never carries a precise position or an address. */
export interface Push {
  readonly id: string;
  readonly recipientUserId: string;
  readonly kind: "order_placed" | "order_accepted" | "order_cancelled" | "order_rejected" | "courier_offered" | "courier_assigned" | "delivery_completed" | "substitution_proposed" | "delivery_cancelled" | "order_refunded";
  readonly title: string;
  readonly body: string;
  readonly data: Readonly<Record<string, string>>;
}

export interface PushNotifier {
  readonly send: (push: Push) => Effect.Effect<void, unknown>;
}
export const PushNotifier = Context.GenericTag<PushNotifier>("domainkit/delivery/PushNotifier");
