#!/usr/bin/env node
// CLI entry: `npx domainkit <serve|worker|migrate|token|...>`. A source checkout (tsconfig.json
// beside package.json) builds once when dist/ is missing; an installed package ships dist/ and
// never compiles: a missing build there is reported in one line.
// Configuration and connectivity errors are printed by main() as one line (exit 2 or 1); what
// reaches the catch below is a bug, printed with its stack but with URL credentials redacted.
import { existsSync } from "node:fs";
import { execSync } from "node:child_process";
import { fileURLToPath } from "node:url";
// The AWS SDK prints an 8-line NodeVersionSupportWarning (it wants Node 22 from 2027) in plain
// text on every start with OBJECT_STORE_URL on Node 20, among JSON log lines. Turn off that one
// warning, by the SDK's own switch, in this process only (unless the operator set the switch);
// every other warning still prints.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const cli = new URL("../dist/hosts/cli.js", import.meta.url);
if (!existsSync(cli)) {
  if (!existsSync(new URL("../tsconfig.json", import.meta.url))) {
    process.stderr.write(`domainkit: ${fileURLToPath(cli)} is missing: this copy of the package was packed without its build; reinstall it from a published version or a packed tarball (npm pack builds first)\n`);
    process.exit(1);
  }
  try {
    execSync("npm run build", { stdio: "inherit", cwd: new URL("..", import.meta.url) });
  } catch {
    process.stderr.write("domainkit: the build failed (npm run build, output above)\n");
    process.exit(1);
  }
}
const { main } = await import(cli.href);
try {
  await main(process.argv.slice(2));
} catch (error) {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`${text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/]*):([^\s@/]*)@/gi, "$1$2:[REDACTED]@")}\n`);
  process.exitCode = 1;
}
