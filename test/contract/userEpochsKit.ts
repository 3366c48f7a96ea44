/** Contract kit for the UserEpochs port (token revocation). */
import { Effect } from "effect";
import { UserEpochs } from "../../ports/UserEpochs.js";
import { runCases, warmUp, type KitCase, type SuiteOptions } from "./Kit.js";

/** The ports this kit needs. */
export type UserEpochsKitPorts = UserEpochs;

const bump = (user: string) => Effect.flatMap(UserEpochs, (e) => e.bump(user));
const current = (user: string) => Effect.flatMap(UserEpochs, (e) => e.current(user));
const standing = (user: string) => Effect.flatMap(UserEpochs, (e) => e.standing(user));

/** The cases of the user epochs kit. */
export const userEpochsCases: ReadonlyArray<KitCase<UserEpochsKitPorts>> = [
  {
    name: "user epochs: a user never revoked is at epoch 0",
    run: async (t, run) => t.equal(await run(current("nobody")), 0) as void,
  },
  {
    name: "user epochs: each bump advances the epoch by one and answers it",
    run: async (t, run) => {
      t.equal(await run(bump("u1")), 1);
      t.equal(await run(bump("u1")), 2);
      t.equal(await run(current("u1")), 2);
    },
  },
  {
    name: "user epochs: bumping one user leaves the others alone",
    run: async (t, run) => {
      await run(bump("u1"));
      t.equal(await run(current("u2")), 0);
    },
  },
  {
    name: "user epochs: a user never revoked stands at epoch 0 with no revocation time",
    run: async (t, run) => t.same(await run(standing("nobody")), { epoch: 0, revokedAt: null }) as void,
  },
  {
    name: "user epochs: a bump records when it happened, with the epoch it answered",
    run: async (t, run) => {
      const before = Date.now();
      const epoch = await run(bump("u1"));
      const after = Date.now();
      const { epoch: standingEpoch, revokedAt } = await run(standing("u1"));
      t.equal(standingEpoch, epoch);
      t.ok(revokedAt instanceof Date, "a revocation time");
      // Stored times keep milliseconds on both dialects; allow the clock's rounding.
      t.ok(revokedAt !== null && revokedAt.getTime() >= before - 1 && revokedAt.getTime() <= after + 1, "the time of the bump");
    },
  },
  {
    name: "user epochs: concurrent bumps are never lost",
    run: async (t, run) => {
      await run(warmUp(10, current("u0")));
      const results = await run(Effect.all(Array.from({ length: 10 }, () => bump("u1")), { concurrency: "unbounded" }));
      t.same([...results].sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "each bump got its own epoch");
      t.equal(await run(current("u1")), 10);
    },
  },
];

/** Runs the user epochs kit against an adapter. */
export const userEpochsSuite = (options: SuiteOptions<UserEpochsKitPorts>): Promise<unknown> =>
  runCases(options, userEpochsCases);
