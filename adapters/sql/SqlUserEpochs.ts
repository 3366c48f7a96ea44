/** UserEpochs over the `user_epochs` table; bump is one atomic upsert. */
import { Clock, Effect } from "effect";
import type { UserEpochs } from "../../ports/UserEpochs.js";
import { compiledOnce, runStatement, span, toNumber } from "./runQuery.js";
import type { SqlDatabase } from "./SqlDatabase.js";

/** The UserEpochs port. */
export const makeSqlUserEpochs = (db: SqlDatabase): UserEpochs => {
  // Read on every authenticated request: compiled once (the read itself is never cached).
  const select = compiledOnce<{ userId: string }>((ex, p) => ex.selectFrom("user_epochs").select("epoch").where("user_id", "=", p("userId")));
  // Read on every request of a token without an epoch claim (an identity provider's).
  const selectStanding = compiledOnce<{ userId: string }>((ex, p) =>
    ex.selectFrom("user_epochs").select(["epoch", "revoked_at"]).where("user_id", "=", p("userId")),
  );
  // Every session revocation bumps its user's epoch: compiled once too.
  const bumpEpoch = compiledOnce<{ userId: string; at: unknown }>((ex, p) =>
    ex
      .insertInto("user_epochs")
      .values({ user_id: p("userId"), epoch: 1, revoked_at: p("at") })
      .onConflict((oc) => oc.column("user_id").doUpdateSet((eb) => ({ epoch: eb("user_epochs.epoch", "+", 1), revoked_at: p("at") })))
      .returning("epoch"),
  );
  const f = db.features;
  return {
  current: (userId) =>
    runStatement(db, select, { userId }).pipe(
      Effect.map(({ rows }) => (rows[0] === undefined ? 0 : toNumber(rows[0].epoch))),
      span("UserEpochs.current"),
    ),
  standing: (userId) =>
    runStatement(db, selectStanding, { userId }).pipe(
      Effect.map(({ rows: [row] }) =>
        row === undefined || row.revoked_at === null
          ? { epoch: row === undefined ? 0 : toNumber(row.epoch), revokedAt: null }
          : { epoch: toNumber(row.epoch), revokedAt: f.timeFromDb(row.revoked_at) },
      ),
      span("UserEpochs.standing"),
    ),
  bump: (userId) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => runStatement(db, bumpEpoch, { userId, at: f.timeToDb(new Date(now)) })).pipe(
      Effect.flatMap(({ rows: [row] }) =>
        row === undefined ? Effect.dieMessage(`UserEpochs.bump: no epoch returned for ${userId}`) : Effect.succeed(toNumber(row.epoch)),
      ),
      span("UserEpochs.bump"),
    ),
};
};
