/** The ObjectStore on an S3-compatible service (AWS S3, MinIO, Garage) with native multipart uploads. */
export * from "./S3ObjectStore.js";
