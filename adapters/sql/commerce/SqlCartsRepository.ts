/** The CartsRepository port over `shop_carts` and `shop_cart_lines`. */
import { Effect } from "effect";
import { Cart, CartLine } from "../../../core/commerce/model/Cart.js";
import type { CartsRepository } from "../../../ports/commerce/CartsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the cart repository over `db`. */
export const makeSqlCartsRepository = (db: SqlDatabase): CartsRepository => {
  const f = featuresFor(db);
  const carts = rowCodec(Cart, f);
  const lines = rowCodec(CartLine, f);
  return {
    insertCart: (cart) => runQuery(db, (ex) => ex.insertInto("shop_carts").values(carts.toRow(cart)).execute()).pipe(Effect.asVoid),
    findCart: (id) =>
      runQuery(db, (ex) => ex.selectFrom("shop_carts").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : carts.fromRow(r))),
      ),
    findCartByTokenHash: (tokenHash) =>
      runQuery(db, (ex) => ex.selectFrom("shop_carts").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : carts.fromRow(r))),
      ),
    putLine: (line) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("shop_cart_lines")
          .values(lines.toRow(line))
          .onConflict((oc) => oc.columns(["cart_id", "variant_id"]).doUpdateSet({ quantity: line.quantity }))
          .execute(),
      ).pipe(Effect.asVoid),
    removeLine: (cartId, variantId) =>
      runQuery(db, (ex) => ex.deleteFrom("shop_cart_lines").where("cart_id", "=", cartId).where("variant_id", "=", variantId).execute()).pipe(
        Effect.asVoid,
      ),
    linesOf: (cartId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("shop_cart_lines").selectAll().where("cart_id", "=", cartId).orderBy("added_at").orderBy("variant_id").execute(),
      ).pipe(Effect.map((rows) => rows.map(lines.fromRow))),
    markCheckedOut: (cartId, now) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("shop_carts")
          .set((eb) => ({ status: "checked_out", version: eb("version", "+", 1), updated_at: f.timeToDb(now) }))
          .where("id", "=", cartId)
          .where("status", "=", "open")
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numUpdatedRows) > 0)),
    deleteStale: (status, before, limit) =>
      Effect.gen(function* () {
        const ids = yield* runQuery(db, (ex) =>
          ex
            .selectFrom("shop_carts")
            .select("id")
            .where("status", "=", status)
            .where("updated_at", "<", f.timeToDb(before))
            .orderBy("updated_at")
            .limit(limit)
            .execute(),
        );
        if (ids.length === 0) return 0;
        const list = ids.map((r) => String(r.id));
        yield* runQuery(db, (ex) => ex.deleteFrom("shop_cart_lines").where("cart_id", "in", list).execute());
        const deleted = yield* runQuery(db, (ex) => ex.deleteFrom("shop_carts").where("id", "in", list).executeTakeFirst());
        return toNumber(deleted.numDeletedRows);
      }).pipe(withSpan("CartsRepository.deleteStale")),
    touch: (cartId, now) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("shop_carts")
          .set((eb) => ({ version: eb("version", "+", 1), updated_at: f.timeToDb(now) }))
          .where("id", "=", cartId)
          .execute(),
      ).pipe(Effect.asVoid),
  };
};
