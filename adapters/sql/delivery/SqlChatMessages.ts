/** The ChatMessages port over dl_chat_messages and support's reads of them (dl_chat_access_log). */
import { Effect } from "effect";
import { ChatMessage } from "../../../core/delivery/model/ChatMessage.js";
import type { ChatMessages } from "../../../ports/delivery/ChatMessages.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, runQuery, runStatement, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the chat messages over `db`. */
export const makeSqlChatMessages = (db: SqlDatabase): ChatMessages => {
  const f = featuresFor(db);
  const rows = rowCodec(ChatMessage, f);
  // The whole record's insert, compiled once.
  const insertMessage = compiledInsert("dl_chat_messages", rows);
  const insertSupportRead = compiledOnce<{ id: string; deliveryId: string; viewerId: string; at: unknown }>((ex, p) =>
    ex.insertInto("dl_chat_access_log").values({ id: p("id"), delivery_id: p("deliveryId"), viewer_id: p("viewerId"), at: p("at") }),
  );
  return {
    insert: (message) => runStatement(db, insertMessage, message).pipe(Effect.asVoid, withSpan("ChatMessages.insert")),
    list: ({ deliveryId, afterId, limit, sentSince = null, courierSenderId = null }) =>
      runQuery(db, (ex) => {
        const all = ex.selectFrom("dl_chat_messages").selectAll().where("delivery_id", "=", deliveryId);
        const since = sentSince === null ? all : all.where("sent_at", ">=", f.timeToDb(sentSince));
        const query = courierSenderId === null ? since : since.where((eb) => eb.or([eb("sender_role", "=", "customer"), eb("sender_id", "=", courierSenderId)]));
        return (afterId === null ? query : query.where("id", ">", afterId)).orderBy("id").limit(limit).execute();
      }).pipe(
        Effect.map((list) => list.map(rows.fromRow)),
        withSpan("ChatMessages.list"),
      ),
    recordSupportRead: (read) =>
      runStatement(db, insertSupportRead, { ...read, at: f.timeToDb(read.at) }).pipe(Effect.asVoid, withSpan("ChatMessages.recordSupportRead")),
    deleteEndedBefore: (endedBefore) =>
      runQuery(db, (ex) =>
        ex
          .deleteFrom("dl_chat_messages")
          .where("delivery_id", "in",
            ex.selectFrom("dl_deliveries").select("id").where("status", "in", ["delivered", "cancelled"]).where("updated_at", "<", f.timeToDb(endedBefore)),
          )
          .executeTakeFirst(),
      ).pipe(
        Effect.map((result) => toNumber(result.numDeletedRows)),
        withSpan("ChatMessages.deleteEndedBefore"),
      ),
  };
};
