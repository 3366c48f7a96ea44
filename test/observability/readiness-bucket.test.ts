/**
 * /readyz's object store check on S3 tells a bucket deleted after start from a missing key: the
 * probe key's 404 reads the same for both, so the check also asks whether the bucket exists.
 */
import { DeleteBucketCommand, S3Client } from "@aws-sdk/client-s3";
import t from "tap";
import { objectStoreCheck } from "../../adapters/observability/Readiness.js";
import { makeS3ObjectStore } from "../../adapters/s3/S3ObjectStore.js";
import { startS3Server } from "../support/s3Server.js";

t.test("the object store check is up while the bucket exists and down once it is deleted", async (t) => {
  const s3 = await startS3Server(t, "domainkit-readiness");
  const credentials = { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey };
  const store = makeS3ObjectStore({ endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, forcePathStyle: true, credentials });
  t.teardown(() => store.close());
  const check = objectStoreCheck(store);
  await check.check();
  t.equal(await store.bucketExists(), true, "the bucket is there");

  const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials });
  t.teardown(() => client.destroy());
  await client.send(new DeleteBucketCommand({ Bucket: s3.bucket }));
  t.equal(await store.bucketExists(), false, "the service answers that the bucket does not exist");
  await t.rejects(check.check(), /bucket does not exist/, "the check reports the store down");
});

t.test("a store that cannot be reached cannot tell whether its bucket exists", async (t) => {
  const store = makeS3ObjectStore({ endpoint: "http://127.0.0.1:9", bucket: "domainkit-nowhere", region: "us-east-1", forcePathStyle: true, credentials: { accessKeyId: "x", secretAccessKey: "y" } });
  t.teardown(() => store.close());
  t.equal(await store.bucketExists(), null, "neither present nor missing: /readyz's stat reports it down");
});
