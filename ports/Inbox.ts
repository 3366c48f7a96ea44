/** Consumer inbox: each consumer processes an event id at most once, so redelivery changes nothing. */
import { Context, Effect } from "effect";

export interface Inbox {
  /**
   * Records that `consumer` handled `eventId`. Returns true the first time and false on every
   * later call. Call inside the consumer's transaction so the record commits with its effects.
   */
  readonly claim: (consumer: string, eventId: string) => Effect.Effect<boolean>;
  /**
   * Claims several events for `consumer` in one round trip: answers the ids claimed for the first
   * time (the others were handled before). Same rule as `claim`: call it inside the consumer's
   * transaction. Optional: without it the relay claims event by event.
   */
  readonly claimMany?: (consumer: string, eventIds: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>;
  /**
   * Retention: deletes up to `limit` records made before `before` whose event the outbox no
   * longer holds for delivery (pending or dead), and answers how many. Such an event is never
   * delivered again, so its records have nothing left to dedupe.
   */
  readonly purgeProcessed: (before: Date, limit: number) => Effect.Effect<number>;
}
export const Inbox = Context.GenericTag<Inbox>("domainkit/Inbox");
