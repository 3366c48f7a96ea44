/**
 * The host's shared file pieces: the ObjectStore (the local blob store by default; the S3 adapter
 * when OBJECT_STORE_URL is set), the Scanner
 * (the built-in signature scanner) and the Thumbnailer (sharp), bound once by the host for every
 * module that stores bytes (projects attachments and exports; file storage later), so no
 * business module binds them itself (`FileOptions` of createHostCore). The blob grant handler is
 * mounted by the server (`mountBlobGrantHandler`) beside the application routes. Rebind
 * `ObjectStore` / `Scanner` / `Thumbnailer` with `rebindPort` to use S3, a real anti-virus or
 * another image service.
 */
import { Effect } from "effect";
import { makeLocalBlobStore, type LocalBlobStore } from "../../adapters/blob/LocalBlobStore.js";
import type { S3ObjectStore } from "../../adapters/s3/S3ObjectStore.js";
import type { ObjectStore } from "../../ports/ObjectStore.js";
import type { Config } from "../Config.js";
import { StartupError } from "../Database.js";
import { redactUrl } from "../../adapters/observability/Redact.js";

/** The configuration the blob storage needs. */
export type BlobStorageConfig = Pick<Config, "blobDir" | "blobSigningSecret" | "blobPublicUrl"> & Partial<Pick<Config, "objectStore">>;

/**
 * The object store the configuration describes: the S3 adapter when OBJECT_STORE_URL is set
 * (its grants are presigned URLs of the service; no grant handler is mounted), else the local
 * blob store (whose grant handler the server mounts). The S3 adapter and the AWS SDK are loaded
 * only when configured (docs/decisions.md, "Optional SDKs load on first use").
 */
export const configuredBlobStore = async (config: BlobStorageConfig): Promise<LocalBlobStore | S3ObjectStore> => {
  const s3 = config.objectStore;
  if (s3 !== undefined) {
    const { makeS3ObjectStore } = await import("../../adapters/s3/S3ObjectStore.js");
    return makeS3ObjectStore({
      endpoint: s3.endpoint,
      bucket: s3.bucket,
      region: s3.region,
      forcePathStyle: s3.forcePathStyle,
      ...(s3.credentials !== undefined ? { credentials: s3.credentials } : {}),
    });
  }
  return makeLocalBlobStore({
    dir: config.blobDir,
    signingSecret: config.blobSigningSecret,
    ...(config.blobPublicUrl !== undefined ? { publicBaseUrl: config.blobPublicUrl } : {}),
  });
};

/**
 * Fails start-up with a one-line StartupError naming OBJECT_STORE_BUCKET when `store` is S3 and the
 * service answers that its bucket does not exist: /readyz cannot tell (its probe's HeadObject
 * answers 404 for a missing key and a missing bucket alike), and every upload would fail. A store
 * that cannot tell yet (unreachable, 403) is left to /readyz, so one that comes up later is waited for.
 */
export const requireExistingBucket = async (store: LocalBlobStore | S3ObjectStore, config: BlobStorageConfig): Promise<void> => {
  if (!("bucketExists" in store) || config.objectStore === undefined) return;
  if ((await store.bucketExists()) !== false) return;
  store.close();
  throw new StartupError(
    `OBJECT_STORE_BUCKET=${JSON.stringify(config.objectStore.bucket)}: the bucket does not exist at ${redactUrl(config.objectStore.endpoint)} (check OBJECT_STORE_BUCKET and OBJECT_STORE_URL)`,
  );
};

const unconfigured = Effect.dieMessage("no ObjectStore is configured for this host (createHostCore files.store)");

/** The ObjectStore of a host that configured none: every call is a defect naming the fix. */
export const unconfiguredObjectStore: ObjectStore = {
  grantUpload: () => unconfigured,
  grantDownload: () => unconfigured,
  stat: () => unconfigured,
  read: () => unconfigured,
  put: () => unconfigured,
  remove: () => unconfigured,
};
