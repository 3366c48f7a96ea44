/**
 * What a user installing domainkit from npm (or a tarball) gets: every `exports` entry, its types
 * and the bin are in the package, whatever they import is in the package or among the runtime
 * dependencies, and nothing else is shipped (no tests beyond the testkit, no benchmarks, no sources).
 * Offline: reads npm's own `npm pack --dry-run` list of the built tree.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import t from "tap";
import { findRepoRoot } from "../architecture/dependencyRule.js";
import {
  binPaths,
  declarationOf,
  exportTargets,
  mapsWithMissingSources,
  packedFiles,
  readManifest,
  undeclaredRuntimeImports,
  undeclaredTypeImports,
  walkClosure,
  type ClosureProblem,
  type Manifest,
} from "./packedPackage.js";

const root = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
const manifest = readManifest(root);
const packed = packedFiles(root);
const nodeModules = join(root, "node_modules");
const entries = exportTargets(manifest);
const testkit = entries.find((e) => e.subpath === "./testkit");
const show = (problems: ReadonlyArray<ClosureProblem>) => problems.map((p) => `${p.from}: ${p.specifier}: ${p.problem}`).join("\n");

t.test("every exports entry and its declaration file are in the package", async (t) => {
  t.ok(entries.length >= 16, `${entries.length} module entries in exports`);
  const missing = entries.flatMap(({ subpath, target }) =>
    [target, declarationOf(target)].filter((file) => !packed.has(file)).map((file) => `${subpath} -> ${file}`),
  );
  t.same(missing, [], missing.join("\n") || "all shipped");
});

t.test("the bin and the compiled CLI it loads are in the package, with nothing to build", async (t) => {
  const bins = binPaths(manifest);
  t.ok(bins.length > 0, "package.json declares a bin");
  const closure = walkClosure(root, packed, bins, { declarations: false });
  t.ok(closure.files.has("dist/hosts/cli.js"), "the bin's CLI module is shipped");
  t.same(show(closure.problems), "", "everything the bin reaches is shipped");
  t.same(show(undeclaredRuntimeImports(manifest, closure)), "", "every package the bin reaches is a runtime dependency");
});

t.test("what each exports entry imports at run time is in the package or a runtime dependency", async (t) => {
  const closure = walkClosure(root, packed, [...entries.map((e) => e.target), ...binPaths(manifest)], { declarations: false });
  t.ok(closure.packages.has("effect"), "the walk reaches the library's own dependencies");
  t.same(show(closure.problems), "", "no relative import leaves the package");
  t.same(show(undeclaredRuntimeImports(manifest, closure)), "", "no import of a devDependency or an undeclared package");
});

t.test("each exports entry's types resolve inside the package, with types an installer gets", async (t) => {
  const closure = walkClosure(root, packed, entries.map((e) => declarationOf(e.target)), { declarations: true });
  t.ok(closure.files.size > entries.length, `${closure.files.size} declaration files reached`);
  t.same(show(closure.problems), "", "no type import leaves the package");
  t.same(show(undeclaredTypeImports(manifest, closure, nodeModules)), "", "every package the public types name comes with types");
});

t.test("the package ships no tests, benchmarks or sources: of test/, only the testkit's closure", async (t) => {
  t.ok(testkit, "exports has ./testkit");
  const kit = walkClosure(root, packed, testkit ? [testkit.target] : [], { declarations: false });
  const extra = [...packed].filter((file) => {
    if (/(^|\/)bench\//.test(file) || /\.test\.(js|d\.ts|ts)$/.test(file)) return true;
    if (/\.(ts|tsx|mts|cts)$/.test(file) && !/\.d\.[mc]?ts$/.test(file)) return true;
    if (/^(test|scripts|examples|docs|core|ports|adapters|hosts)\//.test(file) || file === "tsconfig.json" || file.startsWith(".")) return true;
    if (file.startsWith("dist/test/")) return !kit.files.has(file.replace(/\.d\.ts$|\.js\.map$/, ".js"));
    return !/^(dist|bin)\//.test(file) && !["package.json", "README.md", "LICENSE"].includes(file);
  });
  t.same(extra, [], extra.slice(0, 40).join("\n") + (extra.length > 40 ? `\n... and ${extra.length - 40} more` : ""));
});

t.test("every shipped source map points at shipped sources", async (t) => {
  const broken = mapsWithMissingSources(root, packed);
  t.same(broken.slice(0, 10), [], `${broken.length} maps name sources the package does not ship`);
});

t.test("the walk catches a testkit that imports unshipped test helpers or devDependencies", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "domainkit-packing-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  };
  write("dist/test/contract/index.js", 'export * from "./kit.js";\nimport { db } from "../support/databases.js";\n');
  write("dist/test/contract/kit.js", 'import t from "tap";\nimport { Effect } from "effect";\nconst p = createRequire(import.meta.url)("pino-pretty");\n');
  write("dist/test/contract/index.d.ts", 'import type { Context } from "koa";\nexport * from "./kit.js";\n');
  write("dist/test/contract/kit.d.ts", "export {};\n");
  const fixture: Manifest = {
    name: "fixture",
    dependencies: { effect: "^3", koa: "^3" },
    devDependencies: { tap: "^21", "@types/koa": "^3" },
  };
  const shipped = new Set(["dist/test/contract/index.js", "dist/test/contract/kit.js", "dist/test/contract/index.d.ts", "dist/test/contract/kit.d.ts"]);
  const runtime = walkClosure(dir, shipped, ["dist/test/contract/index.js"], { declarations: false });
  t.same(
    runtime.problems.map((p) => p.specifier),
    ["../support/databases.js"],
    "an import of an unshipped helper is reported",
  );
  t.same(
    undeclaredRuntimeImports(fixture, runtime).map((p) => `${p.specifier}: ${p.problem}`),
    ["tap: a devDependency: not installed for users", "pino-pretty: not a dependency"],
    "a devDependency and an undeclared package are reported",
  );
  const types = walkClosure(dir, shipped, ["dist/test/contract/index.d.ts"], { declarations: true });
  t.same(types.problems, [], "the declaration walk follows ./kit.js to kit.d.ts");
  t.same(
    undeclaredTypeImports(fixture, types, join(dir, "node_modules")).map((p) => `${p.specifier}: ${p.problem}`),
    ["koa: ships no types and @types/koa is not a dependency"],
    "types of a package without its own declarations need its @types package as a dependency",
  );
});
