/** The dependency rule (architecture.md): core/ and ports/ stay pure; adapters never reach hosts. */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import t from "tap";
import { checkSource, checkTree, findImports, findRepoRoot, listSources, stripComments } from "./dependencyRule.js";

const root = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

t.test("the repository's own sources follow the dependency rule", async (t) => {
  const { files, violations } = checkTree(root);
  t.ok(files > 0, `scanned ${files} files`);
  t.ok(listSources(root).includes("core/kernel/Errors.ts"), "the kernel is among the scanned files");
  t.notOk(listSources(root).some((f) => /(^|\/)(node_modules|dist|\.build)\//.test(f)), "build output and dependencies are not scanned");
  t.same(violations, [], violations.map((v) => `${v.file}:${v.line} ${v.rule}: ${v.detail}`).join("\n") || "no violations");
});

// Each fixture breaks exactly one rule; the checker must flag it, so the test above can fail.
const broken: ReadonlyArray<readonly [string, string, string]> = [
  ["core/kernel/Bad.ts", `import { readFileSync } from "node:fs";`, "core/ imports only effect"],
  ["core/shop/Bad.ts", `import { Kysely } from "kysely";`, "core/ imports only effect"],
  ["core/shop/Bad.ts", `import type { Kysely } from "kysely";`, "core/ imports only effect"],
  ["core/shop/Bad.ts", `export { sql } from "kysely";`, "core/ imports only effect"],
  ["core/shop/Bad.ts", `import "reflect-metadata";`, "core/ imports only effect"],
  ["core/shop/Bad.ts", `const m = await import("node:crypto");`, "core/ imports only effect"],
  ["core/shop/Bad.ts", `import { openSqlite } from "../../adapters/sqlite/index.js";`, "core/ imports only effect"],
  ["core/shop/Bad.ts", `import { createServer } from "../../hosts/index.js";`, "core/ imports only effect"],
  ["core/shop/Bad.ts", `import { x } from "../../test/support/databases.js";`, "relative imports stay inside"],
  ["core/shop/Bad.ts", `import { Effect } from "effect";\nexport const now = () => Date.now();`, "core/ stays pure"],
  ["core/shop/Bad.ts", `export const roll = Math.random();`, "core/ stays pure"],
  ["core/shop/Bad.ts", `export const today = new Date();`, "core/ stays pure"],
  ["core/shop/Bad.ts", `export const port = process.env.PORT;`, "core/ stays pure"],
  ["core/shop/Bad.ts", `const fs = require("fs");`, "core/ imports only effect"],
  ["ports/Shop.ts", `import { Kysely } from "kysely";`, "ports/ imports only effect"],
  ["ports/Shop.ts", `import { SqlDatabase } from "../adapters/sql/SqlDatabase.js";`, "ports/ imports only effect"],
  ["ports/Shop.ts", `import { container } from "../hosts/container.js";`, "ports/ imports only effect"],
  ["adapters/koa/app.ts", `import { injectable } from "inversify";`, "inversify and reflect-metadata live in hosts/ only"],
  ["adapters/koa/app.ts", `import "reflect-metadata";`, "inversify and reflect-metadata live in hosts/ only"],
  ["adapters/koa/app.ts", `import { config } from "../../hosts/Config.js";`, "adapters/ never imports hosts/"],
  ["adapters/ws/server.ts", `export * from "../../hosts/index.js";`, "adapters/ never imports hosts/"],
];

t.test("the checker flags each kind of violation", async (t) => {
  for (const [file, source, rule] of broken) {
    const violations = checkSource(file, source);
    t.ok(violations.some((v) => v.rule.startsWith(rule)), `${file}: ${source.replace(/\n/g, " ")} -> ${rule}`);
    t.ok(violations.every((v) => v.line >= 1), "violations carry a line number");
  }
  t.equal(checkSource("core/x.ts", `import { Effect } from "effect";\n\nconst t = Date.now();`)[0]?.line, 3, "the line is right");
});

t.test("the checker accepts what the rule allows", async (t) => {
  const allowed: ReadonlyArray<readonly [string, string]> = [
    ["core/kernel/Good.ts", `import { Effect, Schema } from "effect";\nimport { Ids } from "../../ports/Ids.js";\nimport { NotFound } from "./Errors.js";`],
    ["core/kernel/Good.ts", `import * as Arr from "effect/Array";\nexport const at = (ms: number) => new Date(ms).toISOString();`],
    ["core/kernel/Good.ts", `/** Example: import { v7 } from "uuid"; Date.now() is banned */\n// process.env and Math.random() are named here only\nimport { Clock } from "effect";`],
    ["core/kernel/Good.ts", `const re = /"[^"]*"/;\nconst s = "import x from 'kysely'";\nconst tpl = \`\${"a"} // not a comment\`;`],
    ["ports/Good.ts", `import { Context, Effect } from "effect";\nimport type { Money } from "../core/kernel/Money.js";`],
    ["adapters/sql/Good.ts", `import { Kysely } from "kysely";\nimport { Ids } from "../../ports/Ids.js";\nconst t = Date.now();`],
    ["hosts/container.ts", `import "reflect-metadata";\nimport { Container } from "inversify";\nimport { openSqlite } from "../adapters/sqlite/index.js";`],
  ];
  for (const [file, source] of allowed) t.same(checkSource(file, source), [], file);
});

t.test("comments are blanked without disturbing strings, regexes or line numbers", async (t) => {
  const source = `const a = "// kept"; // gone\n/* gone\n gone */ const b = /\\/\\/kept/;\nconst c = \`\${a /* gone */} // kept\`;`;
  const code = stripComments(source);
  t.equal(code.split("\n").length, source.split("\n").length);
  t.notMatch(code, /gone/);
  t.match(code, /"\/\/ kept"/);
  t.match(code, /\\\/\\\/kept/);
  t.match(code, /} \/\/ kept`/);
  t.same(
    findImports(`import a from "x";\nimport type { B } from 'y';\nexport * from "./z.js";\nimport "side";\nawait import("dyn");`).map((i) => i.specifier).sort(),
    ["./z.js", "dyn", "side", "x", "y"],
  );
});
