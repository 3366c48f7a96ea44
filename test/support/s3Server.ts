/**
 * An S3-compatible server for tests: s3rver on 127.0.0.1 (a random port), its files in a fresh
 * temporary folder, one bucket created, all of it removed at teardown. s3rver serves multipart
 * create / presigned UploadPart / complete and ranged presigned GET; it lacks ListParts and
 * AbortMultipartUpload (405) and does not check signatures (docs/decisions.md).
 */
import { createRequire } from "node:module";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import type { HasTeardown } from "./databases.js";

/** What a test needs to reach the server (s3rver accepts any credentials; these are its defaults). */
export interface TestS3Server {
  readonly endpoint: string;
  readonly bucket: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** The environment that points the reference server at it. */
  readonly env: Readonly<Record<string, string>>;
}

/** The part of s3rver's API used here (it ships no type declarations). */
interface S3rverInstance {
  run(): Promise<{ readonly address: string; readonly port: number }>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: { address: string; port: number; silent: boolean; directory: string }) => S3rverInstance;

const S3rver = createRequire(import.meta.url)("s3rver") as S3rverConstructor;

/** Starts s3rver with bucket `bucket` (3+ characters); stopped and deleted at teardown. */
export const startS3Server = async (t: HasTeardown, bucket = "domainkit-files"): Promise<TestS3Server> => {
  const directory = mkdtempSync(path.join(tmpdir(), "domainkit-s3rver-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory });
  const { port } = await server.run();
  t.teardown(async () => {
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
  const client = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    bucket,
    region: "us-east-1",
    ...credentials,
    env: {
      OBJECT_STORE_URL: endpoint,
      OBJECT_STORE_BUCKET: bucket,
      OBJECT_STORE_ACCESS_KEY_ID: credentials.accessKeyId,
      OBJECT_STORE_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    },
  };
};
