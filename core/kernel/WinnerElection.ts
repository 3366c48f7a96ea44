/**
 * Winner election: a conditional claim where exactly one contender wins (a courier accepting an
 * offer, a worker taking a job) and every other contender learns who did. In storage this is
 * `UPDATE ... SET winner = $me WHERE winner IS NULL`; here it is the same rule on a value, and on
 * a `Ref` whose atomic `modify` plays the part of the conditional update under concurrency.
 */
import { Data, Effect, Ref } from "effect";

/** The claim is already held by `winner` (409 already_claimed). */
export class ClaimTaken extends Data.TaggedError("ClaimTaken")<{
  readonly winner: string;
  readonly detail?: string;
}> {
  readonly code = "already_claimed";
  readonly category = "conflict" as const;
}

/** Who holds the claim, if anyone. */
export interface ElectionState {
  readonly winner: string | null;
}

/** No one has claimed yet. */
export const unclaimed: ElectionState = { winner: null };

/** The outcome of one claim on a state: the new state, or who won instead. */
export type ClaimOutcome =
  | { readonly won: true; readonly state: ElectionState }
  | { readonly won: false; readonly winner: string };

/** The pure decision: an unclaimed state goes to `contender`; the winner claiming again still wins. */
export const decideClaim = (state: ElectionState, contender: string): ClaimOutcome =>
  state.winner === null
    ? { won: true, state: { winner: contender } }
    : state.winner === contender
      ? { won: true, state }
      : { won: false, winner: state.winner };

const taken = (winner: string, contender: string) =>
  new ClaimTaken({ winner, detail: `claimed by ${winner}; ${contender} lost` });

/** Claims `state` for `contender`; losers fail ClaimTaken naming the winner. Retrying as the winner succeeds. */
export const claim = (state: ElectionState, contender: string): Effect.Effect<ElectionState, ClaimTaken> => {
  const outcome = decideClaim(state, contender);
  return outcome.won ? Effect.succeed(outcome.state) : Effect.fail(taken(outcome.winner, contender));
};

/** A shared election for concurrent contenders. */
export const makeElection: Effect.Effect<Ref.Ref<ElectionState>> = Ref.make(unclaimed);

/** Claims the shared election atomically: of any number of concurrent contenders exactly one wins. */
export const claimIn = (election: Ref.Ref<ElectionState>, contender: string): Effect.Effect<string, ClaimTaken> =>
  Effect.flatMap(
    Ref.modify(election, (state): [ClaimOutcome, ElectionState] => {
      const outcome = decideClaim(state, contender);
      return [outcome, outcome.won ? outcome.state : state];
    }),
    (outcome) => (outcome.won ? Effect.succeed(contender) : Effect.fail(taken(outcome.winner, contender))),
  );
