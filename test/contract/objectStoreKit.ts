/**
 * Contract kit for the ObjectStore port: what every store answers for put / stat / read / remove,
 * that an upload grant stores exactly the bound bytes and a download grant serves them (with one
 * `Range`), and — for stores declaring `multipart` — that parts PUT to their grants are
 * assembled by the store into one object whose size and SHA-256 the store reports. Capabilities
 * the store declares gate the rest: `verifiesGrantSignatures` (a tampered grant is refused;
 * s3rver does not check signatures), `verifiesUploadChecksum` (bytes that do not hash to the
 * bound SHA-256 are refused at upload). Grant-binding rules in full (key, method, size, expiry,
 * tampering) are proven on the local store's grants (test/blob/local-blob-store.test.ts).
 */
import { createHash } from "node:crypto";
import { Effect, Exit, Stream } from "effect";
import type { ObjectGrant, ObjectStore } from "../../ports/ObjectStore.js";
import type { KitAssert, KitTestFunction } from "./Kit.js";

/** Optional behaviour a store declares. */
export interface ObjectStoreCapabilities {
  /** Native multipart uploads (`store.multipart`). */
  readonly multipart: boolean;
  /** A grant whose signature was edited is refused. */
  readonly verifiesGrantSignatures: boolean;
  /** An upload whose bytes do not hash to the grant's SHA-256 is refused and stores nothing. */
  readonly verifiesUploadChecksum: boolean;
}

/** A fresh, empty store; `baseUrl` resolves root-relative grant URLs. */
export interface ObjectStoreUnderTest {
  readonly store: ObjectStore;
  readonly baseUrl: string;
  readonly close: () => Promise<void>;
}

/** What `objectStoreSuite` takes. */
export interface ObjectStoreSuiteOptions {
  readonly test: KitTestFunction;
  readonly factory: () => Promise<ObjectStoreUnderTest>;
  readonly supports?: Partial<ObjectStoreCapabilities>;
}

/** One case of the kit. */
export interface ObjectStoreCase {
  readonly name: string;
  readonly requires?: ReadonlyArray<keyof ObjectStoreCapabilities>;
  readonly run: (t: KitAssert, subject: ObjectStoreUnderTest) => Promise<void>;
}

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");
const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(effect);

/** Sends `body` as a client would with `grant` (plus `extra` headers). */
const send = (subject: ObjectStoreUnderTest, grant: ObjectGrant, body?: Uint8Array, extra: Record<string, string> = {}): Promise<Response> =>
  fetch(grant.url.startsWith("http") ? grant.url : `${subject.baseUrl}${grant.url}`, {
    method: grant.method,
    headers: { ...grant.headers, ...extra },
    ...(body === undefined ? {} : { body }),
  });

/** Every byte of the object at `key`, or null. */
const readAll = async (store: ObjectStore, key: string): Promise<Uint8Array | null> => {
  const stream = await run(store.read(key));
  if (stream === null) return null;
  const chunks = await run(Stream.runCollect(stream));
  return Buffer.concat([...chunks]);
};

/** Bytes of `size` that differ per `seed`. */
const bytesOf = (size: number, seed: number): Uint8Array => new Uint8Array(size).map((_, i) => (i * 31 + seed) % 251);

/** S3's smallest part (every part but the last). */
const minPart = 5 * 1024 * 1024;

/** The cases of the ObjectStore kit. */
export const objectStoreCases: ReadonlyArray<ObjectStoreCase> = [
  {
    name: "object store: put stores the bytes and answers their size and SHA-256; stat and read agree",
    run: async (t, { store }) => {
      const bytes = bytesOf(70_000, 1);
      const stored = await run(store.put("kit/put/a.bin", Stream.make(bytes.subarray(0, 1000), bytes.subarray(1000))));
      t.same(stored, { key: "kit/put/a.bin", size: bytes.length, sha256: sha256(bytes) });
      t.same(await run(store.stat("kit/put/a.bin")), stored, "stat answers the same size and checksum");
      t.same(await readAll(store, "kit/put/a.bin"), Buffer.from(bytes), "read streams the same bytes");
    },
  },
  {
    name: "object store: stat and read answer null for a key that holds nothing",
    run: async (t, { store }) => {
      t.equal(await run(store.stat("kit/none/x")), null);
      t.equal(await readAll(store, "kit/none/x"), null);
    },
  },
  {
    name: "object store: remove deletes the object and is idempotent (true, then false)",
    run: async (t, { store }) => {
      await run(store.put("kit/rm/a", Stream.make(new Uint8Array([1, 2, 3]))));
      t.equal(await run(store.remove("kit/rm/a")), true);
      t.equal(await run(store.stat("kit/rm/a")), null, "gone");
      t.equal(await run(store.remove("kit/rm/a")), false, "deleting again answers false, no error");
    },
  },
  {
    name: "object store: an upload grant stores exactly the bound bytes, verified by stat",
    run: async (t, subject) => {
      const bytes = bytesOf(4096, 2);
      const grant = await run(subject.store.grantUpload({ key: "kit/grant/up", size: bytes.length, sha256: sha256(bytes), contentType: "application/octet-stream", ttlMs: 60_000 }));
      t.equal(grant.method, "PUT");
      t.ok(grant.expiresAt.getTime() > Date.now(), "the grant expires in the future");
      const put = await send(subject, grant, bytes);
      t.ok(put.status >= 200 && put.status < 300, `the store accepts the bytes (${put.status})`);
      t.same(await run(subject.store.stat("kit/grant/up")), { key: "kit/grant/up", size: bytes.length, sha256: sha256(bytes) });
    },
  },
  {
    name: "object store: a download grant serves the bytes with the content type and an attachment name; one Range answers 206",
    run: async (t, subject) => {
      const bytes = bytesOf(10_000, 3);
      await run(subject.store.put("kit/grant/down", Stream.make(bytes)));
      const grant = await run(subject.store.grantDownload({ key: "kit/grant/down", contentType: "text/plain", filename: "report.txt", ttlMs: 60_000 }));
      t.equal(grant.method, "GET");
      const whole = await send(subject, grant);
      t.equal(whole.status, 200);
      t.ok(/^text\/plain/.test(whole.headers.get("content-type") ?? ""), "served as the granted content type");
      t.ok(/^attachment; filename="report.txt"/.test(whole.headers.get("content-disposition") ?? ""), "as an attachment named report.txt");
      t.same(Buffer.from(await whole.arrayBuffer()), Buffer.from(bytes));
      const ranged = await send(subject, grant, undefined, { Range: "bytes=9000-" });
      t.equal(ranged.status, 206, "a resumed download gets the rest");
      t.equal(ranged.headers.get("content-range"), `bytes 9000-9999/10000`);
      t.same(Buffer.from(await ranged.arrayBuffer()), Buffer.from(bytes.subarray(9000)));
    },
  },
  {
    name: "object store: an upload whose bytes do not hash to the bound SHA-256 is refused and stores nothing",
    requires: ["verifiesUploadChecksum"],
    run: async (t, subject) => {
      const bytes = bytesOf(2048, 4);
      const grant = await run(subject.store.grantUpload({ key: "kit/grant/bad", size: bytes.length, sha256: sha256(bytesOf(2048, 5)), contentType: "application/octet-stream", ttlMs: 60_000 }));
      const put = await send(subject, grant, bytes);
      t.ok(put.status >= 400, `refused (${put.status})`);
      t.equal(await run(subject.store.stat("kit/grant/bad")), null, "nothing stored");
    },
  },
  {
    name: "object store: a grant whose signature was edited is refused",
    requires: ["verifiesGrantSignatures"],
    run: async (t, subject) => {
      await run(subject.store.put("kit/grant/sig", Stream.make(new Uint8Array([7]))));
      const grant = await run(subject.store.grantDownload({ key: "kit/grant/sig", contentType: "text/plain", filename: "a", ttlMs: 60_000 }));
      // Not the last character: in base64url its low bits can be padding, so an edit there may decode to the same signature.
      const at = grant.url.length - 5;
      const edited = grant.url[at] === "A" ? "B" : "A";
      const tampered = await send(subject, { ...grant, url: `${grant.url.slice(0, at)}${edited}${grant.url.slice(at + 1)}` });
      t.ok(tampered.status === 403, `refused (${tampered.status})`);
    },
  },
  {
    name: "object store (multipart): parts PUT to their grants are assembled by the store; complete answers the whole object's size and SHA-256",
    requires: ["multipart"],
    run: async (t, subject) => {
      const multipart = subject.store.multipart!;
      const parts = [bytesOf(minPart, 6), bytesOf(1234, 7)];
      const whole = Buffer.concat(parts);
      const key = "kit/mp/object";
      const uploadId = await run(multipart.begin({ key, contentType: "application/octet-stream" }));
      t.ok(uploadId.length > 0, "the store names the upload");
      const received = [];
      // Out of order, as parallel clients send them.
      for (const partNumber of [2, 1]) {
        const bytes = parts[partNumber - 1]!;
        const grant = await run(multipart.grantPart({ key, uploadId, partNumber, size: bytes.length, ttlMs: 60_000 }));
        const put = await send(subject, grant, bytes);
        t.ok(put.status >= 200 && put.status < 300, `part ${partNumber} stored (${put.status})`);
        const etag = put.headers.get("etag");
        t.ok(etag !== null && etag.length > 0, "the store answers the part's ETag");
        received.push({ partNumber, etag: etag ?? "" });
      }
      t.equal(await run(subject.store.stat(key)), null, "no object before complete");
      const stored = await run(multipart.complete({ key, uploadId, parts: received }));
      t.same(stored, { key, size: whole.length, sha256: sha256(whole) });
      t.same(await run(subject.store.stat(key)), stored, "stat agrees");
      const read = await readAll(subject.store, key);
      t.equal(read?.length, whole.length);
      t.ok(read !== null && Buffer.compare(Buffer.from(read), whole) === 0, "the parts in order");
    },
  },
  {
    name: "object store (multipart): completing again after the store completed (a lost response) answers the same object",
    requires: ["multipart"],
    run: async (t, subject) => {
      const multipart = subject.store.multipart!;
      const key = "kit/mp/twice";
      const bytes = bytesOf(3000, 9);
      const uploadId = await run(multipart.begin({ key, contentType: "text/plain" }));
      const grant = await run(multipart.grantPart({ key, uploadId, partNumber: 1, size: bytes.length, ttlMs: 60_000 }));
      const put = await send(subject, grant, bytes);
      const parts = [{ partNumber: 1, etag: put.headers.get("etag") ?? "" }];
      const first = await run(multipart.complete({ key, uploadId, parts }));
      t.same(first, { key, size: bytes.length, sha256: sha256(bytes) });
      t.same(await run(multipart.complete({ key, uploadId, parts })), first, "the same object, no error");
    },
  },
  {
    name: "object store (multipart): abort discards an unfinished upload without error, twice",
    requires: ["multipart"],
    run: async (t, subject) => {
      const multipart = subject.store.multipart!;
      const key = "kit/mp/aborted";
      const uploadId = await run(multipart.begin({ key, contentType: "text/plain" }));
      const grant = await run(multipart.grantPart({ key, uploadId, partNumber: 1, size: 10, ttlMs: 60_000 }));
      await send(subject, grant, bytesOf(10, 8));
      t.ok(Exit.isSuccess(await Effect.runPromiseExit(multipart.abort({ key, uploadId }))), "aborted");
      t.ok(Exit.isSuccess(await Effect.runPromiseExit(multipart.abort({ key, uploadId }))), "aborting again is harmless");
      t.equal(await run(subject.store.stat(key)), null, "no object");
    },
  },
];

/** Registers each case whose capabilities the store declares, each on a fresh store. */
export const objectStoreSuite = (options: ObjectStoreSuiteOptions): Promise<unknown> => {
  const supports: ObjectStoreCapabilities = { multipart: false, verifiesGrantSignatures: false, verifiesUploadChecksum: false, ...options.supports };
  return Promise.all(
    objectStoreCases
      .filter((c) => (c.requires ?? []).every((capability) => supports[capability]))
      .map((c) =>
        options.test(c.name, async (t) => {
          const subject = await options.factory();
          try {
            t.equal(subject.store.multipart !== undefined, supports.multipart, "the store declares multipart exactly when it has it");
            await c.run(t, subject);
          } finally {
            await subject.close();
          }
        }),
      ),
  );
};
