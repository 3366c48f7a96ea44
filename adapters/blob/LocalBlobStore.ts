/**
 * The embedded object store: files under one folder (BLOB_DIR, default DATA_DIR/blobs), with
 * signed, short-lived grants (BlobGrant.ts) that the BlobGrantHandler honours. Layout:
 * `objects/<key>` holds the bytes, `meta/<key>.json` the verified size and SHA-256, `tmp/` the
 * uploads in flight. An object appears only by an atomic rename after its size and checksum were
 * verified, so a reader never sees a partial or unverified object. A grant issued under a
 * condition (GrantChecks.ts) carries it, signed; the grant handler asks its issuer before serving.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat as statFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { Effect, Stream } from "effect";
import type { ObjectGrant, ObjectStore, StoredObject } from "../../ports/ObjectStore.js";
import {
  ChecksumMismatch,
  ContentTypeMismatch,
  SizeMismatch,
  signGrant,
  verifyGrant,
  type GrantClaims,
} from "./BlobGrant.js";

/** How the local store is set up. */
export interface LocalBlobStoreOptions {
  /** The folder holding every object (created on first use). */
  readonly dir: string;
  /** HMAC secret of the grants (BLOB_SIGNING_SECRET); at least 32 characters. */
  readonly signingSecret: string;
  /** Path under which BlobGrantHandler is mounted (default `/v1/blobs`). */
  readonly mountPath?: string;
  /** Prepended to grant URLs (e.g. `https://files.example.com`); root-relative when omitted. */
  readonly publicBaseUrl?: string;
  /** The clock of grant expiry (tests move it); Date.now by default. */
  readonly now?: () => number;
}

/** The local store: the ObjectStore port plus what its grant handler needs. */
export interface LocalBlobStore extends ObjectStore {
  readonly mountPath: string;
  /** Verifies a grant token for `method` now; answers its claims or the typed refusal. */
  readonly verify: (token: string, method: "PUT" | "GET") => ReturnType<typeof verifyGrant>;
  /**
   * Streams an upload to a temp file, refusing it as soon as it exceeds the granted size, then
   * checks size, SHA-256 and content type against the grant and publishes it atomically.
   */
  readonly receive: <Refusal extends Error = never>(
    claims: GrantClaims,
    body: Readable,
    contentType: string | undefined,
    options?: {
      /**
       * Asked once the bytes are verified, before they are kept: an error refuses them (the temp
       * file is removed and the error answered), e.g. the grant's condition stopped holding while
       * the body streamed.
       */
      readonly beforeKeeping?: () => Promise<Refusal | null>;
    },
  ) => Promise<StoredObject | SizeMismatch | ChecksumMismatch | ContentTypeMismatch | Refusal>;
  /** The file of a stored object, or null. */
  readonly fileOf: (key: string) => Promise<{ readonly path: string; readonly size: number } | null>;
}

/** True for the local store (whose grants need its handler), false for another ObjectStore. */
export const isLocalBlobStore = (store: ObjectStore): store is LocalBlobStore => "receive" in store && "verify" in store && "mountPath" in store;

const keyPattern = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** Throws for a key that could escape the store folder; keys come from cores, never from clients. */
export const assertObjectKey = (key: string): void => {
  if (key.length > 512 || !keyPattern.test(key) || key.split("/").some((s) => s === "." || s === "..")) {
    throw new Error(`invalid object key: ${JSON.stringify(key)}`);
  }
};

const mediaType = (value: string | undefined): string => (value ?? "").split(";")[0]!.trim().toLowerCase();

/** Builds the local blob store. */
export const makeLocalBlobStore = (options: LocalBlobStoreOptions): LocalBlobStore => {
  if (options.signingSecret.length < 32) throw new Error("the blob signing secret must be at least 32 characters");
  const now = options.now ?? Date.now;
  const mountPath = (options.mountPath ?? "/v1/blobs").replace(/\/$/, "");
  const base = (options.publicBaseUrl ?? "").replace(/\/$/, "");
  const objectPath = (key: string) => (assertObjectKey(key), path.join(options.dir, "objects", key));
  const metaPath = (key: string) => path.join(options.dir, "meta", `${key}.json`);
  const tmpDir = path.join(options.dir, "tmp");
  const urlOf = (token: string) => `${base}${mountPath}/${token}`;

  const readMeta = async (key: string): Promise<StoredObject | null> => {
    try {
      const meta = JSON.parse(await readFile(metaPath(key), "utf8")) as { size: number; sha256: string };
      await statFile(objectPath(key));
      return { key, size: meta.size, sha256: meta.sha256 };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  };

  /** Moves a verified temp file into place: bytes first, then the metadata that makes it visible. */
  const publish = async (tmp: string, stored: StoredObject): Promise<void> => {
    const target = objectPath(stored.key);
    await mkdir(path.dirname(target), { recursive: true });
    await mkdir(path.dirname(metaPath(stored.key)), { recursive: true });
    await rename(tmp, target);
    const metaTmp = path.join(tmpDir, `${randomBytes(12).toString("hex")}.json`);
    const handle = await open(metaTmp, "w");
    try {
      await handle.writeFile(JSON.stringify({ size: stored.size, sha256: stored.sha256 }));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(metaTmp, metaPath(stored.key));
  };

  /** Writes chunks to a fresh temp file, hashing and counting; `limit` aborts an oversized write. */
  const writeTemp = async (chunks: AsyncIterable<Uint8Array>, limit: number | undefined) => {
    await mkdir(tmpDir, { recursive: true });
    const tmp = path.join(tmpDir, randomBytes(12).toString("hex"));
    const handle = await open(tmp, "wx");
    const hash = createHash("sha256");
    let size = 0;
    try {
      for await (const chunk of chunks) {
        size += chunk.byteLength;
        if (limit !== undefined && size > limit) {
          await handle.close().catch(() => undefined);
          await rm(tmp, { force: true });
          return { tmp: null, size, sha256: "" };
        }
        hash.update(chunk);
        await handle.write(chunk);
      }
      await handle.sync();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await rm(tmp, { force: true });
      throw error;
    }
    await handle.close();
    return { tmp, size, sha256: hash.digest("hex") };
  };

  const store: LocalBlobStore = {
    mountPath,
    grantUpload: (req) =>
      Effect.sync((): ObjectGrant => {
        assertObjectKey(req.key);
        const expiresAt = now() + req.ttlMs;
        const token = signGrant(options.signingSecret, {
          k: req.key,
          m: "PUT",
          e: expiresAt,
          s: req.size,
          h: req.sha256,
          t: req.contentType,
          ...(req.condition !== undefined ? { c: req.condition } : {}),
        });
        return { url: urlOf(token), method: "PUT", headers: { "Content-Type": req.contentType }, expiresAt: new Date(expiresAt) };
      }),
    grantDownload: (req) =>
      Effect.sync((): ObjectGrant => {
        assertObjectKey(req.key);
        const expiresAt = now() + req.ttlMs;
        const token = signGrant(options.signingSecret, {
          k: req.key,
          m: "GET",
          e: expiresAt,
          t: req.contentType,
          f: req.filename,
          ...(req.condition !== undefined ? { c: req.condition } : {}),
        });
        return { url: urlOf(token), method: "GET", headers: {}, expiresAt: new Date(expiresAt) };
      }),
    stat: (key) => Effect.promise(() => readMeta(key)),
    read: (key) =>
      Effect.promise(() => readMeta(key)).pipe(
        Effect.map((meta) =>
          meta === null ? null : Stream.fromAsyncIterable(createReadStream(objectPath(key)) as AsyncIterable<Uint8Array>, (e) => e).pipe(Stream.orDie),
        ),
      ),
    put: (key, content) =>
      Effect.promise(async () => {
        assertObjectKey(key);
        const { tmp, size, sha256 } = await writeTemp(Stream.toAsyncIterable(content), undefined);
        const stored = { key, size, sha256 };
        await publish(tmp!, stored);
        return stored;
      }),
    remove: (key) =>
      Effect.promise(async () => {
        const existed = (await readMeta(key).catch(() => null)) !== null;
        // Metadata first: once it is gone the object is invisible even if removing the bytes fails.
        await rm(metaPath(key), { force: true });
        await rm(objectPath(key), { force: true });
        return existed;
      }),
    verify: (token, method) => verifyGrant(options.signingSecret, token, method, now()),
    receive: async (claims, body, contentType, receiveOptions) => {
      if (mediaType(contentType) !== mediaType(claims.t)) {
        body.resume();
        return new ContentTypeMismatch({ detail: `The grant requires Content-Type ${claims.t}.` });
      }
      const size = claims.s!;
      // Leaving the loop early must not destroy the request, or the client would see a reset, not a 413.
      const written = await writeTemp(body.iterator({ destroyOnReturn: false }), size);
      if (written.tmp === null) {
        body.resume(); // discard the rest; the handler also closes the connection after answering
        return new SizeMismatch({ tooLarge: true, detail: `The grant allows exactly ${size} bytes.` });
      }
      if (written.size !== size) {
        await rm(written.tmp, { force: true });
        return new SizeMismatch({ tooLarge: false, detail: `Expected ${size} bytes, received ${written.size}.` });
      }
      if (written.sha256 !== claims.h) {
        await rm(written.tmp, { force: true });
        return new ChecksumMismatch({ detail: "The bytes do not match the SHA-256 the grant binds." });
      }
      const refusal = (await receiveOptions?.beforeKeeping?.()) ?? null;
      if (refusal !== null) {
        await rm(written.tmp, { force: true });
        return refusal;
      }
      const stored = { key: claims.k, size, sha256: written.sha256 };
      await publish(written.tmp, stored);
      return stored;
    },
    fileOf: async (key) => {
      const meta = await readMeta(key);
      return meta === null ? null : { path: objectPath(key), size: meta.size };
    },
  };
  return store;
};
