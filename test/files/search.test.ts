/**
 * Spec (background work): "search indexing"; (Events) FileVersionPublished goes "to preview,
 * search, sync", NodeDeleted "to sync, search removal". GET /v1/workspaces/:id/drive/search finds
 * the drive's nodes by name and by the text of their current text-like version once the indexer
 * ran (eventually consistent), answers only nodes the caller can see, filtered before the limit,
 * leaves trashed nodes out at once and brings restored ones back, never matches the text of a
 * version that is not the current published one, keeps pages stable, and a repeated or late
 * change leaves the document as the node is now — SQLite and Postgres, over the reference server
 * with its worker off (the test drains the outbox and the jobs).
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { Effect } from "effect";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { searchIndexingConsumer } from "../../core/files/SearchIndexing.js";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { eicarTestString } from "../../adapters/scanner/SignatureScanner.js";
import { Transactions } from "../../ports/Transactions.js";
import { dialects, type Dialect, type HasTeardown } from "../support/databases.js";
import { hostSecret } from "../hosts/support.js";
import { startFilesServer, type Json, type User, eachDialect } from "./http-support.js";
import { bytesOf } from "./support.js";

const partSize = 8 * 1024 * 1024;

/** The reference server with its worker off, and search helpers. */
const searchServer = async (t: HasTeardown, dialect: Dialect, env: Record<string, string> = {}) => {
  const files = await startFilesServer(t, dialect, { WORKER_IN_PROCESS: "false", ...env });
  const search = (user: User, workspaceId: string, q: string, extra = "") =>
    files.call(`/v1/workspaces/${workspaceId}/drive/search?q=${encodeURIComponent(q)}${extra}`, { user });
  /** The names of every node `user` finds for `q` (one page of 200). */
  const found = async (user: User, workspaceId: string, q: string): Promise<string[]> => {
    const answer = await search(user, workspaceId, q, "&limit=200");
    if (answer.status !== 200) throw new Error(`search: ${answer.status} ${JSON.stringify(answer.body)}`);
    return (answer.body.data as Json[]).map((n) => String(n.name)).sort();
  };
  const folder = async (user: User, parentId: string, name: string): Promise<Json> => {
    const created = await files.call("/v1/nodes", { user, body: { parent_id: parentId, name, kind: "folder" } });
    if (created.status !== 201) throw new Error(`folder: ${created.status} ${JSON.stringify(created.body)}`);
    return created.body;
  };
  /** Uploads a text file (a new version of `nodeId` when given); answers its node id and version id. */
  const textFile = async (user: User, parentId: string, name: string, text: string, nodeId?: string) => {
    const version = await files.upload(user, parentId, name, bytesOf(text), partSize, nodeId === undefined ? {} : { node_id: nodeId });
    if (version.status !== 202) throw new Error(`upload: ${version.status} ${JSON.stringify(version.body)}`);
    return { nodeId: String(version.body.node_id), versionId: String(version.body.id) };
  };
  return { ...files, search, found, folder, textFile };
};

const operatorId = randomUUID();

/**
 * One such server per dialect (with a security operator), shared by every claim below (each makes
 * its own users and workspace, and drains before it reads), both started at once; closed when the
 * file's tests end.
 */
const servers = new Map(dialects.map((dialect) => [dialect, searchServer(t, dialect, { FILES_SECURITY_OPERATORS: operatorId })] as const));
const serverOf = (dialect: Dialect) => servers.get(dialect)!;

t.test("a published file is found by its name and the words of its text once indexed; a quarantined or blocked version's text never is", { jobs: 2 }, (t) =>
  eachDialect(t, "search indexing", async (t, dialect) => {
    const s = await serverOf(dialect);
    const operator: User = { id: operatorId, token: await mintToken({ secret: hostSecret, userId: operatorId, ttlSeconds: 600 }) };
    const ann = await s.user();
    const ws = await s.workspace(ann);
    const reports = await s.folder(ann, ws.root, "Reports");
    const file = await s.textFile(ann, String(reports.id), "Q3-summary.txt", "The zebra crossing budget, in euros.");
    t.same(await s.found(ann, ws.id, "zebra"), [], "nothing before the indexer ran (eventually consistent)");
    await s.drain();
    t.same(await s.found(ann, ws.id, "zebra"), ["Q3-summary.txt"], "a word of the text");
    t.same(await s.found(ann, ws.id, "summ"), ["Q3-summary.txt"], "a word of the name, as a prefix");
    t.same(await s.found(ann, ws.id, "q3 BUDGET"), ["Q3-summary.txt"], "every word, from the name and the text, in any case");
    t.same(await s.found(ann, ws.id, "zebra giraffe"), [], "every word must match");
    t.same(await s.found(ann, ws.id, "reports"), ["Reports"], "folders by their name");
    t.match(await s.search(ann, ws.id, "zebra"), { status: 200, body: { data: [{ id: file.nodeId, kind: "file", name: "Q3-summary.txt", parent_id: reports.id }], next_cursor: null } }, "hits are nodes");

    // A second version, still quarantined (its scan has not run): its words are not searchable.
    const second = await s.upload(ann, String(reports.id), "Q3-summary.txt", bytesOf("The quagga herd."), partSize, { node_id: file.nodeId });
    t.equal(second.status, 202);
    t.same(await s.found(ann, ws.id, "quagga"), [], "a quarantined version's text is not found");
    t.same(await s.found(ann, ws.id, "zebra"), ["Q3-summary.txt"], "the current version's still is");
    await s.drain();
    t.same(await s.found(ann, ws.id, "quagga"), ["Q3-summary.txt"], "once published and indexed, the new text");
    t.same(await s.found(ann, ws.id, "zebra"), [], "and the old version's text is gone");

    // An operator blocks the current version: the file falls back to the first one.
    const blocked = await s.call(`/v1/operator/file-versions/${String(second.body.id)}/review`, { user: operator, body: { decision: "block", reason: "reported" } });
    t.equal(blocked.status, 200);
    t.same(await s.found(ann, ws.id, "quagga"), [], "a blocked version's text is not found, at once");
    t.same(await s.found(ann, ws.id, "summary"), ["Q3-summary.txt"], "the name still is");
    await s.drain();
    t.same(await s.found(ann, ws.id, "zebra"), ["Q3-summary.txt"], "the current version's text again, once indexed");

    // Infected bytes never become current: their words are never found.
    await s.upload(ann, ws.root, "notes.txt", bytesOf(`okapi ${eicarTestString}`), partSize);
    await s.drain();
    t.same(await s.found(ann, ws.id, "okapi"), [], "an infected upload's text is never indexed");
  }),
);

t.test("a renamed node is found by its new name and not its old; a trashed node is gone at once and back when restored", { jobs: 2 }, (t) =>
  eachDialect(t, "search rename and trash", async (t, dialect) => {
    const s = await serverOf(dialect);
    const ann = await s.user();
    const ws = await s.workspace(ann);
    const plans = await s.folder(ann, ws.root, "Plans");
    const file = await s.textFile(ann, String(plans.id), "draft.txt", "The walrus strategy.");
    await s.drain();
    t.same(await s.found(ann, ws.id, "draft"), ["draft.txt"]);
    const renamed = await s.call(`/v1/nodes/${file.nodeId}`, { user: ann, method: "PATCH", body: { name: "final-memo.txt" }, headers: { "If-Match": '"2"' } });
    t.equal(renamed.status, 200, JSON.stringify(renamed.body));
    await s.drain();
    t.same(await s.found(ann, ws.id, "memo"), ["final-memo.txt"], "found by its new name");
    t.same(await s.found(ann, ws.id, "draft"), [], "not by its old one");
    t.same(await s.found(ann, ws.id, "walrus"), ["final-memo.txt"], "its text stays indexed");

    t.equal((await s.call(`/v1/nodes/${String(plans.id)}`, { user: ann, method: "DELETE" })).status, 204);
    t.same(await s.found(ann, ws.id, "walrus"), [], "a node trashed with its folder is gone at once");
    t.same(await s.found(ann, ws.id, "plans"), [], "and the trashed folder");
    await s.drain();
    t.same(await s.found(ann, ws.id, "walrus"), [], "and stays gone");
    t.equal((await s.call(`/v1/nodes/${String(plans.id)}/restore`, { user: ann, method: "POST" })).status, 200);
    t.same(await s.found(ann, ws.id, "walrus"), ["final-memo.txt"], "restored, it is found again at once");
    t.same(await s.found(ann, ws.id, "plans"), ["Plans"]);
  }),
);

t.test("search answers only the nodes the caller can see, filtered before the limit; another tenant's drive is 404; a query without words is 422", { jobs: 2 }, (t) =>
  eachDialect(t, "search authorization", async (t, dialect) => {
    const s = await serverOf(dialect);
    const ann = await s.user();
    const ben = await s.user();
    const eve = await s.user();
    const ws = await s.workspace(ann, [ben]);
    const other = await s.workspace(eve);
    const shared = await s.folder(ann, ws.root, "Shared lynx");
    await s.folder(ann, String(shared.id), "lynx inside");
    // Newer hidden hits than the visible ones: a limit applied before the filter would answer nothing.
    const secret = await s.folder(ann, ws.root, "Secret lynx");
    for (let i = 0; i < 3; i++) await s.folder(ann, String(secret.id), `lynx ${i}`);
    await s.folder(eve, other.root, "lynx of eve");
    await s.drain();
    t.equal((await s.found(ann, ws.id, "lynx")).length, 6, "the owner finds every node she was granted (as creator)");
    t.same(await s.found(ben, ws.id, "lynx"), [], "a member without a grant finds nothing");
    t.equal((await s.call(`/v1/nodes/${String(shared.id)}/permissions`, { user: ann, body: { user_id: ben.id, role: "viewer" } })).status, 200);
    t.same(await s.found(ben, ws.id, "lynx"), ["Shared lynx", "lynx inside"], "granted a folder: it and what is below it");
    const page = await s.search(ben, ws.id, "lynx", "&limit=1");
    t.match(page, { status: 200, body: { data: [{ name: "lynx inside" }] } }, "the first page is filled from what he can see (newest first)");
    t.notSame(page.body.next_cursor, null);
    t.same(await s.found(ann, ws.id, "eve"), [], "another workspace's nodes never");
    t.match(await s.search(eve, ws.id, "lynx"), { status: 404, body: { code: "not_found" } }, "another tenant's drive: 404");
    t.match(await s.search(ben, other.id, "lynx"), { status: 404 }, "a non-member: 404");
    const empty = await s.search(ann, ws.id, " ?! ");
    t.match(empty, { status: 422, body: { code: "validation_failed", errors: [{ path: "q" }] } }, "a query without words: 422");
    t.match(empty.headers.get("content-type"), /application\/problem\+json/);
    t.match(await s.search(ann, ws.id, "lynx", "&cursor=not-a-cursor"), { status: 400, body: { code: "invalid_cursor" } });
  }),
);

t.test("search pages are stable: newest first, no repeats or gaps, while matching nodes are added", { jobs: 2 }, (t) =>
  eachDialect(t, "search pages", async (t, dialect) => {
    const s = await serverOf(dialect);
    const ann = await s.user();
    const ws = await s.workspace(ann);
    for (let i = 0; i < 7; i++) await s.folder(ann, ws.root, `heron ${i}`);
    await s.drain();
    const all = await s.search(ann, ws.id, "heron", "&limit=50");
    const allIds = (all.body.data as Json[]).map((n) => String(n.id));
    t.equal(allIds.length, 7);
    t.same(allIds, [...allIds].sort().reverse(), "newest first (ids are time-ordered)");
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof s.search>> = await s.search(ann, ws.id, "heron", `&limit=3${cursor === null ? "" : `&cursor=${cursor}`}`);
      seen.push(...(page.body.data as Json[]).map((n) => String(n.id)));
      cursor = page.body.next_cursor as string | null;
      if (pages++ === 0) {
        // A matching node added after the first page is newer than every cursor: later pages do not shift.
        await s.folder(ann, ws.root, "heron late");
        await s.drain();
      }
    } while (cursor !== null);
    t.same(seen, allIds, "the pages equal the single page");
  }),
);

t.test("a repeated or late change, replayed in any order, leaves the document as the node is now", { jobs: 2 }, (t) =>
  eachDialect(t, "search stale changes", async (t, dialect) => {
    const s = await serverOf(dialect);
    const ann = await s.user();
    const ws = await s.workspace(ann);
    const node = await s.folder(ann, ws.root, "Alpha");
    await s.drain();
    const renamed = await s.call(`/v1/nodes/${String(node.id)}`, { user: ann, method: "PATCH", body: { name: "Bravo" }, headers: { "If-Match": '"1"' } });
    t.equal(renamed.status, 200);
    await s.drain();
    t.same(await s.found(ann, ws.id, "bravo"), ["Bravo"]);
    const db = s.server.core.database;
    const rows = await db.db.selectFrom("outbox").select(["event"]).where("type", "=", "DriveChanged").orderBy("seq").execute();
    const events = rows.map((r) => featuresFor(db).jsonFromDb(r.event) as EventEnvelope).filter((e) => e.tenant_id === ws.id);
    t.equal(events.length, 2, "the creation's change and the rename's");
    // Replayed, newest first: each change brings the node in as it is now (and an older change than the document's is refused).
    for (const event of [...events].reverse()) {
      await s.server.core.runtime.runPromise(Effect.flatMap(Transactions, (tx) => tx.run(searchIndexingConsumer.handle(event))));
    }
    t.same(await s.found(ann, ws.id, "bravo"), ["Bravo"], "the newer name stays");
    t.same(await s.found(ann, ws.id, "alpha"), [], "the old one does not come back");
  }),
);
