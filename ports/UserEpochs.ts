/**
 * Token revocation port: each user has an epoch; a token carrying an older epoch is rejected
 * at once, and live realtime connections of that user are closed. A token that carries no epoch
 * (one an identity provider issued) is judged by when it was issued: before the user's latest
 * revocation, it is rejected.
 */
import { Context, Effect } from "effect";

/** Where a user stands: the current epoch and when it was last advanced. */
export interface UserStanding {
  /** 0 for a user never revoked. */
  readonly epoch: number;
  /** When the latest revocation happened; null for a user never revoked. */
  readonly revokedAt: Date | null;
}

export interface UserEpochs {
  /** The user's current epoch (0 for a user never revoked). */
  readonly current: (userId: string) => Effect.Effect<number>;
  /** The user's epoch and latest revocation time, in one read. */
  readonly standing: (userId: string) => Effect.Effect<UserStanding>;
  /** Advances the user's epoch, records when, and returns the new value: every older token stops working. */
  readonly bump: (userId: string) => Effect.Effect<number>;
}
export const UserEpochs = Context.GenericTag<UserEpochs>("domainkit/UserEpochs");
