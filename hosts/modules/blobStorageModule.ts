/**
 * The host's shared file pieces as a module without routes: the ObjectStore (the local blob
 * store by default), the Scanner (the built-in signature scanner by default) and the
 * Thumbnailer (sharp by default), bound once for
 * every module that stores bytes (projects attachments and exports; file storage later), so no
 * business module binds them itself. The blob grant handler is mounted by the server
 * (`mountBlobGrantHandler`) beside the application routes. Rebind `ObjectStore.key` /
 * `Scanner.key` / `Thumbnailer.key` to use S3, a real anti-virus or another image service.
 */
import { makeLocalBlobStore, type LocalBlobStore } from "../../adapters/blob/LocalBlobStore.js";
import { makeSignatureScanner } from "../../adapters/scanner/SignatureScanner.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { Scanner } from "../../ports/Scanner.js";
import { makeSharpThumbnailer } from "../../adapters/thumbnails/SharpThumbnailer.js";
import { Thumbnailer } from "../../ports/Thumbnailer.js";
import type { Config } from "../Config.js";
import type { ModuleDefinition } from "../ModuleDefinition.js";

/** The configuration the blob storage needs. */
export type BlobStorageConfig = Pick<Config, "blobDir" | "blobSigningSecret" | "blobPublicUrl">;

/** The local blob store the configuration describes. */
export const configuredBlobStore = (config: BlobStorageConfig): LocalBlobStore =>
  makeLocalBlobStore({
    dir: config.blobDir,
    signingSecret: config.blobSigningSecret,
    ...(config.blobPublicUrl !== undefined ? { publicBaseUrl: config.blobPublicUrl } : {}),
  });

/** A module binding the shared ObjectStore, Scanner and Thumbnailer ports. */
export const blobStorageModule = (
  store: ObjectStore,
  scanner: Scanner = makeSignatureScanner(),
  thumbnailer: Thumbnailer = makeSharpThumbnailer(),
): ModuleDefinition => ({
  name: "blob-storage",
  routes: [],
  ports: [
    { tag: ObjectStore, make: () => store },
    { tag: Scanner, make: () => scanner },
    { tag: Thumbnailer, make: () => thumbnailer },
  ],
});

/**
 * `modules` with the blob storage module in front (unless one of them already binds the
 * ObjectStore), and the local store to mount the grant handler for.
 */
export const withBlobStorage = (
  config: BlobStorageConfig,
  modules: ReadonlyArray<ModuleDefinition>,
): { readonly store: LocalBlobStore; readonly modules: ReadonlyArray<ModuleDefinition> } => {
  const store = configuredBlobStore(config);
  const bound = modules.some((m) => (m.ports ?? []).some((p) => p.tag.key === ObjectStore.key));
  return { store, modules: bound ? modules : [blobStorageModule(store), ...modules] };
};
