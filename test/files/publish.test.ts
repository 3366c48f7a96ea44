/**
 * Spec rules 3 and 4: a clean scan publishes the version, makes it the file's one current version
 * and appends its change record, with FileVersionPublished in the outbox — in one transaction.
 * EICAR ends blocked; a scan that keeps failing ends scan_failed after bounded retries; neither
 * is ever current. Exactly one current published version per file (also a database rule).
 */
import t from "tap";
import { Duration, Effect, Exit, Fiber, Option, Stream, TestClock, TestContext } from "effect";
import { sql } from "kysely";
import { applyVersionTrigger, scanVersion } from "../../core/files/ScanVersion.js";
import { ScannerUnavailable, Scanner } from "../../ports/Scanner.js";
import { eicarTestString } from "../../adapters/scanner/SignatureScanner.js";
import { forEachFilesDialect } from "./support.js";
import { bytesOf, filesRuntime, publishFile, testSettings, uploadFile, workspaceWithDrive } from "./support.js";

t.test("a clean scan publishes, makes current, appends the change and FileVersionPublished together", (t) =>
  forEachFilesDialect(t, "publish", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const v1 = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("first") });
    const node = await db.db.selectFrom("fs_nodes").selectAll().where("id", "=", v1.nodeId).executeTakeFirstOrThrow();
    t.match(node, { current_version_id: v1.id, size_bytes: 5, version: 2 }, "the node's current version is the published one");
    const version = await db.db.selectFrom("fs_file_versions").selectAll().where("id", "=", v1.id).executeTakeFirstOrThrow();
    t.equal(version.status, "published");
    const changes = await db.db.selectFrom("fs_changes").select(["seq", "type", "version_id"]).orderBy("seq").execute();
    t.match(changes.map((c) => [Number(c.seq), c.type]), [[1, "node.created"], [2, "version.published"]], "created, then published, in sequence");
    const events = await db.db.selectFrom("outbox").select(["type", "event"]).where("type", "=", "FileVersionPublished").execute();
    t.equal(events.length, 1, "FileVersionPublished once");
    t.equal(await env.run(scanVersion("ws1", v1.id, { attempt: 2, maxAttempts: 3 })), "skipped", "a repeated delivery changes nothing");
    t.equal((await db.db.selectFrom("outbox").select("id").where("type", "=", "FileVersionPublished").execute()).length, 1, "still once");

    const v2 = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("second"), nodeId: v1.nodeId });
    const current = await db.db.selectFrom("fs_file_versions").select(["id"]).where("node_id", "=", v1.nodeId).where("is_current", "=", db.dialect === "sqlite" ? sql<boolean>`1` : sql<boolean>`true`).execute();
    t.same(current.map((c) => c.id), [v2.id], "the new clean version is the one current version");
  }),
);

t.test("EICAR content ends blocked and never becomes current", (t) =>
  forEachFilesDialect(t, "eicar", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const v = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "eicar.com", bytes: bytesOf(eicarTestString) });
    t.equal(await env.run(scanVersion("ws1", v.id, { attempt: 1, maxAttempts: 3 })), "blocked");
    const node = await db.db.selectFrom("fs_nodes").select("current_version_id").where("id", "=", v.nodeId).executeTakeFirstOrThrow();
    t.equal(node.current_version_id, null, "no current version");
    t.equal((await db.db.selectFrom("outbox").select("id").where("type", "=", "FileVersionPublished").execute()).length, 0, "nothing published");
  }),
);

t.test("a scan that keeps failing retries, then ends scan_failed on the last attempt, never published", (t) =>
  forEachFilesDialect(t, "scan failed", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const v = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("data") });
    // A scanner that reads the bytes and then cannot answer.
    const down = Effect.provideService(Scanner, { scan: (content) => Effect.zipRight(Stream.runDrain(content), Effect.fail(new ScannerUnavailable({ detail: "engine down" }))) });
    const early = await env.attempt(scanVersion("ws1", v.id, { attempt: 1, maxAttempts: 3 }).pipe(down));
    t.match(early, { ok: false, error: { _tag: "ScannerUnavailable" } }, "an early attempt fails so the job retries");
    t.equal(await env.run(scanVersion("ws1", v.id, { attempt: 3, maxAttempts: 3 }).pipe(down)), "scan_failed", "the last attempt gives up explicitly");
    const row = await db.db.selectFrom("fs_file_versions").select(["status", "is_current"]).where("id", "=", v.id).executeTakeFirstOrThrow();
    t.match(row, { status: "scan_failed" });
  }),
);

/*
 * Spec (States): "quarantined version | scan fails or times out | stays quarantined | bounded
 * retries, then the explicit blocked or manual state". A scanner that never answers is a scan that
 * times out: each attempt ends after FilesSettings.scanTimeoutMs as a failed attempt (the job
 * retries), and the last one ends `scan_failed`. Time is the test clock's: the scan runs on a
 * TestClock moved forward by the timeout until the attempt ends (at most 50 steps).
 */
t.test("a scan that times out stays quarantined and is retried, then ends scan_failed on the last attempt", (t) =>
  forEachFilesDialect(t, "scan timeout", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const v = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("data") });
    // A scanner that reads the bytes and then never answers.
    const hung = Effect.provideService(Scanner, { scan: (content) => Effect.zipRight(Stream.runDrain(content), Effect.never) });
    /** One attempt on the test clock, moved on by the timeout until the attempt ends; None if it never does. */
    const attemptOnTestClock = (attempt: number) =>
      env.runtime.runPromise(
        Effect.gen(function* () {
          const fiber = yield* Effect.fork(scanVersion("ws1", v.id, { attempt, maxAttempts: 3 }).pipe(hung));
          for (let step = 0; step < 50; step++) {
            const done = yield* Fiber.poll(fiber);
            if (Option.isSome(done)) return done;
            yield* TestClock.adjust(Duration.millis(testSettings.scanTimeoutMs));
            // Let the database work of the attempt go on (real I/O, not the clock).
            yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)));
          }
          yield* Fiber.interrupt(fiber);
          return Option.none();
        }).pipe(Effect.provide(TestContext.TestContext)),
      );
    const status = async () => (await db.db.selectFrom("fs_file_versions").select("status").where("id", "=", v.id).executeTakeFirstOrThrow()).status;

    const early = await attemptOnTestClock(1);
    t.ok(Option.isSome(early), "an attempt whose scanner never answers ends");
    t.ok(Option.isSome(early) && Exit.isFailure(early.value), "as a failure, so the job retries it");
    t.match(Option.isSome(early) && Exit.isFailure(early.value) ? String(early.value.cause) : "", /ScannerUnavailable/, "the scanner counts as unavailable");
    t.equal(await status(), "quarantined", "the version stays quarantined");
    const last = await attemptOnTestClock(3);
    t.match(Option.isSome(last) && Exit.isSuccess(last.value) ? last.value.value : null, "scan_failed", "the last attempt gives up explicitly");
    t.equal(await status(), "scan_failed", "the explicit state, never published");
  }),
);

t.test("a blocked version cannot be published by a scan, and the version machine refuses illegal moves", (t) =>
  forEachFilesDialect(t, "machine", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const v = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "eicar.com", bytes: bytesOf(eicarTestString) });
    await env.run(scanVersion("ws1", v.id, { attempt: 1, maxAttempts: 3 }));
    const blocked = { ...v, status: "blocked" as const };
    t.match(await env.attempt(applyVersionTrigger(blocked, "scan_clean", null, "x")), { ok: false, error: { code: "illegal_transition" } });
  }),
);

t.test("the database keeps one current version per file, and only a published one", (t) =>
  forEachFilesDialect(t, "current constraint", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const v1 = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("first") });
    const v2 = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("second"), nodeId: v1.nodeId });
    const yes = db.dialect === "sqlite" ? sql`1` : sql`true`;
    await t.rejects(sql`UPDATE fs_file_versions SET is_current = ${yes} WHERE id = ${v2.id}`.execute(db.db), "a quarantined version cannot be current");
    await t.rejects(
      sql`UPDATE fs_file_versions SET status = 'published', published_at = created_at, is_current = ${yes} WHERE id = ${v2.id}`.execute(db.db),
      "a second current version is refused",
    );
  }),
);

/**
 * Spec (What the service does): "A file has many immutable versions and exactly one current
 * published version" — and (States) a clean verdict makes a version current. A scan that
 * finishes out of order (v2's retried scan after v3 was published) publishes v2 into the
 * history but never replaces the newer current version.
 */
t.test("out-of-order scans: the newest published version stays current", (t) =>
  forEachFilesDialect(t, "out of order", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const v1 = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("first") });
    const v2 = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("second"), nodeId: v1.nodeId });
    const v3 = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("third!"), nodeId: v1.nodeId });
    t.equal(await env.run(scanVersion("ws1", v3.id, { attempt: 1, maxAttempts: 3 })), "published", "v3 scanned first");
    const before = await db.db.selectFrom("fs_nodes").selectAll().where("id", "=", v1.nodeId).executeTakeFirstOrThrow();
    const changesBefore = (await db.db.selectFrom("fs_changes").select("seq").execute()).length;
    t.equal(await env.run(scanVersion("ws1", v2.id, { attempt: 2, maxAttempts: 3 })), "published", "v2's late scan still publishes it into the history");
    const yes = db.dialect === "sqlite" ? sql<boolean>`1` : sql<boolean>`true`;
    const current = await db.db.selectFrom("fs_file_versions").select(["id"]).where("node_id", "=", v1.nodeId).where("is_current", "=", yes).execute();
    t.same(current.map((c) => c.id), [v3.id], "v3 is still the one current version");
    const node = await db.db.selectFrom("fs_nodes").selectAll().where("id", "=", v1.nodeId).executeTakeFirstOrThrow();
    t.match(node, { current_version_id: v3.id, size_bytes: 6, sha256: before.sha256, version: before.version }, "the node still mirrors v3, unchanged");
    t.equal((await db.db.selectFrom("fs_changes").select("seq").execute()).length, changesBefore, "no change record claims v2 became current");
    const v2row = await db.db.selectFrom("fs_file_versions").select(["status"]).where("id", "=", v2.id).executeTakeFirstOrThrow();
    t.equal(v2row.status, "published");
  }),
);

/**
 * Spec (What the service does): "exactly one current published version" — under racing scans
 * (Postgres: real parallel connections; SQLite serializes): whatever order they commit in, the
 * newest version ends current and the node mirrors it.
 */
t.test("racing scans of several versions: the newest ends current [postgres races, sqlite serializes]", (t) =>
  forEachFilesDialect(t, "racing scans", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const v1 = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("v1") });
    const waiting = [];
    for (const n of [2, 3, 4, 5]) waiting.push(await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf(`version ${n}`), nodeId: v1.nodeId }));
    const outcomes = await Promise.all([...waiting].reverse().map((v) => env.run(scanVersion("ws1", v.id, { attempt: 1, maxAttempts: 3 }))));
    t.same(outcomes, ["published", "published", "published", "published"], "every scan publishes");
    const newest = waiting[waiting.length - 1]!;
    const yes = db.dialect === "sqlite" ? sql<boolean>`1` : sql<boolean>`true`;
    const current = await db.db.selectFrom("fs_file_versions").select(["id"]).where("node_id", "=", v1.nodeId).where("is_current", "=", yes).execute();
    t.same(current.map((c) => c.id), [newest.id], "the newest is the one current version");
    const node = await db.db.selectFrom("fs_nodes").select(["current_version_id", "sha256"]).where("id", "=", v1.nodeId).executeTakeFirstOrThrow();
    t.same([node.current_version_id, node.sha256], [newest.id, newest.sha256], "the node mirrors it");
  }),
);
