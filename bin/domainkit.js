#!/usr/bin/env node
// CLI entry: `npx domainkit <serve|worker|migrate|token|...>`. Builds first in a fresh checkout.
import { existsSync } from "node:fs";
import { execSync } from "node:child_process";
const cli = new URL("../dist/hosts/cli.js", import.meta.url);
if (!existsSync(cli)) execSync("npm run build", { stdio: "inherit", cwd: new URL("..", import.meta.url) });
const { main } = await import(cli.href);
await main(process.argv.slice(2));
