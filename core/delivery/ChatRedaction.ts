/**
 * What the chat relay removes from a message before anyone sees or stores it (spec: masked
 * customer–courier chat; no phone numbers or addresses exposed): e-mail-like strings, and digit
 * runs of five or more digits, counted across the separators people type inside phone numbers
 * (spaces, dots, dashes, slashes, parentheses, a leading +). Short numbers stay ("2 min",
 * "door 3", "4th floor"). Street addresses in free text cannot be recognised reliably; the relay
 * never adds one, and the courier reads the drop-off only from the assigned job.
 */

const emailLike = /[^\s@]+@[^\s@]+\.[^\s@]+/g;
const digitRun = /\+?\(?\d(?:[\s().\-/]*\d){4,}\)?/g;

/** The placeholder of a removed e-mail address. */
export const redactedEmail = "[e-mail removed]";
/** The placeholder of a removed number. */
export const redactedNumber = "[number removed]";

/** `text` with e-mail addresses and long digit runs replaced by placeholders. */
export const redactChat = (text: string): string => text.replace(emailLike, redactedEmail).replace(digitRun, redactedNumber);
