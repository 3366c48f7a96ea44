/**
 * `effect` is a peer dependency: an embedder's programs, an adapter author's layers and the
 * package's runtimes (the embedding API, the testkit's ManagedRuntime) must share one copy of
 * Effect, which a private dependency would not guarantee when the ranges do not overlap.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import t from "tap";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

t.test("effect is a peer dependency: an author's layers and the package's runtimes share one Effect", async (t) => {
  const manifest = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
  t.equal(manifest.peerDependencies?.effect, manifest.devDependencies?.effect, "declared as a peer, and installed for the package's own build and tests at the same range");
  t.ok(manifest.peerDependencies?.effect, "a peer range is declared");
  t.equal(manifest.dependencies?.effect, undefined, "not bundled as a private copy");
});
