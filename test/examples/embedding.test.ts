/** The embedding example works as documented: host routes and module routes side by side, host auth decides. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import t from "tap";
import { startEmbeddingExample } from "../../examples/embedding/app.js";
import { findRepoRoot } from "../architecture/dependencyRule.js";
import { importsAnAppCannotResolve, readManifest, specifiersIn } from "../packaging/packedPackage.js";
import { createTestSqliteFile } from "../support/databases.js";

t.test("the embedding example serves the host's routes and the projects module behind the host's auth", async (t) => {
  const example = await startEmbeddingExample({ filename: createTestSqliteFile(t), port: 0 });
  t.teardown(example.close);
  t.same(await (await fetch(`${example.url}/hello`)).json(), { hello: "from the host app" });
  const anonymous = await fetch(`${example.url}/v1/workspaces`, { method: "POST", body: "{}", headers: { "Content-Type": "application/json" } });
  t.equal(anonymous.status, 401, "the host's authentication refuses first");
  const created = await fetch(`${example.url}/v1/workspaces`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-User-Id": "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b" },
    body: JSON.stringify({ name: "Acme" }),
  });
  t.equal(created.status, 201);
  t.match(await created.json(), { name: "Acme" });
});

t.test("the embedding example imports only what an installed package offers (public subpaths and its dependencies)", async (t) => {
  const root = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
  const manifest = readManifest(root);
  const source = readFileSync(join(root, "examples", "embedding", "app.ts"), "utf8");
  t.ok(specifiersIn(source).includes("domainkit/projects"), "the example imports the module by its public name");
  t.same(importsAnAppCannotResolve(manifest, source), [], "a user copying app.ts can resolve every import");
});
