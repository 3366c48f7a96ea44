/** UserEpochs over the `user_epochs` table; bump is one atomic upsert. */
import { Effect } from "effect";
import type { UserEpochs } from "../../ports/UserEpochs.js";
import { runQuery, span, toNumber } from "./runQuery.js";
import type { SqlDatabase } from "./SqlDatabase.js";

/** The UserEpochs port. */
export const makeSqlUserEpochs = (db: SqlDatabase): UserEpochs => ({
  current: (userId) =>
    runQuery(db, (ex) => ex.selectFrom("user_epochs").select("epoch").where("user_id", "=", userId).executeTakeFirst()).pipe(
      Effect.map((row) => (row === undefined ? 0 : toNumber(row.epoch))),
      span("UserEpochs.current"),
    ),
  bump: (userId) =>
    runQuery(db, (ex) =>
      ex
        .insertInto("user_epochs")
        .values({ user_id: userId, epoch: 1 })
        .onConflict((oc) => oc.column("user_id").doUpdateSet((eb) => ({ epoch: eb("user_epochs.epoch", "+", 1) })))
        .returning("epoch")
        .executeTakeFirstOrThrow(),
    ).pipe(
      Effect.map((row) => toNumber(row.epoch)),
      span("UserEpochs.bump"),
    ),
});
