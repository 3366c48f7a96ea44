/**
 * POST /v1/sessions/revoke: an authenticated write. Each request verifies a JWT, reads the
 * user's epoch, and bumps it in a transaction (adapters/sql/SqlUserEpochs.ts) that also publishes
 * on the realtime bus (`pg_notify` on Postgres; in process on SQLite). The raw baseline runs every
 * statement of the request: the epoch read, then the transaction (until the eighth session it
 * left out the read and the notice).
 */
import { randomUUID } from "node:crypto";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { REALTIME_CHANNEL as realtimeChannel } from "../../adapters/postgres/PostgresRealtimeBus.js";
import { measureOps } from "../RawLoop.js";
import { inOrder, kernelSql, rawRunner } from "../RawStatements.js";
import type { Scenario } from "../Scenario.js";

/**
 * Tokens carry this epoch: a token is accepted while its epoch is >= the user's current one,
 * and each call adds one, so the same token keeps working for the whole run.
 */
const tokenEpoch = 1_000_000_000;

/** Users per HTTP connection, so concurrent writes land on different rows. */
const usersPerConnection = 50;

// The statement SqlUserEpochs.bump issues, as Kysely compiles it for each dialect.
const bumpSqlite = `insert into "user_epochs" ("user_id", "epoch", "revoked_at") values (?, ?, ?) on conflict ("user_id") do update set "epoch" = "user_epochs"."epoch" + ?, "revoked_at" = ? returning "epoch"`;
const bumpPostgres = `insert into "user_epochs" ("user_id", "epoch", "revoked_at") values ($1, $2, $3) on conflict ("user_id") do update set "epoch" = "user_epochs"."epoch" + $4, "revoked_at" = $5 returning "epoch"`;

const users = (count: number): string[] => Array.from({ length: count }, () => randomUUID());

/** Revoking sessions under load, against the bare transaction that bumps the epoch. */
export const revokeSessions: Scenario = {
  name: "revoke-sessions",
  description: "POST /v1/sessions/revoke with a bearer token per user (JWT verify, epoch read, epoch bump in a transaction)",
  setup: async (target, { connections }) => {
    const tokens = await Promise.all(
      users(connections * usersPerConnection).map((userId) =>
        mintToken({ secret: target.jwtSecret, userId, ttlSeconds: 3600, epoch: tokenEpoch }),
      ),
    );
    return {
      requests: tokens.map((token) => ({ method: "POST", path: "/v1/sessions/revoke", headers: { authorization: `Bearer ${token}` } })),
    };
  },
  rawBaseline: async (db, bounds) => {
    const ids = users(bounds.connections * usersPerConnection);
    const userOf = (sequence: number): string => ids[sequence % ids.length] as string;
    const runner = rawRunner(db);
    const epoch = kernelSql(db.dialect).epoch;
    const sqlite = db.dialect === "sqlite";
    const measured = await measureOps((sequence) => {
      const userId = userOf(sequence);
      // The revocation time as each dialect stores it (SQLite: ISO text; Postgres: timestamptz).
      const at = new Date().toISOString();
      return inOrder([
        () => runner.autocommit([[epoch, [userId]]]),
        () =>
          runner.inTransaction(
            sqlite
              ? [[bumpSqlite, [userId, 1, at, 1, at]]]
              : [
                  [bumpPostgres, [userId, 1, at, 1, at]],
                  ["SELECT pg_notify($1, $2)", [realtimeChannel, JSON.stringify({ type: "access_changed", userId })]],
                ],
          ),
      ]);
    }, bounds);
    return {
      ...measured,
      label: sqlite ? "epoch read; BEGIN IMMEDIATE; upsert user_epochs RETURNING; COMMIT" : "epoch read; BEGIN; upsert user_epochs RETURNING; pg_notify; COMMIT",
    };
  },
};
