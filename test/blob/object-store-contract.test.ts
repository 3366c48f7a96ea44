/**
 * The ObjectStore contract kit against both stores (issue 13, "The S3-compatible store"): the
 * local blob store (behind its grant handler) and the S3 adapter against s3rver started on
 * 127.0.0.1. Each declares its capabilities: the local store verifies grant signatures and
 * upload checksums but has no native multipart; the S3 adapter has multipart, and s3rver
 * verifies neither signatures nor checksums (real S3 does).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Layer, ManagedRuntime } from "effect";
import t from "tap";
import { mountBlobGrantHandler } from "../../adapters/blob/BlobGrantHandler.js";
import { makeLocalBlobStore } from "../../adapters/blob/LocalBlobStore.js";
import { createKoaApp } from "../../adapters/koa/App.js";
import { createLogger } from "../../adapters/koa/Logging.js";
import { startHttpServer } from "../../adapters/koa/Server.js";
import { makeS3ObjectStore } from "../../adapters/s3/S3ObjectStore.js";
import { objectStoreSuite } from "../contract/objectStoreKit.js";
import { startS3Server } from "../support/s3Server.js";

t.test("local blob store", (t) =>
  objectStoreSuite({
    test: (name, fn) => t.test(name, fn),
    supports: { multipart: false, verifiesGrantSignatures: true, verifiesUploadChecksum: true },
    factory: async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "domainkit-blobs-"));
      const store = makeLocalBlobStore({ dir, signingSecret: "object-store-kit-secret-0123456789abcdef" });
      const runtime = ManagedRuntime.make(Layer.empty);
      const app = createKoaApp({ logger: createLogger({ level: "silent" }), runtime, routes: [], openApi: false, configureRouter: (r) => mountBlobGrantHandler(r, store) });
      const http = await startHttpServer(app, { port: 0, onClose: () => runtime.dispose() });
      return {
        store,
        baseUrl: http.url,
        close: async () => {
          await http.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  }),
);

t.test("S3 adapter on s3rver", async (t) => {
  const s3 = await startS3Server(t);
  let prefix = 0;
  await objectStoreSuite({
    test: (name, fn) => t.test(name, fn),
    supports: { multipart: true, verifiesGrantSignatures: false, verifiesUploadChecksum: false },
    factory: async () => {
      // One bucket per server: each case works in its own fresh bucket.
      const bucket = `kit-${++prefix}-${Date.now()}`;
      const { CreateBucketCommand, S3Client } = await import("@aws-sdk/client-s3");
      const admin = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
      await admin.send(new CreateBucketCommand({ Bucket: bucket }));
      admin.destroy();
      const store = makeS3ObjectStore({
        endpoint: s3.endpoint,
        bucket,
        region: s3.region,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
        forcePathStyle: true,
      });
      return { store, baseUrl: s3.endpoint, close: async () => store.close() };
    },
  });
});
