/**
 * What `npm pack` (and so `npm publish`) ships, and whether an installed copy can work: the packed
 * file list as npm itself computes it, and a static walk of the import graph of each public entry
 * (package.json `exports`, their `.d.ts`, and the `bin`) through the packed files only.
 * Relative imports must land on a packed file; bare imports must be runtime dependencies (or
 * peers), and a bare import in a declaration file must come with types an installer gets.
 * The walk reuses the dependency rule's comment stripper and import finder.
 */
import { execFileSync } from "node:child_process";
import { builtinModules } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { findImports, stripComments } from "../architecture/dependencyRule.js";

/** The parts of package.json the packaging rules read. */
export interface Manifest {
  readonly name: string;
  readonly exports?: Readonly<Record<string, string>>;
  readonly bin?: string | Readonly<Record<string, string>>;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
  readonly scripts?: Readonly<Record<string, string>>;
}

/** Reads the package.json at `root`. */
export const readManifest = (root: string): Manifest => JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Manifest;

/**
 * The files `npm pack` would put in the tarball, as npm lists them (`--dry-run --json`), without
 * running lifecycle scripts (so no build: the list reflects the dist/ on disk).
 */
export const packedFiles = (root: string): ReadonlySet<string> => {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [report] = JSON.parse(out) as ReadonlyArray<{ readonly files: ReadonlyArray<{ readonly path: string }> }>;
  return new Set(report!.files.map((f) => f.path));
};

/** The `bin` entries, as paths inside the package. */
export const binPaths = (manifest: Manifest): ReadonlyArray<string> =>
  manifest.bin === undefined ? [] : typeof manifest.bin === "string" ? [manifest.bin] : Object.values(manifest.bin);

/** The `exports` targets that are modules (not package.json itself), as paths inside the package. */
export const exportTargets = (manifest: Manifest): ReadonlyArray<{ readonly subpath: string; readonly target: string }> =>
  Object.entries(manifest.exports ?? {})
    .filter(([, target]) => target.endsWith(".js"))
    .map(([subpath, target]) => ({ subpath, target: posix.normalize(target) }));

/** The declaration file tsc writes next to a compiled module. */
export const declarationOf = (jsPath: string): string => jsPath.replace(/\.js$/, ".d.ts");

/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`), or undefined for builtins. */
export const packageOf = (specifier: string): string | undefined => {
  if (specifier.startsWith("node:") || builtinModules.includes(specifier.split("/")[0]!)) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
};

const codePatterns: ReadonlyArray<RegExp> = [
  // createRequire(import.meta.url)("pino-pretty") and .resolve("better-sqlite3")
  /\bcreateRequire\s*\([^)]*\)\s*(?:\.\s*resolve\s*)?\(\s*(["'])([^"'\n]+)\1\s*\)/g,
  // the bin loads its compiled CLI by URL: new URL("../dist/hosts/cli.js", import.meta.url)
  /\bnew\s+URL\s*\(\s*(["'])(\.{1,2}\/[^"'\n]+\.js)\1\s*,\s*import\.meta\.url\s*\)/g,
];
/** Declaration files: `/// <reference types="node" />` (a comment, so read before stripping). */
const typeReference = /^\/\/\/\s*<reference\s+types\s*=\s*(["'])([^"'\n]+)\1/gm;

/** Every module specifier a compiled module or declaration file refers to. */
export const specifiersIn = (source: string): ReadonlyArray<string> => {
  const code = stripComments(source);
  const found = new Set(findImports(code).map((i) => i.specifier));
  for (const pattern of codePatterns) for (const m of code.matchAll(pattern)) found.add(m[2]!);
  for (const m of source.matchAll(typeReference)) found.add(m[2]!);
  return [...found];
};

/**
 * The imports of a source file (an example) that an app with the package installed could not
 * resolve: paths into the repository, subpaths the package does not export, and packages that are
 * neither a dependency nor a peer of it. Empty when the file can be copied into an app as is.
 */
export const importsAnAppCannotResolve = (manifest: Manifest, source: string): ReadonlyArray<string> =>
  specifiersIn(source).filter((specifier) => {
    if (specifier.startsWith(".") || specifier.startsWith("/")) return true;
    if (specifier === manifest.name || specifier.startsWith(`${manifest.name}/`)) return manifest.exports?.[`.${specifier.slice(manifest.name.length)}`] === undefined;
    const name = packageOf(specifier);
    return name !== undefined && manifest.dependencies?.[name] === undefined && manifest.peerDependencies?.[name] === undefined;
  });

/** A reference from a file that an installed copy of the package could not satisfy. */
export interface ClosureProblem {
  readonly from: string;
  readonly specifier: string;
  readonly problem: string;
}

/** The files reached from some entries, the packages they import (with a first importer), and what fails. */
export interface Closure {
  readonly files: ReadonlySet<string>;
  readonly packages: ReadonlyMap<string, string>;
  readonly problems: ReadonlyArray<ClosureProblem>;
}

/**
 * Walks imports from `entries` (paths inside the package), following relative specifiers through
 * the packed files only and collecting bare ones. `declarations` walks `.d.ts` files, where a
 * relative `./x.js` means `./x.d.ts`. Files are read from `root` (the packed list says which exist).
 */
export const walkClosure = (
  root: string,
  packed: ReadonlySet<string>,
  entries: ReadonlyArray<string>,
  options: { readonly declarations: boolean },
): Closure => {
  const files = new Set<string>();
  const packages = new Map<string, string>();
  const problems: ClosureProblem[] = [];
  const pending = entries.map((file) => ({ file, from: "(entry)", specifier: file }));
  while (pending.length > 0) {
    const { file, from, specifier } = pending.pop()!;
    if (files.has(file)) continue;
    if (!packed.has(file)) {
      problems.push({ from, specifier, problem: `resolves to ${file}, which is not in the package` });
      continue;
    }
    files.add(file);
    for (const next of specifiersIn(readFileSync(join(root, file), "utf8"))) {
      if (next.startsWith(".")) {
        const target = posix.normalize(posix.join(posix.dirname(file), next));
        pending.push({ file: options.declarations ? declarationOf(target) : target, from: file, specifier: next });
      } else if (next.startsWith("/")) {
        problems.push({ from: file, specifier: next, problem: "absolute path" });
      } else {
        const name = packageOf(next);
        if (name !== undefined && !packages.has(name)) packages.set(name, file);
      }
    }
  }
  return { files, packages, problems };
};

/** Packages imported at run time that an installer of the package does not get. */
export const undeclaredRuntimeImports = (manifest: Manifest, closure: Closure): ReadonlyArray<ClosureProblem> =>
  [...closure.packages]
    .filter(([name]) => name !== manifest.name && manifest.dependencies?.[name] === undefined && manifest.peerDependencies?.[name] === undefined)
    .map(([name, from]) => ({
      from,
      specifier: name,
      problem: manifest.devDependencies?.[name] !== undefined ? "a devDependency: not installed for users" : "not a dependency",
    }));

/** The `@types/` package that carries a package's types (`@scope/name` -> `@types/scope__name`). */
export const typesPackageOf = (name: string): string => `@types/${name.startsWith("@") ? name.slice(1).replace("/", "__") : name}`;

/** Whether an installed package ships its own declarations (read from `nodeModules`). */
export const shipsOwnTypes = (nodeModules: string, name: string): boolean => {
  const dir = join(nodeModules, name);
  if (!existsSync(join(dir, "package.json"))) return false;
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
  if (typeof manifest.types === "string" || typeof manifest.typings === "string") return true;
  if (JSON.stringify(manifest.exports ?? null).includes('"types"')) return true;
  // Declarations beside the entry modules (lib/index.js + lib/index.d.ts), as tsc finds them.
  const targets: string[] = ["index.js"];
  const collect = (value: unknown): void => {
    if (typeof value === "string") targets.push(value);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(collect);
  };
  collect(manifest.main);
  collect(manifest.exports);
  return targets.some((target) => /\.[mc]?js$/.test(target) && existsSync(join(dir, target.replace(/\.([mc]?)js$/, ".d.$1ts"))));
};

/**
 * Packages the public declarations import whose types an installer does not get: the package
 * must be a dependency (or peer), and ship its own types or have its `@types/` package as one.
 * `node` (Node's own types) is the consumer's to install and is not counted.
 */
export const undeclaredTypeImports = (manifest: Manifest, closure: Closure, nodeModules: string): ReadonlyArray<ClosureProblem> => {
  const declared = (name: string) => manifest.dependencies?.[name] !== undefined || manifest.peerDependencies?.[name] !== undefined;
  const problems: ClosureProblem[] = [];
  for (const [name, from] of closure.packages) {
    if (name === manifest.name || name === "node") continue;
    if (!declared(name)) problems.push({ from, specifier: name, problem: "not a dependency" });
    else if (!shipsOwnTypes(nodeModules, name) && !declared(typesPackageOf(name)))
      problems.push({ from, specifier: name, problem: `ships no types and ${typesPackageOf(name)} is not a dependency` });
  }
  return problems;
};

/** Shipped source maps whose sources are not shipped (a debugger would show nothing). */
export const mapsWithMissingSources = (root: string, packed: ReadonlySet<string>): ReadonlyArray<string> =>
  [...packed]
    .filter((file) => file.endsWith(".map"))
    .filter((file) => {
      const map = JSON.parse(readFileSync(join(root, file), "utf8")) as { readonly sources?: ReadonlyArray<string> };
      return (map.sources ?? []).some((source) => !packed.has(posix.normalize(posix.join(posix.dirname(file), source))));
    });
