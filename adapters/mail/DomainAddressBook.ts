/**
 * The development NotificationsAddressBook: `<user id>@<domain>` (default `users.invalid`, a
 * reserved name that never delivers). Embedding hosts bind their own user directory instead.
 */
import { Effect } from "effect";
import type { NotificationsAddressBook } from "../../ports/projects/NotificationsAddressBook.js";

/** Builds the address book. */
export const makeDomainAddressBook = (domain = "users.invalid"): NotificationsAddressBook => ({
  addressOf: (userId) => Effect.succeed(`${userId}@${domain}`),
});
