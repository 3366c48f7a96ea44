/**
 * Commerce migration 18: a return moves only forward through its stages, and what it returns
 * never changes (spec, E-commerce States: "return stages (authorization issued, received and
 * inspected, restocked or quarantined, refund requested, closed)"). The code's moves are
 * conditional on the status it read (OrdersRepository.transitionReturn); the database now refuses
 * any other write too: a status move outside the list below (a closed return reopened, a
 * quarantined one restocked after all, a stage skipped), a change of its order, lines, refund,
 * reason or creation, and a DELETE. Moves, as core/commerce/OrderStatus.ts `returnTransitions`
 * stood when this was written: authorized → received → restocked | quarantined → refund_requested
 * → closed.
 */
import type { Migration } from "../../Migration.js";

const moves = [
  "authorized>received",
  "received>restocked",
  "received>quarantined",
  "restocked>refund_requested",
  "quarantined>refund_requested",
  "refund_requested>closed",
]
  .map((m) => `'${m}'`)
  .join(", ");

const fixedColumns = ["id", "store_id", "order_id", "reason", "lines", "refund_minor", "created_at"];

export const commerceMigration0018ReturnStageMoves: Migration = {
  version: 18,
  name: "return_stage_moves",
  sqlite: [
    `CREATE TRIGGER shop_returns_never_deleted BEFORE DELETE ON shop_returns
     BEGIN SELECT RAISE(ABORT, 'shop_returns: returns are never deleted'); END`,
    `CREATE TRIGGER shop_returns_fixed BEFORE UPDATE ON shop_returns
     WHEN ${fixedColumns.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")}
     BEGIN SELECT RAISE(ABORT, 'shop_returns: what a return returns never changes'); END`,
    `CREATE TRIGGER shop_returns_status_moves BEFORE UPDATE OF status ON shop_returns
     WHEN NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves})
     BEGIN SELECT RAISE(ABORT, 'shop_returns: this stage move is not allowed'); END`,
  ],
  postgres: [
    `CREATE FUNCTION shop_returns_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       RAISE EXCEPTION 'shop_returns: returns are never deleted' USING ERRCODE = 'restrict_violation';
     END $$`,
    `CREATE TRIGGER shop_returns_never_deleted BEFORE DELETE ON shop_returns FOR EACH ROW EXECUTE FUNCTION shop_returns_never_deleted()`,
    `CREATE FUNCTION shop_returns_stage_moves() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF ${fixedColumns.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")} THEN
         RAISE EXCEPTION 'shop_returns: what a return returns never changes' USING ERRCODE = 'check_violation';
       END IF;
       IF NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves}) THEN
         RAISE EXCEPTION 'shop_returns: this stage move is not allowed' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER shop_returns_stage_moves BEFORE UPDATE ON shop_returns FOR EACH ROW EXECUTE FUNCTION shop_returns_stage_moves()`,
  ],
};
