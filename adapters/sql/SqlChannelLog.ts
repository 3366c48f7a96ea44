/**
 * The realtime ChannelLog over `channel_heads` and `channel_messages`. Appending increments the
 * channel's head row and inserts the message in one transaction; the head row's lock makes
 * appenders of one channel queue up, so offsets are gapless and commit in offset order.
 */
import { Clock, Effect } from "effect";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import type { ChannelLog, ChannelMessage } from "../../ports/Realtime.js";
import type { Transactions } from "../../ports/Transactions.js";
import type { DialectFeatures } from "./DialectFeatures.js";
import { runQuery, span, toNumber } from "./runQuery.js";
import type { SqlDatabase } from "./SqlDatabase.js";

/** The ChannelLog port. */
export const makeSqlChannelLog = (db: SqlDatabase, f: DialectFeatures, tx: Transactions): ChannelLog => ({
  append: (channel, event) =>
    Effect.flatMap(Clock.currentTimeMillis, (millis) =>
      tx.run(
        runQuery(db, async (ex) => {
          const head = await ex
            .insertInto("channel_heads")
            .values({ channel, last_offset: 1 })
            .onConflict((oc) =>
              oc.column("channel").doUpdateSet((eb) => ({ last_offset: eb("channel_heads.last_offset", "+", 1) })),
            )
            .returning("last_offset")
            .executeTakeFirstOrThrow();
          const offset = toNumber(head.last_offset);
          await ex
            .insertInto("channel_messages")
            .values({ channel, offset, event: f.jsonToDb(event), created_at: f.timeToDb(new Date(millis)) })
            .execute();
          return { channel, offset, event } satisfies ChannelMessage;
        }),
      ),
    ).pipe(span("ChannelLog.append")),
  readSince: (channel, since, limit) =>
    runQuery(db, async (ex) => {
      const head = await ex.selectFrom("channel_heads").select("last_offset").where("channel", "=", channel).executeTakeFirst();
      const last = head === undefined ? 0 : toNumber(head.last_offset);
      const rows = await ex
        .selectFrom("channel_messages")
        .selectAll()
        .where("channel", "=", channel)
        .where("offset", ">", since)
        .orderBy("offset")
        .limit(limit)
        .execute();
      const messages = rows.map(
        (row): ChannelMessage => ({ channel, offset: toNumber(row.offset), event: f.jsonFromDb(row.event) as EventEnvelope }),
      );
      // Resync when the next offset the client needs is gone, or the client claims an offset
      // this log never issued (e.g. the database was reset).
      const missingNext = last > since && (messages.length === 0 || messages[0]!.offset !== since + 1);
      return { messages, resync: missingNext || since > last };
    }).pipe(span("ChannelLog.readSince")),
  head: (channel) =>
    runQuery(db, (ex) =>
      ex.selectFrom("channel_heads").select("last_offset").where("channel", "=", channel).executeTakeFirst(),
    ).pipe(
      Effect.map((row) => (row === undefined ? 0 : toNumber(row.last_offset))),
      span("ChannelLog.head"),
    ),
  trim: (before) =>
    runQuery(db, (ex) =>
      ex
        .deleteFrom("channel_messages")
        .where("created_at", "<", f.timeToDb(before))
        .where((eb) =>
          eb(
            "offset",
            "<",
            eb.selectFrom("channel_heads").select("channel_heads.last_offset").whereRef("channel_heads.channel", "=", "channel_messages.channel"),
          ),
        )
        .executeTakeFirst(),
    ).pipe(
      Effect.map((result) => toNumber(result.numDeletedRows)),
      span("ChannelLog.trim"),
    ),
});
