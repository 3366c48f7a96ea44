/**
 * The kernel's tables: outbox, inbox, jobs, idempotency keys, user epochs and the realtime
 * channel log. Times: ISO-8601 text on SQLite, timestamptz on Postgres. JSON: text / jsonb.
 * Statuses and counters carry CHECK constraints so a buggy writer cannot store nonsense.
 */
import type { Migration } from "./Migration.js";

const sqlite = [
  // SQLite cannot have a second autoincrement column, so the ordering sequence is the rowid
  // key and the event id is a unique column (on Postgres the id is the primary key).
  `CREATE TABLE outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    tenant_id TEXT NOT NULL,
    type TEXT NOT NULL,
    event TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at TEXT NOT NULL,
    locked_by TEXT,
    locked_until TEXT,
    last_error TEXT,
    created_at TEXT NOT NULL
  )`,
  `CREATE INDEX outbox_due ON outbox (status, next_attempt_at, seq)`,
  `CREATE TABLE inbox (
    consumer TEXT NOT NULL,
    event_id TEXT NOT NULL,
    processed_at TEXT NOT NULL,
    PRIMARY KEY (consumer, event_id)
  )`,
  `CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    key TEXT,
    payload TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'dead', 'cancelled')),
    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts INTEGER NOT NULL CHECK (max_attempts >= 1),
    run_at TEXT NOT NULL,
    locked_by TEXT,
    locked_until TEXT,
    last_error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`,
  `CREATE UNIQUE INDEX jobs_unfinished_key ON jobs (kind, key) WHERE key IS NOT NULL AND status IN ('pending', 'running')`,
  `CREATE INDEX jobs_due ON jobs (status, run_at)`,
  `CREATE TABLE idempotency_keys (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_progress', 'completed')),
    response TEXT,
    locked_until TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (scope, key),
    CHECK ((state = 'completed') = (response IS NOT NULL))
  )`,
  `CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)`,
  `CREATE TABLE user_epochs (
    user_id TEXT PRIMARY KEY,
    epoch INTEGER NOT NULL CHECK (epoch >= 0)
  )`,
  `CREATE TABLE channel_heads (
    channel TEXT PRIMARY KEY,
    last_offset INTEGER NOT NULL CHECK (last_offset >= 0)
  )`,
  `CREATE TABLE channel_messages (
    channel TEXT NOT NULL,
    "offset" INTEGER NOT NULL CHECK ("offset" >= 1),
    event TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (channel, "offset")
  )`,
  `CREATE INDEX channel_messages_created ON channel_messages (created_at)`,
];

const postgres = [
  `CREATE TABLE outbox (
    id text PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    tenant_id text NOT NULL,
    type text NOT NULL,
    event jsonb NOT NULL,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
    attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at timestamptz NOT NULL,
    locked_by text,
    locked_until timestamptz,
    last_error text,
    created_at timestamptz NOT NULL
  )`,
  `CREATE INDEX outbox_due ON outbox (next_attempt_at, seq) WHERE status = 'pending'`,
  `CREATE INDEX outbox_dead ON outbox (seq) WHERE status = 'dead'`,
  `CREATE TABLE inbox (
    consumer text NOT NULL,
    event_id text NOT NULL,
    processed_at timestamptz NOT NULL,
    PRIMARY KEY (consumer, event_id)
  )`,
  `CREATE TABLE jobs (
    id text PRIMARY KEY,
    kind text NOT NULL,
    key text,
    payload jsonb NOT NULL,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'dead', 'cancelled')),
    attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts integer NOT NULL CHECK (max_attempts >= 1),
    run_at timestamptz NOT NULL,
    locked_by text,
    locked_until timestamptz,
    last_error text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
  `CREATE UNIQUE INDEX jobs_unfinished_key ON jobs (kind, key) WHERE key IS NOT NULL AND status IN ('pending', 'running')`,
  `CREATE INDEX jobs_due ON jobs (status, run_at)`,
  `CREATE TABLE idempotency_keys (
    scope text NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
    response jsonb,
    locked_until timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (scope, key),
    CHECK ((state = 'completed') = (response IS NOT NULL))
  )`,
  `CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)`,
  `CREATE TABLE user_epochs (
    user_id text PRIMARY KEY,
    epoch integer NOT NULL CHECK (epoch >= 0)
  )`,
  `CREATE TABLE channel_heads (
    channel text PRIMARY KEY,
    last_offset bigint NOT NULL CHECK (last_offset >= 0)
  )`,
  `CREATE TABLE channel_messages (
    channel text NOT NULL,
    "offset" bigint NOT NULL CHECK ("offset" >= 1),
    event jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (channel, "offset")
  )`,
  `CREATE INDEX channel_messages_created ON channel_messages (created_at)`,
];

/** The kernel module's migrations. */
export const kernelMigrations: ReadonlyArray<Migration> = [
  { version: 1, name: "kernel_tables", sqlite, postgres },
  // The relay claims pending rows in seq order: walking an index in that order stops after the
  // batch, where the due index made every claim sort the whole backlog (slower as it grew).
  {
    version: 2,
    name: "outbox_pending_seq",
    sqlite: [`CREATE INDEX outbox_pending_seq ON outbox (status, seq)`],
    postgres: [`CREATE INDEX outbox_pending_seq ON outbox (seq) WHERE status = 'pending'`],
  },
  // Postgres: the database itself announced committed outbox rows (NOTIFY is delivered on commit
  // only). Replaced by version 6: the notice is now sent after commit.
  {
    version: 3,
    name: "outbox_insert_notifies",
    sqlite: [],
    postgres: [
      `CREATE FUNCTION domainkit_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('domainkit_work', 'outbox');
  RETURN NULL;
END
$$`,
      `CREATE TRIGGER outbox_insert_notifies AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION domainkit_outbox_notify()`,
    ],
  },
  // A claim seeks the due pending jobs in (run_at, id) order and stops after its batch (SqlJobs.ts
  // claimDue); with the id in the index no tie of run_at is sorted. Replaces jobs_due (status,
  // run_at), whose every use this index serves.
  {
    version: 4,
    name: "jobs_due_in_claim_order",
    sqlite: [`CREATE INDEX jobs_due_order ON jobs (status, run_at, id)`, `DROP INDEX jobs_due`],
    postgres: [`CREATE INDEX jobs_due_order ON jobs (status, run_at, id)`, `DROP INDEX jobs_due`],
  },
  // Retention of consumer records (core/maintenance/KernelMaintenance.ts): the oldest first.
  {
    version: 5,
    name: "inbox_processed",
    sqlite: [`CREATE INDEX inbox_processed ON inbox (processed_at)`],
    postgres: [`CREATE INDEX inbox_processed ON inbox (processed_at)`],
  },
  // Postgres: the outbox no longer notifies from inside the writing transaction (version 3). A
  // notifying commit holds Postgres' database-wide notify lock through its commit, so every write
  // waited for the others'; the process now sends the notice after commit, folded across commits
  // (adapters/postgres/CoalescedNotices.ts).
  {
    version: 6,
    name: "outbox_notice_after_commit",
    sqlite: [],
    postgres: [`DROP TRIGGER outbox_insert_notifies ON outbox`, `DROP FUNCTION domainkit_outbox_notify()`],
  },
  // SQLite: notices between the processes sharing one file (adapters/sqlite/SqliteRealtimeBus.ts);
  // Postgres carries them with NOTIFY.
  {
    version: 7,
    name: "realtime_notices",
    sqlite: [
      `CREATE TABLE realtime_notices (
    seq integer PRIMARY KEY AUTOINCREMENT,
    origin text NOT NULL,
    notice text NOT NULL,
    created_at integer NOT NULL
  )`,
      `CREATE INDEX realtime_notices_created ON realtime_notices (created_at)`,
    ],
    postgres: [],
  },
  // Postgres: the rate-limit counts every server process shares (adapters/postgres/PostgresLimiters.ts,
  // rate-limiter-flexible's layout). SQLite has one server process: its counts stay in memory.
  {
    version: 8,
    name: "rate_limits",
    sqlite: [],
    postgres: [
      `CREATE TABLE rate_limits (
    key varchar(255) PRIMARY KEY,
    points integer NOT NULL DEFAULT 0,
    expire bigint
  )`,
    ],
  },
  // When each user's epoch was last advanced: a token without an epoch claim (an identity
  // provider's) issued before it is revoked (adapters/koa/Authentication.ts). Null for epochs
  // advanced before this migration: such a user's tokens without the claim stay refused, as before.
  {
    version: 9,
    name: "user_epochs_revoked_at",
    sqlite: [`ALTER TABLE user_epochs ADD COLUMN revoked_at TEXT`],
    postgres: [`ALTER TABLE user_epochs ADD COLUMN revoked_at timestamptz`],
  },
];
