/**
 * Picks the Mailer from the environment: `SMTP_URL` (with `MAIL_FROM`) selects SMTP; otherwise
 * messages are written to `MAIL_DIR` (default `<tmp>/domainkit-mail`), the development adapter.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Mailer } from "../../ports/Mailer.js";
import { makeFolderMailer } from "./FolderMailer.js";
import { makeSmtpMailer } from "./SmtpMailer.js";

/** The mailer the environment asks for. */
export const mailerFromEnv = (env: Readonly<Record<string, string | undefined>>): Mailer => {
  const from = env.MAIL_FROM ?? "domainkit@localhost";
  if (env.SMTP_URL !== undefined && env.SMTP_URL !== "") return makeSmtpMailer({ url: env.SMTP_URL, from });
  return makeFolderMailer({ folder: env.MAIL_DIR ?? join(tmpdir(), "domainkit-mail"), from });
};
