/**
 * Delivery migration 15: every operator replay of a dead payment step (an order's capture, void or
 * payment resolution, a quote's authorization release) is audited (spec: sensitive support actions
 * audited; Authentication 6: a reason and step-up): one append-only row per replay with the job,
 * the step, the order or quote, the actor and the reason, written in the replay's transaction
 * (like dl_settlement_replays, migration 10).
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return [
    `CREATE TABLE dl_payment_replays (
      id ${c.text} PRIMARY KEY,
      job_id ${c.text} NOT NULL,
      step ${c.text} NOT NULL CHECK (step IN ('capture', 'void', 'resolve', 'release')),
      order_id ${c.text},
      quote_id ${c.text},
      actor_id ${c.text} NOT NULL,
      reason ${c.text} NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
      at ${c.time} NOT NULL
    )`,
    `CREATE INDEX dl_payment_replays_job ON dl_payment_replays (job_id, at)`,
    ...appendOnlyTriggersSql(dialect, "dl_payment_replays"),
  ];
};

export const deliveryMigration0015PaymentReplays: Migration = {
  version: 15,
  name: "payment_replays",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
