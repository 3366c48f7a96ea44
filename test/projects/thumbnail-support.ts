/**
 * Test support of attachment thumbnails: the files test host (test/blob/filesHost.ts) with what
 * this slice adds — migration 7, the thumbnail job handler and the Thumbnailer port (sharp unless
 * a test brings its own) — each added only when the project module does not have it yet, so it
 * works before and after the module is wired. Also an upload through the real grant flow with
 * any content type, and small image fixtures (a real PNG, a pixel bomb, garbage).
 */
import { createHash, randomUUID } from "node:crypto";
import path from "node:path";
import { deflateSync } from "node:zlib";
import type { Effect } from "effect";
import sharp from "sharp";
import { mountBlobGrantHandler } from "../../adapters/blob/BlobGrantHandler.js";
import { makeLocalBlobStore } from "../../adapters/blob/LocalBlobStore.js";
import { createKoaApp } from "../../adapters/koa/App.js";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { createLogger } from "../../adapters/koa/Logging.js";
import { startHttpServer } from "../../adapters/koa/Server.js";
import { projectsMigration0007Thumbnails } from "../../adapters/sql/projects/projectsMigration0007Thumbnails.js";
import { makeSharpThumbnailer } from "../../adapters/thumbnails/SharpThumbnailer.js";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { attachmentThumbnailJob } from "../../core/projects/AttachmentThumbnails.js";
import { migrateModules, openConfiguredDatabase } from "../../hosts/Database.js";
import { hostAuthentication } from "../../hosts/HostAuthentication.js";
import type { ModuleDefinition } from "../../hosts/ModuleDefinition.js";
import { createHostCore } from "../../hosts/Runtime.js";
import type { Scanner } from "../../ports/Scanner.js";
import { Thumbnailer } from "../../ports/Thumbnailer.js";
import { blobSecret, projectsWithFiles } from "../blob/filesHost.js";
import type { Dialect, HasTeardown } from "../support/databases.js";
import { hostSecret, testConfig } from "../hosts/support.js";
import type { Answer, Client } from "./support.js";

/** The files module plus thumbnails (migration 7, job handler, Thumbnailer port). */
export const projectsWithThumbnails = (base: ModuleDefinition, thumbnailer: Thumbnailer): ModuleDefinition => {
  const migrations = base.migrations ?? [];
  const jobHandlers = base.jobHandlers ?? [];
  return {
    ...base,
    migrations: migrations.some((m) => m.version === projectsMigration0007Thumbnails.version) ? migrations : [...migrations, projectsMigration0007Thumbnails],
    jobHandlers: jobHandlers.some((h) => h.kind === attachmentThumbnailJob.kind) ? jobHandlers : [...jobHandlers, attachmentThumbnailJob],
    ports: [...(base.ports ?? []).filter((p) => p.tag.key !== Thumbnailer.key), { tag: Thumbnailer, make: () => thumbnailer }],
  };
};

/** A files server with thumbnails (the same surface as filesHost's `startFilesServer`). */
export const startThumbnailServer = async (
  t: HasTeardown,
  dialect: Dialect,
  options: { readonly scanner?: Scanner; readonly thumbnailer?: Thumbnailer } = {},
) => {
  const config = await testConfig(dialect, t);
  const store = makeLocalBlobStore({ dir: path.join(config.dataDir, "blobs"), signingSecret: blobSecret });
  const module = projectsWithThumbnails(projectsWithFiles(store, options.scanner), options.thumbnailer ?? makeSharpThumbnailer());
  const database = await openConfiguredDatabase(config);
  await migrateModules(database, [module]);
  const logger = createLogger({ level: "silent" });
  const core = await createHostCore({ database, modules: [module], logger });
  const app = createKoaApp({
    logger,
    runtime: core.runtime,
    authentication: hostAuthentication({ jwtSecret: config.jwtSecret, runtime: core.runtime, modules: [module] }),
    routes: module.routes,
    configureRouter: (router) => mountBlobGrantHandler(router, store),
  });
  const http = await startHttpServer(app, { port: 0, onClose: () => core.close() });
  t.teardown(() => http.close());
  const handlers = [...(module.jobHandlers ?? [])];
  /** Runs due jobs until a pass claims nothing (at most `passes`). */
  const runJobs = async (passes = 5) => {
    let total = 0;
    for (let i = 0; i < passes; i++) {
      const result = await core.runtime.runPromise(runJobsOnce(handlers, { workerId: "test-worker", concurrency: 1 }));
      total += result.claimed;
      if (result.claimed === 0) break;
    }
    return total;
  };
  const client = async (userId: string = randomUUID()): Promise<Client> => {
    const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });
    return {
      userId,
      call: async (method, p, body, headers = {}) => {
        const response = await fetch(`${http.url}${p}`, {
          method,
          headers: {
            Authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "Content-Type": "application/json" }),
            ...(method === "POST" ? { "Idempotency-Key": randomUUID() } : {}),
            ...headers,
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        return { status: response.status, body: text === "" ? undefined : JSON.parse(text), headers: response.headers };
      },
    };
  };
  /** Sends a raw request to a grant URL (no bearer token: the grant is the credential). */
  const transfer = async (grant: { url: string; method: string; headers?: Record<string, string> }, body?: Uint8Array) => {
    const response = await fetch(`${http.url}${grant.url}`, { method: grant.method, headers: { ...grant.headers }, ...(body === undefined ? {} : { body }) });
    return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()), headers: response.headers };
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const run = <A>(e: Effect.Effect<A, unknown, any>) => core.runtime.runPromise(e);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const runExit = <A>(e: Effect.Effect<A, unknown, any>) => core.runtime.runPromiseExit(e);
  return { url: http.url, core, store, runJobs, client, transfer, db: database, run, runExit };
};

/** The thumbnail test host. */
export type ThumbnailHost = Awaited<ReturnType<typeof startThumbnailServer>>;

/** Uploads `bytes` as `contentType` through the whole grant flow (request, PUT, complete). */
export const uploadFile = async (
  host: ThumbnailHost,
  who: Client,
  taskId: string,
  bytes: Uint8Array,
  filename: string,
  contentType: string,
): Promise<{ requested: Answer; put: { status: number }; completed: Answer }> => {
  const requested = await who.call("POST", `/v1/tasks/${taskId}/attachments`, {
    filename,
    content_type: contentType,
    size: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
  });
  if (requested.status !== 201) throw new Error(`request upload: ${requested.status} ${JSON.stringify(requested.body)}`);
  const put = await host.transfer(requested.body.upload, bytes);
  const completed = await who.call("POST", `/v1/attachments/${requested.body.attachment.id}/complete`);
  return { requested, put, completed };
};

/** A real PNG of `width` x `height` (a gradient-free solid colour is enough to decode). */
export const pngOf = (width: number, height: number): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } }).png().toBuffer();

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes: Uint8Array): number => {
  let c = 0xffffffff;
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const pngChunk = (type: string, data: Buffer): Buffer => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/**
 * A decompression bomb: a few hundred bytes of valid PNG whose header claims `side` x `side`
 * pixels (10^10 for the default), which a decoder without a pixel limit would try to allocate.
 */
export const pixelBombPng = (side = 100_000): Buffer => {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(Buffer.alloc(64))),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
};

/** Bytes that start like a PNG and then are garbage (corrupt image data). */
export const corruptPng = async (): Promise<Buffer> => {
  const good = await pngOf(64, 64);
  const bad = Buffer.from(good);
  for (let i = 40; i < bad.length - 12; i++) bad[i] = bad[i]! ^ 0x5a;
  return bad;
};
