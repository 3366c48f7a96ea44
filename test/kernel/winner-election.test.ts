/** Winner election: of any number of contenders exactly one wins and the others learn who. */
import { Effect, Either, Ref } from "effect";
import fc from "fast-check";
import t from "tap";
import * as Election from "../../core/kernel/WinnerElection.js";
import { breaks, holds, runEither } from "./support/properties.js";

type Claim = (state: Election.ElectionState, contender: string) => Effect.Effect<Election.ElectionState, Election.ClaimTaken>;
type ClaimIn = (election: Ref.Ref<Election.ElectionState>, contender: string) => Effect.Effect<string, Election.ClaimTaken>;

const contender = fc.constantFrom("ann", "bob", "cy", "dee", "eve");

// Sequentially: the first contender wins; every other contender fails ClaimTaken naming the
// first; the winner claiming again still holds it.
const oneWinnerInSequence = (claim: Claim) =>
  fc.property(fc.array(contender, { minLength: 1, maxLength: 12 }), (contenders) => {
    let state = Election.unclaimed;
    const winners = new Set<string>();
    for (const c of contenders) {
      const result = runEither(claim(state, c));
      if (Either.isRight(result)) {
        winners.add(c);
        state = result.right;
      } else if (result.left.winner !== contenders[0]) {
        return false;
      }
      if (Either.isRight(result) !== (c === contenders[0])) return false;
    }
    return winners.size === 1 && state.winner === contenders[0];
  });

// Concurrently: every contender claims at once (after a random number of yields, to shuffle the
// interleaving); exactly one wins, every loser names that winner, and the shared state agrees.
const oneWinnerConcurrently = (claimIn: ClaimIn) =>
  fc.asyncProperty(
    fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 16 }),
    fc.array(fc.nat({ max: 3 }), { minLength: 16, maxLength: 16 }),
    (contenders, yields) =>
      Effect.runPromise(
        Effect.gen(function* () {
          const election = yield* Election.makeElection;
          const results = yield* Effect.all(
            contenders.map((c, i) =>
              Effect.repeatN(Effect.yieldNow(), yields[i] ?? 0).pipe(Effect.zipRight(Effect.either(claimIn(election, c)))),
            ),
            { concurrency: "unbounded" },
          );
          const winners = results.filter(Either.isRight).map((r) => r.right);
          const final = yield* Ref.get(election);
          const winner = winners[0];
          return (
            winners.length === 1 &&
            final.winner === winner &&
            results.every((r) => Either.isRight(r) || r.left.winner === winner)
          );
        }),
      ),
  );

t.test("exactly one contender wins a claim and every loser learns who won", async (t) => {
  await holds(t, oneWinnerInSequence(Election.claim));
});

t.test("mutant: a claim that lets a second contender win is caught", async (t) => {
  const lastWins: Claim = (_state, c) => Effect.succeed({ winner: c });
  await breaks(t, oneWinnerInSequence(lastWins));
});

t.test("exactly one of many concurrent contenders wins the shared claim", async (t) => {
  await holds(t, oneWinnerConcurrently(Election.claimIn));
});

t.test("mutant: a read-then-write claim that is not atomic lets several contenders win", async (t) => {
  const readThenWrite: ClaimIn = (election, c) =>
    Effect.gen(function* () {
      const state = yield* Ref.get(election);
      yield* Effect.yieldNow(); // the gap between the check and the write where a race happens
      if (state.winner !== null && state.winner !== c) return yield* Effect.fail(new Election.ClaimTaken({ winner: state.winner }));
      yield* Ref.set(election, { winner: c });
      return c;
    });
  await breaks(t, oneWinnerConcurrently(readThenWrite));
});

t.test("a losing claim fails already_claimed (409) naming the winner", async (t) => {
  const won = Effect.runSync(Election.claim(Election.unclaimed, "ann"));
  const lost = runEither(Election.claim(won, "bob"));
  t.ok(Either.isLeft(lost));
  if (Either.isLeft(lost)) {
    t.equal(lost.left.winner, "ann");
    t.equal(lost.left.code, "already_claimed");
    t.equal(lost.left.category, "conflict");
  }
  t.same(runEither(Election.claim(won, "ann")), Either.right({ winner: "ann" }));
});
