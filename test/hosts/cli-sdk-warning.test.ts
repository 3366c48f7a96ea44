/**
 * The CLI process prints none of the AWS SDK's NodeVersionSupportWarning (8 plain-text lines on
 * every start with OBJECT_STORE_URL set on Node 20, among JSON log lines): bin/domainkit.js turns
 * that one warning off with the SDK's own switch, unless the operator set the switch themselves.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import t from "tap";
import { hostSecret, repositoryRoot } from "./support.js";

const run = promisify(execFile);

t.test("`domainkit token` with OBJECT_STORE_URL set prints no NodeVersionSupportWarning", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "domainkit-sdk-warning-"));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const { stdout, stderr } = await run(process.execPath, [join(repositoryRoot(), "bin", "domainkit.js"), "token", "--user", "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"], {
    env: {
      PATH: process.env.PATH ?? "",
      DATA_DIR: dataDir,
      AUTH_JWT_SECRET: hostSecret,
      // Never contacted by `token`: the S3 adapter (and with it the SDK) is only loaded.
      OBJECT_STORE_URL: "http://127.0.0.1:9",
      OBJECT_STORE_BUCKET: "domainkit-files",
      OBJECT_STORE_ACCESS_KEY_ID: "test",
      OBJECT_STORE_SECRET_ACCESS_KEY: "test-secret",
    },
  });
  t.match(stdout.trim(), /^[\w-]+\.[\w-]+\.[\w-]+$/, "the token is printed");
  t.notMatch(stderr, /NodeVersionSupportWarning|AWS SDK|require node/, "no SDK version warning");
  t.equal(stderr, "", "nothing else on stderr");
});
