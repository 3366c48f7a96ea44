/** The CartsRepository port over `shop_carts` and `shop_cart_lines`. */
import { Effect } from "effect";
import { Cart, CartLine } from "../../../core/commerce/model/Cart.js";
import type { CartsRepository } from "../../../ports/commerce/CartsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, runQuery, runStatement, sendStatement, slotsOf, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the cart repository over `db`. */
export const makeSqlCartsRepository = (db: SqlDatabase): CartsRepository => {
  const f = featuresFor(db);
  const carts = rowCodec(Cart, f);
  const lines = rowCodec(CartLine, f);
  // The statements of the cart requests and of checkout, compiled once.
  const insertCart = compiledInsert("shop_carts", carts);
  const selectCart = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("shop_carts").selectAll().where("id", "=", p("id")));
  const selectCartByTokenHash = compiledOnce<{ tokenHash: string }>((ex, p) =>
    ex.selectFrom("shop_carts").selectAll().where("token_hash", "=", p("tokenHash")),
  );
  const upsertLine = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("shop_cart_lines")
      .values(slotsOf(lines.columns, p))
      .onConflict((oc) => oc.columns(["cart_id", "variant_id"]).doUpdateSet({ quantity: p("quantity") })),
  );
  const deleteLine = compiledOnce<{ cartId: string; variantId: string }>((ex, p) =>
    ex.deleteFrom("shop_cart_lines").where("cart_id", "=", p("cartId")).where("variant_id", "=", p("variantId")),
  );
  const selectLinesOfCart = compiledOnce<{ cartId: string }>((ex, p) =>
    ex.selectFrom("shop_cart_lines").selectAll().where("cart_id", "=", p("cartId")).orderBy("added_at").orderBy("variant_id"),
  );
  const updateCheckedOutIfOpen = compiledOnce<{ cartId: string; at: unknown }>((ex, p) =>
    ex
      .updateTable("shop_carts")
      .set((eb) => ({ status: "checked_out", version: eb("version", "+", 1), updated_at: p("at") }))
      .where("id", "=", p("cartId"))
      .where("status", "=", "open"),
  );
  const updateTouched = compiledOnce<{ cartId: string; at: unknown }>((ex, p) =>
    ex
      .updateTable("shop_carts")
      .set((eb) => ({ version: eb("version", "+", 1), updated_at: p("at") }))
      .where("id", "=", p("cartId"))
      .where("status", "=", "open"),
  );
  const updateSeenPrice = compiledOnce<{ cartId: string; subtotalMinor: number; totalMinor: number }>((ex, p) =>
    ex.updateTable("shop_carts").set({ seen_subtotal_minor: p("subtotalMinor"), seen_total_minor: p("totalMinor") }).where("id", "=", p("cartId")),
  );
  return {
    recordSeenPrice: (cartId, subtotalMinor, totalMinor) => sendStatement(db, updateSeenPrice, { cartId, subtotalMinor, totalMinor }),
    insertCart: (cart) => runStatement(db, insertCart, cart).pipe(Effect.asVoid),
    findCart: (id) =>
      runStatement(db, selectCart, { id }).pipe(Effect.map(({ rows: [r] }) => (r === undefined ? null : carts.fromRow(r)))),
    findCartByTokenHash: (tokenHash) =>
      runStatement(db, selectCartByTokenHash, { tokenHash }).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : carts.fromRow(r))),
      ),
    putLine: (line) => runStatement(db, upsertLine, lines.toRow(line)).pipe(Effect.asVoid),
    removeLine: (cartId, variantId) => runStatement(db, deleteLine, { cartId, variantId }).pipe(Effect.asVoid),
    linesOf: (cartId) => runStatement(db, selectLinesOfCart, { cartId }).pipe(Effect.map(({ rows }) => rows.map(lines.fromRow))),
    markCheckedOut: (cartId, now) =>
      runStatement(db, updateCheckedOutIfOpen, { cartId, at: f.timeToDb(now) }).pipe(
        Effect.map((r) => toNumber(r.numAffectedRows ?? 0) > 0),
      ),
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
      runStatement(db, updateTouched, { cartId, at: f.timeToDb(now) }).pipe(Effect.map((r) => toNumber(r.numAffectedRows ?? 0) > 0)),
  };
};
