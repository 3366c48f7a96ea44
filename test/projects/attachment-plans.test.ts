/**
 * The sweep of expired attachment uploads (`AttachmentsRepository.expiredUploads`, run by the
 * maintenance job) reads only unfinished uploads, through the partial index
 * pm_attachments_staging (`upload_expires_at` WHERE status IN ('pending', 'purging')). With the
 * statuses bound as values, SQLite and a cached generic plan on Postgres could not prove the
 * index's predicate, so every sweep read every attachment ever uploaded.
 */
import { Effect } from "effect";
import t from "tap";
import { makeSqlAttachmentsRepository } from "../../adapters/sql/projects/SqlAttachmentsRepository.js";
import { openTestDatabase } from "../support/databases.js";
import { genericPlan, planNodes, sentToPostgres } from "../support/postgresPlans.js";
import { capturePrepared, planDetails } from "../support/sqlitePlans.js";

const sweep = (db: Parameters<typeof makeSqlAttachmentsRepository>[0]) =>
  Effect.runPromise(makeSqlAttachmentsRepository(db).expiredUploads(new Date(), 100));

t.test("SQLite: the expired-uploads sweep reads unfinished uploads through pm_attachments_staging", async (t) => {
  const db = await openTestDatabase("sqlite", t);
  const { result, executed } = await capturePrepared((text) => text.includes('from "pm_attachments"'), () => sweep(db));
  t.same(result, [], "nothing to sweep");
  t.equal(executed.size, 1, "one statement");
  for (const [text, parameters] of executed) {
    const details = await planDetails(db, text, parameters);
    t.ok(details.some((detail) => /^SEARCH pm_attachments USING INDEX pm_attachments_staging/.test(detail)), "seeks the staging index", { details });
    t.notOk(details.some((detail) => /^SCAN pm_attachments/.test(detail)), "never scans the attachments", { details });
  }
});

t.test("Postgres: the sweep's cached generic plan still uses pm_attachments_staging", async (t) => {
  const db = await openTestDatabase("postgres", t);
  const sent = await sentToPostgres((text) => text.includes('from "pm_attachments"'), () => sweep(db));
  t.equal(sent.length, 1, "one statement");
  const nodes = planNodes(await genericPlan(db, sent[0]!));
  t.ok(nodes.some((node) => node["Index Name"] === "pm_attachments_staging"), "uses the staging index", { nodes });
  t.notOk(nodes.some((node) => node["Node Type"] === "Seq Scan"), "no sequential scan", { nodes });
});
