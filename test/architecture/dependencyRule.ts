/**
 * The dependency rule (docs/architecture.md, The dependency rule) as a lint: reads the TypeScript
 * sources of core/, ports/, adapters/ and hosts/ and reports every import or call that breaks
 * the layering:
 * - core/ and ports/ import only effect, core/ and ports/; core/ stays pure (no clock, randomness
 *   or process);
 * - ports/ import of core/ only the records of `core/<module>/model/**` and `core/kernel/**`
 *   (so ports and core form no cycle);
 * - inversify and reflect-metadata live in hosts/ only; adapters/ never import hosts/;
 * - a module's files never import another module's files: modules meet through top-level ports
 *   (e.g. `ports/PaymentGateway.ts`, the payment module's public entry for other modules),
 *   and only hosts/ see every module;
 * - Koa adapters and SQL adapters never import each other; adapters/sql/ (written once for both
 *   dialects) never imports adapters/sqlite/ or adapters/postgres/.
 * Comments are stripped first, so a doc comment that shows an import is not a violation.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";

/** One broken rule at one place. */
export interface Violation {
  readonly file: string;
  readonly line: number;
  readonly rule: string;
  readonly detail: string;
}

/** The layers the rule knows, by top-level folder. */
export const layers = ["core", "ports", "adapters", "hosts"] as const;
export type Layer = (typeof layers)[number];

const skippedFolders = new Set(["node_modules", "dist", ".build", ".git"]);

/** Walks up from `start` to the folder whose package.json is named "domainkit". */
export const findRepoRoot = (start: string): string => {
  let dir = start;
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "domainkit") return dir;
      } catch {
        // an unreadable package.json is not ours; keep walking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json named "domainkit" above ${start}`);
    dir = parent;
  }
};

/** Blanks comments (keeping newlines, so line numbers hold) and leaves strings and code intact. */
export const stripComments = (source: string): string => {
  let out = "";
  let i = 0;
  const templateDepth: number[] = []; // brace depth at which each open `${` returns to its template
  let braces = 0;
  let lastSignificant = "";
  const regexCanStart = () => lastSignificant === "" || /[(,=:[!&|?{};+\-*%<>~^]$/.test(lastSignificant) || /\b(return|typeof|case|do|else|in|of|void|yield|await)$/.test(out.trimEnd());
  const readString = (quote: string) => {
    out += source[i++];
    while (i < source.length && source[i] !== quote && source[i] !== "\n") {
      if (source[i] === "\\") out += source[i++] ?? "";
      out += source[i++] ?? "";
    }
    out += source[i++] ?? "";
  };
  const readTemplate = () => {
    // from just after a backtick or a closing `}` of `${`, to the closing backtick or next `${`
    while (i < source.length) {
      const c = source[i];
      if (c === "\\") {
        out += source[i++]! + (source[i++] ?? "");
      } else if (c === "`") {
        out += source[i++];
        return;
      } else if (c === "$" && source[i + 1] === "{") {
        out += "${";
        i += 2;
        templateDepth.push(braces);
        braces++;
        return;
      } else {
        out += source[i++];
      }
    }
  };
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      i += 2;
      while (i < source.length && !(source[i] === "*" && source[i + 1] === "/")) {
        out += source[i] === "\n" ? "\n" : " ";
        i++;
      }
      i += 2;
    } else if (c === '"' || c === "'") {
      readString(c);
      lastSignificant = c;
    } else if (c === "`") {
      out += source[i++];
      readTemplate();
      lastSignificant = "`";
    } else if (c === "/" && regexCanStart()) {
      out += source[i++];
      let inClass = false;
      while (i < source.length && source[i] !== "\n") {
        const r = source[i]!;
        if (r === "\\") {
          out += r + (source[i + 1] ?? "");
          i += 2;
          continue;
        }
        out += r;
        i++;
        if (r === "[") inClass = true;
        else if (r === "]") inClass = false;
        else if (r === "/" && !inClass) break;
      }
      lastSignificant = "/x";
    } else {
      if (c === "{") braces++;
      if (c === "}") {
        braces--;
        if (templateDepth.length > 0 && templateDepth[templateDepth.length - 1] === braces) {
          templateDepth.pop();
          out += c;
          i++;
          readTemplate();
          lastSignificant = "`";
          continue;
        }
      }
      out += c;
      i++;
      if (!/\s/.test(c)) lastSignificant = /[\w$]/.test(c) ? "w" : c;
    }
  }
  return out;
};

/** An import-like reference found in a source: static, re-export, side-effect, dynamic or require. */
export interface ImportReference {
  readonly specifier: string;
  readonly line: number;
}

const lineAt = (text: string, index: number): number => text.slice(0, index).split("\n").length;

/** Every module specifier the (comment-free) source refers to. */
export const findImports = (code: string): ReadonlyArray<ImportReference> => {
  const patterns = [
    // Static forms only at the start of a statement, so a string that merely mentions one is not a hit.
    /(?:^|[;{}])\s*import\s+(?:type\s+)?[\w$*{}\s,]*?\s*from\s*(["'])([^"'\n]+)\1/gm,
    /(?:^|[;{}])\s*export\s+(?:type\s+)?[\w$*{}\s,]*?\s*from\s*(["'])([^"'\n]+)\1/gm,
    /(?:^|[;{}])\s*import\s*(["'])([^"'\n]+)\1/gm,
    /\bimport\s*\(\s*(["'])([^"'\n]+)\1\s*\)/g,
    /\brequire\s*\(\s*(["'])([^"'\n]+)\1\s*\)/g,
  ];
  const found = new Map<number, ImportReference>();
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) {
      const specifier = match[2]!;
      const at = match.index + match[0].lastIndexOf(specifier);
      found.set(at, { specifier, line: lineAt(code, at) });
    }
  }
  return [...found.values()];
};

const forbiddenInCore: ReadonlyArray<{ readonly pattern: RegExp; readonly what: string }> = [
  { pattern: /\bDate\s*\.\s*now\s*\(/g, what: "Date.now( (use Effect Clock)" },
  { pattern: /\bMath\s*\.\s*random\s*\(/g, what: "Math.random( (use Effect Random or a port)" },
  { pattern: /\bnew\s+Date\s*\(\s*\)/g, what: "new Date() without arguments (use Effect Clock)" },
  { pattern: /(?<![\w$.])process\s*\./g, what: "process. (configuration comes from the host)" },
  { pattern: /(?<![\w$.])require\s*\(/g, what: "require( (ESM imports only)" },
];

/** The top-level layer of a repository-relative path (posix separators), if any. */
export const layerOf = (file: string): Layer | undefined => layers.find((layer) => file === layer || file.startsWith(`${layer}/`));

const isEffect = (specifier: string) => specifier === "effect" || specifier.startsWith("effect/");

/** The business modules, by the folder name they use under core/, ports/ and adapters/<kind>/. */
export const modules = ["projects", "payments", "identity", "files", "commerce", "delivery"] as const;

/** Adapter folders that belong to one module as a whole. */
const moduleAdapterFolders: Readonly<Record<string, (typeof modules)[number]>> = {
  "adapters/payments": "payments",
};

/**
 * The module a repository-relative path belongs to: `core/<m>/**`, `ports/<m>/**`,
 * `ports/<m>.ts`, `adapters/<kind>/<m>/**` or a module's own adapter folder. Kernel, shared ports
 * (`ports/PaymentGateway.ts`, `ports/Realtime.ts`), shared adapters and hosts belong to none.
 */
export const moduleOf = (file: string): string | undefined => {
  for (const [folder, module] of Object.entries(moduleAdapterFolders)) if (file.startsWith(`${folder}/`)) return module;
  const parts = file.split("/");
  const named = (segment: string | undefined) => modules.find((m) => segment === m || segment === `${m}.ts` || segment === `${m}.js`);
  if (parts[0] === "core" || parts[0] === "ports") return named(parts[1]);
  if (parts[0] === "adapters" && parts.length > 3) return named(parts[2]);
  return undefined;
};

/** The kind of adapter a path is: "koa", "sql", "sqlite", "postgres", ... (adapters/<kind>/...). */
const adapterKindOf = (file: string): string | undefined => {
  const parts = file.split("/");
  return parts[0] === "adapters" && parts.length > 2 ? parts[1] : undefined;
};

/** Checks one source file given its repository-relative path (posix separators). */
export const checkSource = (file: string, source: string): ReadonlyArray<Violation> => {
  const layer = layerOf(file);
  if (layer === undefined) return [];
  const code = stripComments(source);
  const violations: Violation[] = [];
  const report = (line: number, rule: string, detail: string) => violations.push({ file, line, rule, detail });
  for (const { specifier, line } of findImports(code)) {
    const relativeImport = specifier.startsWith("./") || specifier.startsWith("../");
    const target = relativeImport ? posix.normalize(posix.join(posix.dirname(file), specifier)) : undefined;
    const targetLayer = target === undefined ? undefined : layerOf(target);
    if (relativeImport && (target === undefined || target.startsWith("../") || targetLayer === undefined)) {
      report(line, "relative imports stay inside the layers", `${specifier} leaves core/, ports/, adapters/ and hosts/`);
    }
    if (layer === "core" || layer === "ports") {
      const allowed = relativeImport ? targetLayer === "core" || targetLayer === "ports" : isEffect(specifier);
      if (!allowed) {
        report(line, `${layer}/ imports only effect, core/ and ports/`, `imports ${specifier}`);
      }
    }
    const bare = specifier.split("/")[0];
    if ((bare === "inversify" || bare === "reflect-metadata") && layer !== "hosts") {
      report(line, "inversify and reflect-metadata live in hosts/ only", `imports ${specifier}`);
    }
    if (layer === "adapters" && (targetLayer === "hosts" || specifier === "domainkit/hosts" || specifier.startsWith("domainkit/hosts/"))) {
      report(line, "adapters/ never imports hosts/", `imports ${specifier}`);
    }
    if (target === undefined) continue;
    if (layer === "ports" && targetLayer === "core" && !target.startsWith("core/kernel/") && !/^core\/[^/]+\/model\//.test(target)) {
      report(line, "ports/ import of core/ only core/<module>/model/ and core/kernel/", `imports ${specifier}`);
    }
    const from = moduleOf(file);
    const to = moduleOf(target);
    if (layer !== "hosts" && from !== undefined && to !== undefined && from !== to) {
      report(line, "a module imports no other module (only top-level ports)", `${from} imports ${to}: ${specifier}`);
    }
    const fromKind = adapterKindOf(file);
    const toKind = adapterKindOf(target);
    if ((fromKind === "koa" && (toKind === "sql" || toKind === "sqlite" || toKind === "postgres")) || ((fromKind === "sql" || fromKind === "sqlite" || fromKind === "postgres") && toKind === "koa")) {
      report(line, "Koa and SQL adapters never import each other", `imports ${specifier}`);
    }
    if (fromKind === "sql" && (toKind === "sqlite" || toKind === "postgres")) {
      report(line, "adapters/sql/ imports neither adapters/sqlite/ nor adapters/postgres/", `imports ${specifier}`);
    }
  }
  if (layer === "core") {
    for (const { pattern, what } of forbiddenInCore) {
      for (const match of code.matchAll(pattern)) report(lineAt(code, match.index), "core/ stays pure", `uses ${what}`);
    }
  }
  return violations;
};

/** Every .ts source (not .d.ts) under the layer folders of `root`, as posix relative paths. */
export const listSources = (root: string): ReadonlyArray<string> => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (skippedFolders.has(name)) continue;
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) files.push(relative(root, full).split(sep).join("/"));
    }
  };
  for (const layer of layers) if (existsSync(join(root, layer))) walk(join(root, layer));
  return files.sort();
};

/** Checks the whole repository under `root`. */
export const checkTree = (root: string): { readonly files: number; readonly violations: ReadonlyArray<Violation> } => {
  const files = listSources(root);
  return { files: files.length, violations: files.flatMap((file) => checkSource(file, readFileSync(join(root, file), "utf8"))) };
};
