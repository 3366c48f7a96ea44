// Removes dist/ before a build so deleted sources (and their tests) cannot linger.
import { rmSync } from "node:fs";
rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
