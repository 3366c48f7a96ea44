/**
 * Picks the Mailer from configuration: an SMTP URL selects SMTP (nodemailer); otherwise messages
 * are written as files into a folder, the development adapter.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Mailer } from "../../ports/Mailer.js";
import { makeFolderMailer } from "./FolderMailer.js";
import { makeSmtpMailer } from "./SmtpMailer.js";

/** Where mail goes: SMTP when `smtpUrl` is set, else files in `folder`. */
export interface MailSettings {
  readonly smtpUrl?: string | undefined;
  readonly from?: string | undefined;
  /** Folder of the development adapter (default `<tmp>/domainkit-mail`). */
  readonly folder?: string | undefined;
}

/** The mailer the settings ask for. */
export const configuredMailer = (settings: MailSettings = {}): Mailer => {
  const from = settings.from ?? "domainkit@localhost";
  if (settings.smtpUrl !== undefined && settings.smtpUrl !== "") return makeSmtpMailer({ url: settings.smtpUrl, from });
  return makeFolderMailer({ folder: settings.folder ?? join(tmpdir(), "domainkit-mail"), from });
};
