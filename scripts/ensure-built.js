// `npm start` right after `npm install`: build once if dist/ is missing.
import { existsSync } from "node:fs";
import { execSync } from "node:child_process";
if (!existsSync(new URL("../dist/hosts/cli.js", import.meta.url))) {
  execSync("npm run build", { stdio: "inherit", cwd: new URL("..", import.meta.url) });
}
