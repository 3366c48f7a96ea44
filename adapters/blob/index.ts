/** The embedded object store: signed grants, the local folder store and its HTTP handler. */
export * from "./BlobGrant.js";
export * from "./LocalBlobStore.js";
export * from "./BlobGrantHandler.js";
