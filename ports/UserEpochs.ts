/**
 * Token revocation port: each user has an epoch; a token carrying an older epoch is rejected
 * at once, and live realtime connections of that user are closed.
 */
import { Context, Effect } from "effect";

export interface UserEpochs {
  /** The user's current epoch (0 for a user never revoked). */
  readonly current: (userId: string) => Effect.Effect<number>;
  /** Advances the user's epoch and returns the new value: every older token stops working. */
  readonly bump: (userId: string) => Effect.Effect<number>;
}
export const UserEpochs = Context.GenericTag<UserEpochs>("domainkit/UserEpochs");
