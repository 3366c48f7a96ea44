/**
 * Test host for attachments, exports, custom fields, saved views and dependencies: the project
 * module extended with this slice's migrations, routes, ports (SQL repositories, a LocalBlobStore under the test DATA_DIR, the
 * SignatureScanner, the sharp Thumbnailer unless a test brings its own) and job handlers, plus the blob grant handler mounted beside the routes,
 * exactly as the reference server wiring proposes. Jobs run only when a test asks (`runJobs`),
 * so each test decides when the worker "happens".
 */
import type { Config } from "../../hosts/Config.js";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { Effect } from "effect";
import { mountBlobGrantHandler } from "../../adapters/blob/BlobGrantHandler.js";
import { makeLocalBlobStore, type LocalBlobStore } from "../../adapters/blob/LocalBlobStore.js";
import { createKoaApp } from "../../adapters/koa/App.js";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { createLogger } from "../../adapters/koa/Logging.js";
import { attachmentRoutes } from "../../adapters/koa/projects/AttachmentRoutes.js";
import { customFieldRoutes } from "../../adapters/koa/projects/CustomFieldRoutes.js";
import { dependencyRoutes } from "../../adapters/koa/projects/DependencyRoutes.js";
import { exportRoutes } from "../../adapters/koa/projects/ExportRoutes.js";
import { savedViewRoutes } from "../../adapters/koa/projects/SavedViewRoutes.js";
import { startHttpServer } from "../../adapters/koa/Server.js";
import { makeSignatureScanner } from "../../adapters/scanner/SignatureScanner.js";
import { makeSqlAttachmentsRepository } from "../../adapters/sql/projects/SqlAttachmentsRepository.js";
import { makeSqlCustomFieldsRepository } from "../../adapters/sql/projects/SqlCustomFieldsRepository.js";
import { makeSqlDependenciesRepository } from "../../adapters/sql/projects/SqlDependenciesRepository.js";
import { makeSqlExportsRepository } from "../../adapters/sql/projects/SqlExportsRepository.js";
import { makeSqlSavedViewsRepository } from "../../adapters/sql/projects/SqlSavedViewsRepository.js";
import { projectsMigration0005CustomFieldsViewsDependencies } from "../../adapters/sql/projects/migrations/0005_custom_fields_views_dependencies.js";
import { projectsMigration0004Attachments } from "../../adapters/sql/projects/migrations/0004_attachments_and_exports.js";
import { runJobsOnce, type JobHandler } from "../../adapters/worker/JobRunner.js";
import { attachmentScanJob } from "../../core/projects/AttachmentScan.js";
import { workspaceExportJob } from "../../core/projects/ExportJob.js";
import { trashPurgeJob } from "../../core/projects/TrashPurge.js";
import { migrateModules, openConfiguredDatabase } from "../../hosts/Database.js";
import { hostAuthentication } from "../../hosts/HostAuthentication.js";
import type { ModuleDefinition } from "../../hosts/ModuleDefinition.js";
import { projectsModule } from "../../hosts/modules/projectsModule.js";
import { createHostCore } from "../../hosts/Runtime.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { Scanner } from "../../ports/Scanner.js";
import { Thumbnailer } from "../../ports/Thumbnailer.js";
import { makeSharpThumbnailer } from "../../adapters/thumbnails/SharpThumbnailer.js";
import { AttachmentsRepository } from "../../ports/projects/AttachmentsRepository.js";
import { CustomFieldsRepository } from "../../ports/projects/CustomFieldsRepository.js";
import { DependenciesRepository } from "../../ports/projects/DependenciesRepository.js";
import { ExportsRepository } from "../../ports/projects/ExportsRepository.js";
import { SavedViewsRepository } from "../../ports/projects/SavedViewsRepository.js";
import type { Dialect, HasTeardown } from "../support/databases.js";
import { hostSecret, testConfig } from "../hosts/support.js";
import type { Answer, Client } from "../projects/support.js";

/** The signing secret of the test blob store. */
export const blobSecret = "blob-test-signing-secret-0123456789abcdef";

/** The job handlers this slice adds. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const sliceJobHandlers: ReadonlyArray<JobHandler<any>> = [attachmentScanJob, workspaceExportJob, trashPurgeJob];

const missing = <A>(present: ReadonlyArray<A>, added: ReadonlyArray<A>, same: (a: A, b: A) => boolean): A[] =>
  added.filter((a) => !present.some((p) => same(p, a)));

/** A server with attachments, exports and the blob handler; `clock.ms` moves the blob store's clock. */
export const startFilesServer = async (
  t: HasTeardown,
  target: Dialect | Config,
  options: { readonly scanner?: Scanner; readonly thumbnailer?: Thumbnailer } = {},
) => {
  const config = typeof target === "string" ? await testConfig(target, t) : target;
  const clock = { offsetMs: 0 };
  const store: LocalBlobStore = makeLocalBlobStore({
    dir: path.join(config.dataDir, "blobs"),
    signingSecret: blobSecret,
    now: () => Date.now() + clock.offsetMs,
  });
  const module = projectsModule;
  const database = await openConfiguredDatabase(config);
  await migrateModules(database, [module]);
  const logger = createLogger({ level: "silent" });
  const files = { store, ...(options.scanner ? { scanner: options.scanner } : {}), ...(options.thumbnailer ? { thumbnailer: options.thumbnailer } : {}) };
  const core = await createHostCore({ database, modules: [module], logger, files });
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
  const takesNoKey = /\/(comments|share-links|downloads)$/;
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
            // A fresh key on every POST but the creations that take none and refuse one (comments,
            // share links, download grants: docs/conventions.md, Idempotency).
            ...(method === "POST" && !takesNoKey.test(p) ? { "Idempotency-Key": randomUUID() } : {}),
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
  const transfer = async (
    grant: { url: string; method: string; headers?: Record<string, string> },
    body?: Uint8Array,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; bytes: Buffer; json: any; headers: Headers }> => {
    const response = await fetch(`${http.url}${grant.url}`, {
      method: grant.method,
      headers: { ...grant.headers, ...headers },
      ...(body === undefined ? {} : { body }),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const json = /^application\/(problem\+)?json/.test(response.headers.get("content-type") ?? "") && bytes.length > 0 ? JSON.parse(bytes.toString("utf8")) : undefined;
    return { status: response.status, bytes, json, headers: response.headers };
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const run = <A>(e: Effect.Effect<A, unknown, any>) => core.runtime.runPromise(e);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const runExit = <A>(e: Effect.Effect<A, unknown, any>) => core.runtime.runPromiseExit(e);
  return { url: http.url, core, store, clock, runJobs, client, transfer, db: database, run, runExit };
};

/** The files test host. */
export type FilesHost = Awaited<ReturnType<typeof startFilesServer>>;

/** Uploads `bytes` as an attachment of `taskId` through the whole grant flow (request, PUT, complete). */
export const uploadAttachment = async (
  host: FilesHost,
  who: Client,
  taskId: string,
  bytes: Uint8Array,
  filename = "notes.txt",
  contentType = "text/plain",
): Promise<{ requested: Answer; put: { status: number }; completed: Answer }> => {
  const { createHash } = await import("node:crypto");
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
