/**
 * Idempotency record store (docs/conventions.md, Idempotency). The kernel core
 * (core/kernel/Idempotency.ts) decides; this port persists. Keys are scoped to the caller.
 */
import { Context, Effect } from "effect";

/** The response replayed for a finished request. */
export interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface IdempotencyRecord {
  readonly scope: string;
  readonly key: string;
  readonly requestHash: string;
  readonly state: "in_progress" | "completed";
  readonly response: StoredResponse | null;
  /** While in progress: the reservation holds until then; after, a retry may take it over. */
  readonly lockedUntil: Date;
  readonly expiresAt: Date;
}

export type ReserveResult =
  | { readonly reserved: true }
  | { readonly reserved: false; readonly existing: IdempotencyRecord };

export interface IdempotencyStore {
  /**
   * Atomically reserves (scope, key) for `requestHash`. Exactly one of any number of concurrent
   * callers gets `reserved: true`. An in-progress record whose lock has expired, or any
   * record past `expiresAt`, is taken over by the caller.
   */
  readonly reserve: (req: {
    readonly scope: string;
    readonly key: string;
    readonly requestHash: string;
    readonly now: Date;
    readonly lockedUntil: Date;
    readonly expiresAt: Date;
  }) => Effect.Effect<ReserveResult>;
  /** Stores the final response of a reserved request. */
  readonly complete: (req: {
    readonly scope: string;
    readonly key: string;
    readonly response: StoredResponse;
  }) => Effect.Effect<void>;
  /** Drops an in-progress reservation (the request failed in a way that must not be replayed). */
  readonly release: (scope: string, key: string) => Effect.Effect<void>;
  /** Deletes records past their expiry; returns how many. */
  readonly purgeExpired: (now: Date) => Effect.Effect<number>;
}
export const IdempotencyStore = Context.GenericTag<IdempotencyStore>("domainkit/IdempotencyStore");
