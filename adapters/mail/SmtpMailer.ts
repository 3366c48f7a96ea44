/**
 * The Mailer port over SMTP with nodemailer (one pooled transport per mailer). nodemailer is loaded
 * and the transport made at the first message (docs/decisions.md, "Optional SDKs load on first use").
 */
import { Effect } from "effect";
import type { Transporter } from "nodemailer";
import { MailDeliveryFailed, type Mailer } from "../../ports/Mailer.js";
import { withSpan } from "../../core/kernel/Span.js";

/** Options of the SMTP mailer. */
export interface SmtpMailerOptions {
  /** `smtp://user:pass@host:port` or `smtps://...`; never logged (it may carry a password). */
  readonly url: string;
  /** The From address. */
  readonly from: string;
}

/** An SMTP mailer plus `close` for the pooled connections. */
export interface SmtpMailer extends Mailer {
  readonly close: () => void;
}

/** Builds the SMTP mailer. */
export const makeSmtpMailer = (options: SmtpMailerOptions): SmtpMailer => {
  let transport: Promise<Transporter> | undefined;
  const transportOf = (): Promise<Transporter> => (transport ??= import("nodemailer").then((m) => m.default.createTransport(options.url)));
  return {
    send: (message) =>
      Effect.tryPromise({
        try: async () =>
          (await transportOf()).sendMail({
            from: options.from,
            to: message.to,
            subject: message.subject,
            text: message.text,
            messageId: message.messageId,
          }),
        // Only the transport's own message: it never contains the URL's credentials.
        catch: (error) =>
          new MailDeliveryFailed({ detail: error instanceof Error ? error.message.slice(0, 300) : "SMTP delivery failed" }),
      }).pipe(Effect.asVoid, withSpan("SmtpMailer.send")),
    close: () => void transport?.then((made) => made.close(), () => undefined),
  };
};
