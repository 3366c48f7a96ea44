/**
 * Delivery migration 10: the audit of settlement dead-letter replays (dl_settlement_replays,
 * append-only). A replay is an operator's override of a dead settlement job (spec: "every manual
 * reassignment, refund and state override records actor and reason"; Authentication 2,
 * "sensitive actions audited"); it was only a log line. One row per replay, written in the
 * replay's transaction: the job, its order, the actor, the reason and the time.
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return [
    `CREATE TABLE dl_settlement_replays (
      id ${c.text} PRIMARY KEY,
      job_id ${c.text} NOT NULL,
      order_id ${c.text},
      actor_id ${c.text} NOT NULL,
      reason ${c.text} NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
      at ${c.time} NOT NULL
    )`,
    `CREATE INDEX dl_settlement_replays_job ON dl_settlement_replays (job_id, at)`,
    ...appendOnlyTriggersSql(dialect, "dl_settlement_replays"),
  ];
};

/** Version 10 of the delivery module. */
export const deliveryMigration0010SettlementReplays: Migration = {
  version: 10,
  name: "settlement_replays",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
