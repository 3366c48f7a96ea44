/**
 * Commerce migration 19: carts, shipments and fulfillment tasks move only forward (spec,
 * E-commerce: "A cart is server-authoritative"; "An order can split into shipments"; Events:
 * task creation is idempotent). The code's moves are conditional updates; the database now
 * refuses any other write too:
 * - a cart moves open → checked_out only (a reopened cart could be checked out again) and keeps
 *   its store, customer and token digest; carts are still deleted by retention;
 * - a shipment moves pending → dispatched → delivered only, keeps its order, location and amount,
 *   and its carrier, tracking number and dispatch time once set; it is never deleted;
 * - a fulfillment task moves open → done only, keeps its order, and a done task keeps its
 *   assignee; it is never deleted.
 */
import type { Migration } from "../../Migration.js";

interface Guarded {
  readonly table: string;
  readonly moves: ReadonlyArray<string>;
  readonly fixed: ReadonlyArray<string>;
  /** Columns that never change once not null. */
  readonly setOnce: ReadonlyArray<string>;
  /** Columns that never change once the row is in `status`. */
  readonly finalIn?: { readonly status: string; readonly columns: ReadonlyArray<string> };
  readonly deletable: boolean;
}

const guarded: ReadonlyArray<Guarded> = [
  {
    table: "shop_carts",
    moves: ["open>checked_out"],
    fixed: ["id", "store_id", "customer_id", "token_hash", "created_at"],
    setOnce: [],
    deletable: true,
  },
  {
    table: "shop_shipments",
    moves: ["pending>dispatched", "dispatched>delivered"],
    fixed: ["id", "store_id", "order_id", "location_id", "amount_minor", "created_at"],
    setOnce: ["carrier", "tracking_number", "dispatched_at"],
    deletable: false,
  },
  {
    table: "shop_fulfillment_tasks",
    moves: ["open>done"],
    fixed: ["id", "store_id", "order_id", "created_at"],
    setOnce: [],
    finalIn: { status: "done", columns: ["assignee_id", "assigned_at"] },
    deletable: false,
  },
];

const changed = (g: Guarded, distinct: string): string =>
  [
    ...g.fixed.map((c) => `NEW.${c} ${distinct} OLD.${c}`),
    ...g.setOnce.map((c) => `(OLD.${c} IS NOT NULL AND NEW.${c} ${distinct} OLD.${c})`),
    ...(g.finalIn === undefined ? [] : [`(OLD.status = '${g.finalIn.status}' AND (${g.finalIn.columns.map((c) => `NEW.${c} ${distinct} OLD.${c}`).join(" OR ")}))`]),
  ].join(" OR ");

const moveRefused = (g: Guarded): string => `NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${g.moves.map((m) => `'${m}'`).join(", ")})`;

const sqlite = guarded.flatMap((g) => [
  ...(g.deletable ? [] : [`CREATE TRIGGER ${g.table}_never_deleted BEFORE DELETE ON ${g.table} BEGIN SELECT RAISE(ABORT, '${g.table}: rows are never deleted'); END`]),
  `CREATE TRIGGER ${g.table}_fixed BEFORE UPDATE ON ${g.table} WHEN ${changed(g, "IS NOT")}
   BEGIN SELECT RAISE(ABORT, '${g.table}: this column never changes here'); END`,
  `CREATE TRIGGER ${g.table}_status_moves BEFORE UPDATE OF status ON ${g.table} WHEN ${moveRefused(g)}
   BEGIN SELECT RAISE(ABORT, '${g.table}: this status move is not allowed'); END`,
]);

const postgres = guarded.flatMap((g) => [
  ...(g.deletable
    ? []
    : [
        `CREATE FUNCTION ${g.table}_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           RAISE EXCEPTION '${g.table}: rows are never deleted' USING ERRCODE = 'restrict_violation';
         END $$`,
        `CREATE TRIGGER ${g.table}_never_deleted BEFORE DELETE ON ${g.table} FOR EACH ROW EXECUTE FUNCTION ${g.table}_never_deleted()`,
      ]),
  `CREATE FUNCTION ${g.table}_moves() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF ${changed(g, "IS DISTINCT FROM")} THEN
       RAISE EXCEPTION '${g.table}: this column never changes here' USING ERRCODE = 'check_violation';
     END IF;
     IF ${moveRefused(g)} THEN
       RAISE EXCEPTION '${g.table}: this status move is not allowed' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER ${g.table}_moves BEFORE UPDATE ON ${g.table} FOR EACH ROW EXECUTE FUNCTION ${g.table}_moves()`,
]);

export const commerceMigration0019CartShipmentTaskMoves: Migration = {
  version: 19,
  name: "cart_shipment_task_moves",
  sqlite,
  postgres,
};
