/**
 * The realtime ChannelLog over `channel_heads` and `channel_messages`. Appending increments the
 * channel's head row and inserts the message in one transaction; the head row's lock makes
 * appenders of one channel queue up, so offsets are gapless and commit in offset order.
 */
import { Clock, Effect } from "effect";
import { sql } from "kysely";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import type { ChannelLog, ChannelMessage } from "../../ports/Realtime.js";
import type { Transactions } from "../../ports/Transactions.js";
import type { DialectFeatures } from "./DialectFeatures.js";
import { eventDataScrubSql } from "./SqlOutbox.js";
import { compiledOnce, runQuery, runStatement, sendEach, sendStatement, span, toNumber } from "./runQuery.js";
import type { SqlDatabase } from "./SqlDatabase.js";

/** The ChannelLog port. */
export const makeSqlChannelLog = (db: SqlDatabase, f: DialectFeatures, tx: Transactions): ChannelLog => {
  // The hot statements (every realtime event, every subscriber wake-up) are compiled once.
  const bumpHead = compiledOnce<{ channel: string }>((ex, p) =>
    ex
      .insertInto("channel_heads")
      .values({ channel: p("channel"), last_offset: 1 })
      .onConflict((oc) => oc.column("channel").doUpdateSet((eb) => ({ last_offset: eb("channel_heads.last_offset", "+", 1) })))
      .returning("last_offset"),
  );
  const bumpHeadBy = compiledOnce<{ channel: string; count: number }>((ex, p) =>
    ex
      .insertInto("channel_heads")
      .values({ channel: p("channel"), last_offset: p("count") })
      .onConflict((oc) => oc.column("channel").doUpdateSet((eb) => ({ last_offset: eb("channel_heads.last_offset", "+", p("count")) })))
      .returning("last_offset"),
  );
  const insertMessage = compiledOnce<{ channel: string; offset: number; event: unknown; at: unknown }>((ex, p) =>
    ex.insertInto("channel_messages").values({ channel: p("channel"), offset: p("offset"), event: p("event"), created_at: p("at") }),
  );
  const selectHead = compiledOnce<{ channel: string }>((ex, p) =>
    ex.selectFrom("channel_heads").select("last_offset").where("channel", "=", p("channel")),
  );
  const selectSince = compiledOnce<{ channel: string; since: number; limit: number }>((ex, p) =>
    ex
      .selectFrom("channel_messages")
      .selectAll()
      .where("channel", "=", p("channel"))
      .where("offset", ">", p("since"))
      .orderBy("offset")
      .limit(p("limit")),
  );
  const headOf = async (ex: Parameters<typeof selectHead>[0], channel: string): Promise<number> => {
    const { rows } = await selectHead(ex, { channel });
    return rows[0] === undefined ? 0 : toNumber(rows[0].last_offset);
  };
  return {
    append: (channel, event) =>
      Effect.flatMap(Clock.currentTimeMillis, (millis) =>
        tx.run(
          Effect.gen(function* () {
            const {
              rows: [head],
            } = yield* runStatement(db, bumpHead, { channel });
            if (head === undefined) return yield* Effect.dieMessage(`ChannelLog.append: no head returned for ${channel}`);
            const offset = toNumber(head.last_offset);
            // Nobody reads the insert's answer: on Postgres it goes out with the COMMIT.
            yield* sendStatement(db, insertMessage, { channel, offset, event: f.jsonToDb(event), at: f.timeToDb(new Date(millis)) });
            return { channel, offset, event } satisfies ChannelMessage;
          }),
        ),
      ).pipe(span("ChannelLog.append")),
    appendMany: (channel, events) =>
      events.length === 0
        ? Effect.succeed([])
        : Effect.flatMap(Clock.currentTimeMillis, (millis) =>
            tx.run(
              Effect.gen(function* () {
                const count = events.length;
                const {
                  rows: [head],
                } = yield* runStatement(db, bumpHeadBy, { channel, count });
                if (head === undefined) return yield* Effect.dieMessage(`ChannelLog.appendMany: no head returned for ${channel}`);
                // The head row stays locked until commit, so these offsets are this transaction's alone.
                const first = toNumber(head.last_offset) - count + 1;
                const at = f.timeToDb(new Date(millis));
                // A row per compiled statement, unanswered (pipelined on Postgres), instead of a multi-row insert built per call.
                yield* sendEach(
                  db,
                  insertMessage,
                  events.map((event, i) => ({ channel, offset: first + i, event: f.jsonToDb(event), at })),
                );
                return events.map((event, i): ChannelMessage => ({ channel, offset: first + i, event }));
              }),
            ),
          ).pipe(span("ChannelLog.appendMany")),
    readSince: (channel, since, limit) =>
      runQuery(db, async (ex) => {
        const last = await headOf(ex, channel);
        const { rows } = await selectSince(ex, { channel, since, limit });
        const messages = rows.map(
          (row): ChannelMessage => ({ channel, offset: toNumber(row.offset), event: f.jsonFromDb(row.event) as EventEnvelope }),
        );
        // Resync when the next offset the client needs is gone, or the client claims an offset
        // this log never issued (e.g. the database was reset).
        const missingNext = last > since && (messages.length === 0 || messages[0]!.offset !== since + 1);
        return { messages, resync: missingNext || since > last };
      }).pipe(span("ChannelLog.readSince")),
    head: (channel) => runQuery(db, (ex) => headOf(ex, channel)).pipe(span("ChannelLog.head")),
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
    scrubBefore: (scrub, before, limit) =>
      Effect.suspend(() => {
        const pieces = eventDataScrubSql(f, "event", scrub);
        return runQuery(db, (ex) =>
          ex
            .updateTable("channel_messages")
            .set({ event: pieces.scrubbed })
            .where(
              f.keyInBatch(
                f.rowLocator,
                // Along channel_messages_created; the key has two columns, so rows are located.
                ex
                  .selectFrom("channel_messages")
                  .select(sql.ref(f.rowLocator).as("locator"))
                  .where("created_at", "<", f.timeToDb(before))
                  .where(pieces.ofType)
                  .where(pieces.holdsFields)
                  .orderBy("created_at")
                  .limit(limit),
              ),
            )
            .executeTakeFirst(),
        );
      }).pipe(
        Effect.map((result) => toNumber(result.numUpdatedRows)),
        span("ChannelLog.scrubBefore"),
      ),
  };
};
