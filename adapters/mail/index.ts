/** Mailer adapters: SMTP (nodemailer) and a development folder writer. */
export * from "./SmtpMailer.js";
export * from "./FolderMailer.js";
export * from "./configuredMailer.js";
export * from "./DomainAddressBook.js";
