/**
 * Commerce migration 13: a reservation's status moves only forward along its table, and what it
 * holds never changes (spec, E-commerce Resources: "an active reservation can be released; others
 * cannot"; States: "a conditional status change prevents a second release"). The code's updates
 * are conditional on the status the caller saw; the database now refuses any other move too
 * (`released → active`, `consumed → released`, ...), each of which would let a later release or
 * dispatch count the same units against `reserved` or `on_hand` twice, and refuses a DELETE or a
 * change of order, variant, location or quantity. Moves, as core/commerce/OrderStatus.ts
 * `reservationTransitions` stood when this was written: active → committed | released (expiry,
 * decline, cancellation), committed → consumed (dispatch) | released (cancellation).
 */
import type { Migration } from "../../Migration.js";

const moves = ["active>committed", "active>released", "committed>consumed", "committed>released"].map((m) => `'${m}'`).join(", ");

const heldColumns = ["id", "store_id", "order_id", "variant_id", "location_id", "quantity", "created_at"];

export const commerceMigration0013ReservationStatusMoves: Migration = {
  version: 13,
  name: "reservation_status_moves",
  sqlite: [
    `CREATE TRIGGER shop_reservations_never_deleted BEFORE DELETE ON shop_reservations
     BEGIN SELECT RAISE(ABORT, 'shop_reservations: reservations are never deleted'); END`,
    `CREATE TRIGGER shop_reservations_held_immutable BEFORE UPDATE ON shop_reservations
     WHEN ${heldColumns.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")}
     BEGIN SELECT RAISE(ABORT, 'shop_reservations: what a reservation holds never changes'); END`,
    `CREATE TRIGGER shop_reservations_status_moves BEFORE UPDATE OF status ON shop_reservations
     WHEN NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves})
     BEGIN SELECT RAISE(ABORT, 'shop_reservations: this status move is not allowed'); END`,
  ],
  postgres: [
    `CREATE FUNCTION shop_reservations_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       RAISE EXCEPTION 'shop_reservations: reservations are never deleted' USING ERRCODE = 'restrict_violation';
     END $$`,
    `CREATE TRIGGER shop_reservations_never_deleted BEFORE DELETE ON shop_reservations FOR EACH ROW EXECUTE FUNCTION shop_reservations_never_deleted()`,
    `CREATE FUNCTION shop_reservations_status_moves() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF ${heldColumns.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")} THEN
         RAISE EXCEPTION 'shop_reservations: what a reservation holds never changes' USING ERRCODE = 'check_violation';
       END IF;
       IF NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves}) THEN
         RAISE EXCEPTION 'shop_reservations: this status move is not allowed' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER shop_reservations_status_moves BEFORE UPDATE ON shop_reservations FOR EACH ROW EXECUTE FUNCTION shop_reservations_status_moves()`,
  ],
};
