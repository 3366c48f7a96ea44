/**
 * Where a user's notification e-mail goes. Users are token subjects, so the embedding host owns
 * the directory; null means "no e-mail for this user" and the delivery job ends quietly.
 */
import { Context, Effect } from "effect";

/** The address lookup. */
export interface NotificationsAddressBook {
  readonly addressOf: (userId: string) => Effect.Effect<string | null>;
}
export const NotificationsAddressBook = Context.GenericTag<NotificationsAddressBook>("domainkit/projects/NotificationsAddressBook");
