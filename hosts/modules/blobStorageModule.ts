/**
 * The host's shared file pieces: the ObjectStore (the local blob store by default), the Scanner
 * (the built-in signature scanner) and the Thumbnailer (sharp), bound once by the host for every
 * module that stores bytes (projects attachments and exports; file storage later), so no
 * business module binds them itself (`FileOptions` of createHostCore). The blob grant handler is
 * mounted by the server (`mountBlobGrantHandler`) beside the application routes. Rebind
 * `ObjectStore` / `Scanner` / `Thumbnailer` with `rebindPort` to use S3, a real anti-virus or
 * another image service.
 */
import { Effect } from "effect";
import { makeLocalBlobStore, type LocalBlobStore } from "../../adapters/blob/LocalBlobStore.js";
import type { ObjectStore } from "../../ports/ObjectStore.js";
import type { Config } from "../Config.js";

/** The configuration the blob storage needs. */
export type BlobStorageConfig = Pick<Config, "blobDir" | "blobSigningSecret" | "blobPublicUrl">;

/** The local blob store the configuration describes. */
export const configuredBlobStore = (config: BlobStorageConfig): LocalBlobStore =>
  makeLocalBlobStore({
    dir: config.blobDir,
    signingSecret: config.blobSigningSecret,
    ...(config.blobPublicUrl !== undefined ? { publicBaseUrl: config.blobPublicUrl } : {}),
  });

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
