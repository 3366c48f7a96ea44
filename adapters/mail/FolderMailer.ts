/**
 * The development Mailer: writes each message as one `.eml` file into a folder, named after its
 * message id, so a retried delivery overwrites the same file instead of adding a second one.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Effect } from "effect";
import { MailDeliveryFailed, type Mailer, type MailMessage } from "../../ports/Mailer.js";
import { withSpan } from "../../core/kernel/Span.js";

/** The file name of a message: its id with anything outside [A-Za-z0-9._-] replaced. */
export const mailFileName = (message: MailMessage): string => `${message.messageId.replace(/[^A-Za-z0-9._-]/g, "_")}.eml`;

const render = (from: string, m: MailMessage): string =>
  [`Message-ID: ${m.messageId}`, `From: ${from}`, `To: ${m.to}`, `Subject: ${m.subject}`, "Content-Type: text/plain; charset=utf-8", "", m.text, ""].join(
    "\r\n",
  );

/** Builds a mailer writing into `folder` (created when a write finds it missing, so only then). */
export const makeFolderMailer = (options: { readonly folder: string; readonly from?: string }): Mailer => ({
  send: (message) =>
    Effect.tryPromise({
      try: async () => {
        const file = join(options.folder, mailFileName(message));
        const text = render(options.from ?? "domainkit@localhost", message);
        try {
          await writeFile(file, text);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
          await mkdir(options.folder, { recursive: true });
          await writeFile(file, text);
        }
      },
      catch: (error) => new MailDeliveryFailed({ detail: error instanceof Error ? error.message.slice(0, 300) : "write failed" }),
    }).pipe(withSpan("FolderMailer.send")),
});
