/**
 * The dependency rule (docs/architecture.md, The dependency rule): core/ and ports/ stay pure,
 * ports import only model records of core, adapters never reach hosts, modules meet only through
 * top-level ports, Koa and SQL adapters stay apart, and adapters/sql/ stays dialect-neutral.
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import t from "tap";
import { checkSource, checkTree, findImports, findRepoRoot, listSources, moduleOf, stripComments, type Violation } from "./dependencyRule.js";

const root = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

/**
 * Accepted violations, as `file -> imported specifier`: none. Kept so a temporary exception must
 * be written here (and removed when fixed: the test fails on a stale entry).
 */
const knownViolations: ReadonlyArray<string> = [];

const keyOf = (v: Violation): string => `${v.file} -> ${v.detail.replace(/^(imports |\w+ imports \w+: )/, "")}`;

t.test("the repository's own sources follow the dependency rule", async (t) => {
  const { files, violations } = checkTree(root);
  t.ok(files > 0, `scanned ${files} files`);
  t.ok(listSources(root).includes("core/kernel/Errors.ts"), "the kernel is among the scanned files");
  t.notOk(listSources(root).some((f) => /(^|\/)(node_modules|dist|\.build)\//.test(f)), "build output and dependencies are not scanned");
  const unexpected = violations.filter((v) => !knownViolations.includes(keyOf(v)));
  t.same(unexpected, [], unexpected.map((v) => `${v.file}:${v.line} ${v.rule}: ${v.detail}`).join("\n") || "no violations beyond the known ones");
  const fixed = knownViolations.filter((known) => !violations.some((v) => keyOf(v) === known));
  // A fixed violation leaves the list too, so the list can only shrink.
  t.same(fixed, [], "every known violation is still present (remove fixed ones from the list)");
});

t.test("the module rule: each file's module, and only top-level ports between modules", async (t) => {
  t.equal(moduleOf("core/projects/Tasks.ts"), "projects");
  t.equal(moduleOf("core/payments/model/Intent.ts"), "payments");
  t.equal(moduleOf("ports/projects/TasksRepository.ts"), "projects");
  t.equal(moduleOf("ports/payments.ts"), "payments");
  t.equal(moduleOf("adapters/sql/projects/SqlTasksRepository.ts"), "projects");
  t.equal(moduleOf("adapters/koa/payments/index.ts"), "payments");
  t.equal(moduleOf("adapters/payments/providers/sandbox/SandboxProvider.ts"), "payments");
  t.equal(moduleOf("adapters/payments/gateway/InProcessPaymentGateway.ts"), "payments");
  t.equal(moduleOf("ports/PaymentGateway.ts"), undefined, "the payment module's public entry belongs to no module");
  t.equal(moduleOf("core/kernel/Page.ts"), undefined);
  t.equal(moduleOf("adapters/sql/SqlJobs.ts"), undefined);
  t.equal(moduleOf("hosts/modules/paymentsModule.ts"), undefined, "hosts see every module");
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
  // ports import of core only model records and the kernel
  ["ports/projects/TasksRepository.ts", `import type { Task } from "../../core/projects/Records.js";`, "ports/ import of core/ only"],
  ["ports/Shop.ts", `import { placeOrder } from "../core/commerce/PlaceOrder.js";`, "ports/ import of core/ only"],
  // modules meet only through top-level ports
  ["core/commerce/PlaceOrder.ts", `import { createIntent } from "../payments/CreateIntent.js";`, "a module imports no other module"],
  ["core/delivery/Assign.ts", `import type { Order } from "../commerce/model/Order.js";`, "a module imports no other module"],
  ["ports/commerce/Orders.ts", `import type { Intent } from "../../core/payments/model/Intent.js";`, "a module imports no other module"],
  ["adapters/sql/commerce/SqlOrders.ts", `import { makeSqlPaymentsRepository } from "../payments/SqlPaymentsRepository.js";`, "a module imports no other module"],
  ["adapters/koa/commerce/OrderRoutes.ts", `import { paymentRoutes } from "../payments/index.js";`, "a module imports no other module"],
  ["adapters/koa/commerce/OrderRoutes.ts", `import { makeSandboxProvider } from "../../payments/providers/sandbox/SandboxProvider.js";`, "a module imports no other module"],
  ["adapters/payments/gateway/X.ts", `import { tasksRoute } from "../../koa/projects/TaskRoutes.js";`, "a module imports no other module"],
  // Koa and SQL adapters apart; adapters/sql dialect-neutral
  ["adapters/koa/projects/TaskRoutes.ts", `import { makeSqlTasksRepository } from "../../sql/projects/SqlTasksRepository.js";`, "Koa and SQL adapters never import each other"],
  ["adapters/koa/Route.ts", `import { openSqlite } from "../sqlite/openSqlite.js";`, "Koa and SQL adapters never import each other"],
  ["adapters/sql/payments/paymentRows.ts", `import { IntentView } from "../../koa/payments/PaymentSchemas.js";`, "Koa and SQL adapters never import each other"],
  ["adapters/postgres/X.ts", `import { problem } from "../koa/ProblemJson.js";`, "Koa and SQL adapters never import each other"],
  ["adapters/sql/storageLayer.ts", `import { postgresWorkSignals } from "../postgres/PostgresWorkSignals.js";`, "adapters/sql/ imports neither"],
  ["adapters/sql/featuresFor.ts", `export * from "../sqlite/sqliteFeatures.js";`, "adapters/sql/ imports neither"],
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
    ["ports/projects/TasksRepository.ts", `import type { Task } from "../../core/projects/model/Task.js";\nimport type { Page } from "../../core/kernel/Page.js";\nimport { Ids } from "../Ids.js";`],
    ["core/commerce/PlaceOrder.ts", `import { PaymentGateway } from "../../ports/PaymentGateway.js";\nimport { Page } from "../kernel/Page.js";`],
    ["adapters/sql/commerce/SqlOrders.ts", `import { rowCodec } from "../RowCodec.js";\nimport type { Order } from "../../../core/commerce/model/Order.js";`],
    ["adapters/koa/commerce/OrderRoutes.ts", `import { defineRoute } from "../Route.js";\nimport { placeOrder } from "../../../core/commerce/PlaceOrder.js";`],
    ["hosts/modules/commerceModule.ts", `import { makeSqlPaymentsRepository } from "../../adapters/sql/payments/SqlPaymentsRepository.js";\nimport { orderRoutes } from "../../adapters/koa/commerce/OrderRoutes.js";`],
    ["adapters/postgres/openPostgres.ts", `import type { SqlDatabase } from "../sql/SqlDatabase.js";`],
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
