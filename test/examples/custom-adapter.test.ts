/** The example in-memory adapter passes the idempotency contract kit, as an author would run it. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import t from "tap";
import { memoryIdempotencyStoreLayer } from "../../examples/custom-adapter/MemoryIdempotencyStore.js";
import { findRepoRoot } from "../architecture/dependencyRule.js";
import { idempotencySuite } from "../contract/index.js";
import { importsAnAppCannotResolve, readManifest, specifiersIn } from "../packaging/packedPackage.js";

t.test("in-memory idempotency store (examples/custom-adapter)", (t) =>
  idempotencySuite({
    test: (name, fn) => t.test(name, fn),
    factory: async () => ({ layer: memoryIdempotencyStoreLayer(), close: async () => undefined }),
    supports: { concurrentConnections: false },
  }),
);

t.test("the custom adapter examples import only what an installed package offers (public subpaths, its dependencies and peers)", async (t) => {
  const root = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
  const manifest = readManifest(root);
  for (const file of ["MemoryIdempotencyStore.ts", "MemoryJobs.ts"]) {
    const source = readFileSync(join(root, "examples", "custom-adapter", file), "utf8");
    t.ok(specifiersIn(source).includes("domainkit/ports"), `${file} implements the ports by their public name`);
    t.same(importsAnAppCannotResolve(manifest, source), [], `a user copying ${file} can resolve every import`);
  }
});
