#!/usr/bin/env node
// CLI entry: `npx domainkit <serve|worker|migrate|token|...>`. Builds first in a fresh checkout.
// Configuration and connectivity errors are printed by main() as one line (exit 2 or 1); what
// reaches the catch below is a bug, printed with its stack but with URL credentials redacted.
import { existsSync } from "node:fs";
import { execSync } from "node:child_process";
const cli = new URL("../dist/hosts/cli.js", import.meta.url);
if (!existsSync(cli)) execSync("npm run build", { stdio: "inherit", cwd: new URL("..", import.meta.url) });
const { main } = await import(cli.href);
try {
  await main(process.argv.slice(2));
} catch (error) {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`${text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/]*):([^\s@/]*)@/gi, "$1$2:[REDACTED]@")}\n`);
  process.exitCode = 1;
}
