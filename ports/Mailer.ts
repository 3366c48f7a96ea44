/**
 * Outgoing e-mail (shared by every module). Delivery is at least once: callers send from a
 * durable job, so a failure is retried by the job runner, and `messageId` is stable across
 * retries so a receiving system can drop a repeat.
 */
import { Context, Data, Effect } from "effect";

/** One plain-text message to one address. */
export interface MailMessage {
  /** A stable id (e.g. `<notification-id@domainkit>`), the same on every retry. */
  readonly messageId: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** The transport refused or could not be reached; the job retries. */
export class MailDeliveryFailed extends Data.TaggedError("MailDeliveryFailed")<{ readonly detail?: string }> {
  readonly code = "mail_delivery_failed";
  readonly category = "unavailable" as const;
}

/** Sends messages. */
export interface Mailer {
  readonly send: (message: MailMessage) => Effect.Effect<void, MailDeliveryFailed>;
}
export const Mailer = Context.GenericTag<Mailer>("domainkit/Mailer");
