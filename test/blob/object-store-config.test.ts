/**
 * Choosing the object store by configuration (issue 13: "selected by configuration
 * (OBJECT_STORE_URL, bucket, credentials; documented)"): unset, the local blob store; set, the S3
 * adapter with its bucket, region (us-east-1 by default), credentials and path-style addressing
 * (default true). Every bad OBJECT_STORE_* variable is one line of the ConfigError, and a secret
 * is never shown in it.
 */
import t from "tap";
import { isLocalBlobStore } from "../../adapters/blob/LocalBlobStore.js";
import { ConfigError, loadConfig } from "../../hosts/Config.js";
import { configuredBlobStore } from "../../hosts/modules/blobStorageModule.js";

const problemsOf = (env: Record<string, string>): ReadonlyArray<string> => {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.lines;
    throw error;
  }
};

t.test("without OBJECT_STORE_URL the host binds the local blob store", async (t) => {
  const config = loadConfig({ DATA_DIR: "/tmp/domainkit-config-test" });
  t.equal(config.objectStore, undefined);
  t.ok(isLocalBlobStore(await configuredBlobStore(config)), "the local store, whose grant handler the server mounts");
});

t.test("with OBJECT_STORE_URL the host binds the S3 adapter, with documented defaults", async (t) => {
  const config = loadConfig({ OBJECT_STORE_URL: "http://127.0.0.1:9000", OBJECT_STORE_BUCKET: "domainkit-files" });
  t.same(config.objectStore, { endpoint: "http://127.0.0.1:9000", bucket: "domainkit-files", region: "us-east-1", credentials: undefined, forcePathStyle: true });
  const store = await configuredBlobStore(config);
  t.notOk(isLocalBlobStore(store), "not the local store");
  t.ok(store.multipart !== undefined, "a store with native multipart");
  const full = loadConfig({
    OBJECT_STORE_URL: "https://s3.eu-west-1.amazonaws.com",
    OBJECT_STORE_BUCKET: "acme.files",
    OBJECT_STORE_REGION: "eu-west-1",
    OBJECT_STORE_ACCESS_KEY_ID: "AKIAEXAMPLE",
    OBJECT_STORE_SECRET_ACCESS_KEY: "secret-example-value",
    OBJECT_STORE_FORCE_PATH_STYLE: "false",
  });
  t.same(full.objectStore, {
    endpoint: "https://s3.eu-west-1.amazonaws.com",
    bucket: "acme.files",
    region: "eu-west-1",
    credentials: { accessKeyId: "AKIAEXAMPLE", secretAccessKey: "secret-example-value" },
    forcePathStyle: false,
  });
});

t.test("each bad OBJECT_STORE_* variable is one line of the error, secrets never shown", async (t) => {
  t.match(problemsOf({ OBJECT_STORE_URL: "ftp://store" }), [/^OBJECT_STORE_URL="ftp:\/\/store": the scheme ftp: is not supported/]);
  t.match(problemsOf({ OBJECT_STORE_URL: "http://127.0.0.1:9000" }), [/^OBJECT_STORE_BUCKET \(unset\): required because OBJECT_STORE_URL is set/]);
  const lines = problemsOf({
    OBJECT_STORE_URL: "http://127.0.0.1:9000",
    OBJECT_STORE_BUCKET: "No_Such Bucket",
    OBJECT_STORE_REGION: "EU West",
    OBJECT_STORE_SECRET_ACCESS_KEY: "very-secret-value",
    OBJECT_STORE_FORCE_PATH_STYLE: "sometimes",
  });
  t.equal(lines.length, 4, "one line per problem");
  t.match(lines, [/^OBJECT_STORE_FORCE_PATH_STYLE=.*not a boolean/, /^OBJECT_STORE_BUCKET=.*not a bucket name/, /^OBJECT_STORE_REGION=.*not a region name/, /^OBJECT_STORE_ACCESS_KEY_ID \(unset\): required because the other OBJECT_STORE credential is set/]);
  const orphan = problemsOf({ OBJECT_STORE_BUCKET: "files", OBJECT_STORE_SECRET_ACCESS_KEY: "very-secret-value" });
  t.equal(orphan.length, 2, "OBJECT_STORE_* without OBJECT_STORE_URL is a mistake, not ignored");
  t.notOk([...lines, ...orphan].join("\n").includes("very-secret-value"), "the secret appears in no line");
});
