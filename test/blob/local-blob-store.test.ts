/**
 * Object store grants (spec: "Presigned storage operations bind the object key, method, size or
 * checksum, and expiry"; "Upload URLs are signed, short-lived and constrained by key and size"):
 * the local blob store's handler accepts exactly the granted bytes and refuses expired, forged,
 * wrong-method, wrong-size, wrong-checksum and wrong-type requests with problem+json, storing
 * nothing; a download grant serves the object; a grant issued under a condition is honoured only
 * while its issuer's check (the GrantChecks port) says it holds. No database is involved.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Effect, Layer, ManagedRuntime, Stream } from "effect";
import t from "tap";
import { mountBlobGrantHandler } from "../../adapters/blob/BlobGrantHandler.js";
import { makeLocalBlobStore, type LocalBlobStore } from "../../adapters/blob/LocalBlobStore.js";
import { signGrant } from "../../adapters/blob/BlobGrant.js";
import { createKoaApp } from "../../adapters/koa/App.js";
import { createLogger } from "../../adapters/koa/Logging.js";
import { startHttpServer } from "../../adapters/koa/Server.js";
import { DomainError } from "../../core/kernel/Errors.js";
import { GrantChecks, type GrantCondition } from "../../ports/GrantChecks.js";
import type { ObjectGrant } from "../../ports/ObjectStore.js";

const secret = "blob-unit-test-secret-0123456789abcdefgh";
const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The local store behind its handler, on a runtime of `services` (none by default: no GrantChecks bound). */
const startStore = async (tt: { teardown: (fn: () => unknown) => unknown }, services: Layer.Layer<never> | Layer.Layer<GrantChecks> = Layer.empty) => {
  const dir = mkdtempSync(path.join(tmpdir(), "domainkit-blobs-"));
  tt.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const clock = { offsetMs: 0 };
  const store: LocalBlobStore = makeLocalBlobStore({ dir, signingSecret: secret, now: () => Date.now() + clock.offsetMs });
  const runtime = ManagedRuntime.make(services);
  const logger = createLogger({ level: "silent" });
  const app = createKoaApp({ logger, runtime, routes: [], openApi: false, configureRouter: (r) => mountBlobGrantHandler(r, store) });
  const http = await startHttpServer(app, { port: 0, onClose: () => runtime.dispose() });
  tt.teardown(() => http.close());
  const send = async (grant: Pick<ObjectGrant, "url" | "method"> & { headers?: Record<string, string> }, body?: RequestInit["body"], extra: RequestInit = {}) => {
    const response = await fetch(`${http.url}${grant.url}`, { method: grant.method, headers: grant.headers ?? {}, ...(body === undefined ? {} : { body }), ...extra });
    const bytes = Buffer.from(await response.arrayBuffer());
    const type = response.headers.get("content-type") ?? "";
    return { status: response.status, type, bytes, json: type.includes("json") && bytes.length > 0 ? JSON.parse(bytes.toString()) : undefined, headers: response.headers };
  };
  const grantUpload = (key: string, bytes: Uint8Array, ttlMs = 60_000, contentType = "text/plain") =>
    Effect.runPromise(store.grantUpload({ key, size: bytes.length, sha256: sha(bytes), contentType, ttlMs }));
  return { store, clock, send, grantUpload };
};

const bytes = new TextEncoder().encode("hello, object store\n");

t.test("an upload grant accepts exactly the bound bytes, and a download grant serves them", async (t) => {
  const { store, send, grantUpload } = await startStore(t);
  const grant = await grantUpload("pm/ws/attachments/a1", bytes);
  t.equal(grant.method, "PUT");
  t.match(grant.url, /^\/v1\/blobs\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  t.same(grant.headers, { "Content-Type": "text/plain" });
  const put = await send(grant, bytes);
  t.equal(put.status, 201);
  t.same(put.json, { key: "pm/ws/attachments/a1", size: bytes.length, sha256: sha(bytes) });
  t.same(await Effect.runPromise(store.stat("pm/ws/attachments/a1")), { key: "pm/ws/attachments/a1", size: bytes.length, sha256: sha(bytes) });
  const again = await send(grant, bytes);
  t.equal(again.status, 201, "the same bytes again are harmless (same key, same checksum)");

  const download = await Effect.runPromise(store.grantDownload({ key: "pm/ws/attachments/a1", contentType: "text/plain", filename: "hé llo.txt", ttlMs: 60_000 }));
  const got = await send(download);
  t.equal(got.status, 200);
  t.same(got.bytes, Buffer.from(bytes));
  t.match(got.type, /^text\/plain/);
  t.equal(got.headers.get("x-content-type-options"), "nosniff");
  t.match(got.headers.get("content-disposition"), /^attachment; filename="h_ llo.txt"; filename\*=UTF-8''h%C3%A9%20llo.txt$/);
  t.equal(await Effect.runPromise(store.remove("pm/ws/attachments/a1")), true);
  t.equal((await send(download)).status, 404, "a removed object is gone");
  t.equal(await Effect.runPromise(store.remove("pm/ws/attachments/a1")), false, "removing again is a no-op");
});

t.test("expired, forged and wrong-method grants are refused with problem+json", async (t) => {
  const { store, clock, send, grantUpload } = await startStore(t);
  const grant = await grantUpload("k/expiring", bytes, 1_000);
  clock.offsetMs = 2_000;
  const expired = await send(grant, bytes);
  t.equal(expired.status, 403);
  t.match(expired.type, /^application\/problem\+json/);
  t.equal(expired.json.code, "grant_expired");
  clock.offsetMs = 0;

  const [payload, signature] = grant.url.slice("/v1/blobs/".length).split(".");
  const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
  const bigger = Buffer.from(JSON.stringify({ ...claims, s: claims.s + 1000 })).toString("base64url");
  const edited = await send({ ...grant, url: `/v1/blobs/${bigger}.${signature}` }, bytes);
  t.equal(edited.status, 403, "editing the size invalidates the signature");
  t.equal(edited.json.code, "invalid_grant");
  const otherKey = signGrant("another-secret-that-is-long-enough-000000", { k: "k/expiring", m: "PUT", e: Date.now() + 60_000, s: bytes.length, h: sha(bytes), t: "text/plain" });
  const foreign = await send({ ...grant, url: `/v1/blobs/${otherKey}` }, bytes);
  t.equal(foreign.json.code, "invalid_grant", "a grant signed with another secret is forged");
  t.equal((await send({ ...grant, url: "/v1/blobs/garbage" }, bytes)).json.code, "invalid_grant");

  const asDownload = await send({ url: grant.url, method: "GET" });
  t.equal(asDownload.status, 403);
  t.equal(asDownload.json.code, "grant_method_mismatch", "an upload grant cannot download");
  t.equal(await Effect.runPromise(store.stat("k/expiring")), null, "nothing was stored");
});

t.test("wrong size, wrong checksum and wrong content type store nothing", async (t) => {
  const { store, send, grantUpload } = await startStore(t);
  const grant = await grantUpload("k/strict", bytes);
  const longer = await send(grant, Buffer.concat([bytes, Buffer.from("extra")]));
  t.equal(longer.status, 413);
  t.equal(longer.json.code, "size_mismatch");
  const shorter = await send(grant, bytes.subarray(0, 5));
  t.equal(shorter.status, 422);
  t.equal(shorter.json.code, "size_mismatch");
  const tampered = Buffer.from(bytes);
  tampered[0] = tampered[0]! ^ 1;
  const checksum = await send(grant, tampered);
  t.equal(checksum.status, 422);
  t.equal(checksum.json.code, "checksum_mismatch");
  const wrongType = await send({ ...grant, headers: { "Content-Type": "text/html" } }, bytes);
  t.equal(wrongType.status, 422);
  t.equal(wrongType.json.code, "content_type_mismatch");
  // A chunked body (no Content-Length) is cut off as soon as it exceeds the grant.
  const chunks = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.enqueue(bytes);
      controller.close();
    },
  });
  const streamed = await send(grant, chunks, { duplex: "half" } as RequestInit);
  t.equal(streamed.status, 413);
  t.equal(streamed.json.code, "size_mismatch");
  t.equal(await Effect.runPromise(store.stat("k/strict")), null, "no refused upload left an object behind");
  t.equal((await send(grant, bytes)).status, 201, "the exact bytes are still accepted");
});

t.test("server-side put and read round-trip through a stream; keys cannot escape the folder", async (t) => {
  const { store } = await startStore(t);
  const lines = Stream.fromIterable(["a\n", "b\n"]).pipe(Stream.map((s) => new TextEncoder().encode(s)));
  const stored = await Effect.runPromise(store.put("exports/x.jsonl", lines));
  t.same(stored, { key: "exports/x.jsonl", size: 4, sha256: sha(Buffer.from("a\nb\n")) });
  const content = await Effect.runPromise(store.read("exports/x.jsonl"));
  const chunks = await Effect.runPromise(Stream.runCollect(content!));
  t.equal(Buffer.concat([...chunks]).toString(), "a\nb\n");
  t.equal(await Effect.runPromise(store.read("exports/missing")), null);
  for (const key of ["../etc/passwd", "a/../../b", "/abs", "a//b", ""]) {
    t.throws(() => Effect.runSync(store.grantUpload({ key, size: 1, sha256: "0".repeat(64), contentType: "text/plain", ttlMs: 1000 })), `key ${JSON.stringify(key)} is refused`);
  }
});

/** The refusal of the test issuer's check. */
class TestRefusal extends DomainError("TestRefusal", "test_refused", "conflict")<{}> {}

t.test("a grant issued under a condition moves no byte unless its issuer's check holds; unchecked issuers and hosts without checks are served as before", async (t) => {
  const verdict = { holds: true, defect: false, asked: [] as Array<GrantCondition["claim"]> };
  const checks = Layer.succeed(GrantChecks, {
    forIssuer: (issuer) =>
      issuer !== "test"
        ? undefined
        : {
            issuer,
            holds: (claim) =>
              Effect.suspend(() => {
                verdict.asked.push(claim);
                if (verdict.defect) return Effect.die(new Error("the check's database is down"));
                return verdict.holds ? Effect.void : Effect.fail(new TestRefusal({ detail: "no longer" }));
              }),
          },
  });
  const { store, send } = await startStore(t, checks);
  const condition: GrantCondition = { issuer: "test", claim: { session: "s1", epoch: 3 } };
  const upload = (key: string, c: GrantCondition = condition) =>
    Effect.runPromise(store.grantUpload({ key, size: bytes.length, sha256: sha(bytes), contentType: "text/plain", ttlMs: 60_000, condition: c }));

  t.equal((await send(await upload("c/held"), bytes)).status, 201, "stored while the condition holds");
  t.same(verdict.asked, [{ session: "s1", epoch: 3 }, { session: "s1", epoch: 3 }], "the issuer is asked with the claim as issued: before the body, and before keeping it");
  const download = await Effect.runPromise(store.grantDownload({ key: "c/held", contentType: "text/plain", filename: "a.txt", ttlMs: 60_000, condition }));
  t.same((await send(download)).bytes, Buffer.from(bytes), "served while it holds");

  verdict.holds = false;
  const refusedPut = await send(await upload("c/refused"), bytes);
  t.match(refusedPut, { status: 409, type: /^application\/problem\+json/, json: { code: "test_refused", detail: "no longer" } }, "an upload is refused with the check's problem");
  t.equal(await Effect.runPromise(store.stat("c/refused")), null, "and stores nothing");
  const refusedGet = await send(download);
  t.match(refusedGet, { status: 409, type: /^application\/problem\+json/, json: { code: "test_refused" } }, "a download is refused");
  t.notOk(refusedGet.bytes.includes(Buffer.from(bytes)), "and sends no byte of the object");
  t.equal((await send(await upload("c/other", { issuer: "nobody-checks", claim: {} }), bytes)).status, 201, "an issuer with no check is served as before");

  verdict.defect = true;
  const broken = await send(download);
  t.match(broken, { status: 500, json: { code: "internal_error" } }, "a check that cannot run serves nothing");

  verdict.holds = true;
  verdict.defect = false;
  const grant = await upload("c/edited");
  const [payload, signature] = grant.url.slice("/v1/blobs/".length).split(".");
  const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
  const edited = Buffer.from(JSON.stringify({ ...claims, c: { issuer: "nobody-checks", claim: {} } })).toString("base64url");
  t.match(await send({ ...grant, url: `/v1/blobs/${edited}.${signature}` }, bytes), { status: 403, json: { code: "invalid_grant" } }, "the condition cannot be edited out");

  const unchecked = await startStore(t);
  const there = await Effect.runPromise(unchecked.store.grantUpload({ key: "c/plain", size: bytes.length, sha256: sha(bytes), contentType: "text/plain", ttlMs: 60_000, condition }));
  t.equal((await unchecked.send(there, bytes)).status, 201, "a host without GrantChecks serves the grant as its signature and expiry allow");
});
