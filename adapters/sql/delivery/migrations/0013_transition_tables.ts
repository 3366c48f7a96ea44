/**
 * Delivery migration 13: the state machines' transition tables in the database (spec, States and
 * transitions: conditional transitions, pickup before assignment prevented, an expired offer
 * unchanged). Migration 1 refused only a lower delivery status and leaving a terminal order; a
 * write that went around the core could still skip the pickup, cancel a picked-up meal, capture
 * a voided payment or accept an expired offer. Now, on UPDATE:
 * - dl_deliveries: a status change is one of `deliveryTransitions`; the courier changes only into
 *   `assigned` (winning an offer, a reassignment); either needs a higher version;
 * - dl_restaurant_orders: status and payment state change only as `orderTransitions` and
 *   `paymentTransitions` allow; a payment id, once known, is kept; every change raises the version;
 * - dl_courier_offers: status changes only as `offerTransitions` allows; an offer is accepted only
 *   before it expires; its delivery and courier never change;
 * - dl_substitutions: decided once (proposed → accepted or refused) and otherwise unchanged (the
 *   charged line total the customer agreed to among them); never deleted.
 * The tables are written out here (a released migration never changes); they equal the core's
 * (core/delivery/DeliveryStatus.ts, OrderStatus.ts, OfferStatus.ts), which
 * test/delivery/state-machines-in-database.test.ts checks. A change of a core table needs a new migration.
 */
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

type TransitionTable = Readonly<Record<string, ReadonlyArray<string>>>;

/** The transition tables as of this migration: from → allowed next states. */
export const transitionTablesOfMigration13: Readonly<Record<"delivery" | "order" | "payment" | "offer", TransitionTable>> = {
  delivery: { pending: ["assigned", "cancelled"], assigned: ["picked_up", "cancelled"], picked_up: ["delivered"], delivered: [], cancelled: [] },
  order: {
    payment_pending: ["authorized", "cancelled"],
    authorized: ["accepted", "rejected", "cancelled"],
    accepted: ["completed", "cancelled"],
    rejected: [],
    cancelled: [],
    completed: [],
  },
  payment: {
    pending: ["authorized", "declined", "void_pending"],
    authorized: ["capture_pending", "void_pending"],
    declined: [],
    capture_pending: ["captured"],
    captured: [],
    void_pending: ["voided"],
    voided: [],
  },
  offer: { offered: ["accepted", "lost", "expired"], accepted: ["lost"], lost: [], expired: [] },
};
const { delivery: deliveryTransitions, order: orderTransitions, payment: paymentTransitions, offer: offerTransitions } = transitionTablesOfMigration13;

/** `column` moved along `table` (or stayed): a SQL condition on OLD and NEW. */
const permitted = (column: string, table: TransitionTable): string => {
  const pairs = Object.entries(table).flatMap(([from, tos]) => tos.map((to) => `(OLD.${column} = '${from}' AND NEW.${column} = '${to}')`));
  return `(NEW.${column} = OLD.${column} OR ${pairs.join(" OR ")})`;
};

/** The condition under which each table's UPDATE is refused (SQLite's `IS NOT` is Postgres's `IS DISTINCT FROM`). */
const refused = (dialect: SqlDialect) => {
  const distinct = dialect === "sqlite" ? "IS NOT" : "IS DISTINCT FROM";
  return {
    dl_deliveries: [
      `NOT ${permitted("status", deliveryTransitions)}`,
      `(NEW.courier_id ${distinct} OLD.courier_id AND NOT (NEW.status = 'assigned' AND OLD.status IN ('pending', 'assigned')))`,
      `((NEW.status <> OLD.status OR NEW.courier_id ${distinct} OLD.courier_id) AND NEW.version <= OLD.version)`,
    ].join(" OR "),
    dl_restaurant_orders: [
      `NOT ${permitted("status", orderTransitions)}`,
      `NOT ${permitted("payment_state", paymentTransitions)}`,
      `(OLD.payment_id IS NOT NULL AND NEW.payment_id ${distinct} OLD.payment_id)`,
      `NEW.version <= OLD.version`,
    ].join(" OR "),
    dl_courier_offers: [
      `NOT ${permitted("status", offerTransitions)}`,
      `(OLD.status = 'offered' AND NEW.status = 'accepted' AND NEW.decided_at >= NEW.expires_at)`,
      `NEW.delivery_id <> OLD.delivery_id`,
      `NEW.courier_id <> OLD.courier_id`,
    ].join(" OR "),
    dl_substitutions: substitutionDecidedOnce(dialect),
  };
};

/** The columns of dl_substitutions other than its decision (migration 6). */
const substitutionColumns = [
  "id", "order_id", "line_no", "original_item_id", "original_name", "replacement_item_id", "replacement_name",
  "quantity", "replacement_unit_price_minor", "charged_line_total_minor", "reason", "proposed_by", "created_at",
];
const substitutionDecidedOnce = (dialect: SqlDialect): string => {
  const unchanged =
    dialect === "sqlite"
      ? substitutionColumns.map((c) => `NEW.${c} IS OLD.${c}`).join(" AND ")
      : `(to_jsonb(NEW) - 'status' - 'decided_at') = (to_jsonb(OLD) - 'status' - 'decided_at')`;
  return `NOT (OLD.status = 'proposed' AND NEW.status IN ('accepted', 'refused') AND NEW.decided_at IS NOT NULL AND ${unchanged})`;
};

const messages = {
  dl_deliveries: "dl_deliveries: a transition the delivery table does not permit",
  dl_restaurant_orders: "dl_restaurant_orders: a transition the order or payment table does not permit",
  dl_courier_offers: "dl_courier_offers: a transition the offer table does not permit",
  dl_substitutions: "dl_substitutions: a substitution is decided once and otherwise unchanged",
};

const tables = ["dl_deliveries", "dl_restaurant_orders", "dl_courier_offers", "dl_substitutions"] as const;

const sqlite = (): string[] => {
  const when = refused("sqlite");
  return [
    ...tables.map(
      (table) => `CREATE TRIGGER ${table}_transition_table BEFORE UPDATE ON ${table} WHEN ${when[table]} BEGIN SELECT RAISE(ABORT, '${messages[table]}'); END`,
    ),
    `CREATE TRIGGER dl_substitutions_kept BEFORE DELETE ON dl_substitutions BEGIN SELECT RAISE(ABORT, 'dl_substitutions are never deleted'); END`,
  ];
};

const postgres = (): string[] => {
  const when = refused("postgres");
  return tables.flatMap((table) => [
    `CREATE FUNCTION ${table}_transition_table() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF ${when[table]} THEN
         RAISE EXCEPTION '${messages[table]}' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER ${table}_transition_table BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_transition_table()`,
  ]).concat(`CREATE TRIGGER dl_substitutions_kept BEFORE DELETE ON dl_substitutions FOR EACH ROW EXECUTE FUNCTION domainkit_refuse_change()`);
};

export const deliveryMigration0013TransitionTables: Migration = {
  version: 13,
  name: "transition_tables",
  sqlite: sqlite(),
  postgres: postgres(),
};
