/**
 * Every answer a realtime client has to handle is documented where a client developer reads
 * (docs/conventions.md, "Realtime"): each message type, each `error` code, each unsubscribe reason,
 * each close code with its reason, each refusal of the upgrade, and the bounds with their defaults.
 * The catalogue is the one the server sends from (adapters/ws/Protocol.ts), so a new code that is
 * not documented fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { realtimeCloseCodes, realtimeErrorCodes, realtimeUpgradeRefusals, serverMessageTypes, unsubscribeReasons } from "../../adapters/ws/Protocol.js";
import { defaultRealtimeLimits } from "../../adapters/ws/RealtimeServer.js";
import { repositoryRoot } from "../hosts/support.js";

const realtimeSection = (): string => {
  const conventions = readFileSync(join(repositoryRoot(), "docs", "conventions.md"), "utf8");
  const start = conventions.indexOf("\n## Realtime");
  const end = conventions.indexOf("\n## ", start + 1);
  return start < 0 ? "" : conventions.slice(start, end < 0 ? undefined : end);
};

t.test("docs/conventions.md (Realtime) documents every message type, error code and unsubscribe reason the server sends", async (t) => {
  const section = realtimeSection();
  for (const type of serverMessageTypes) t.ok(section.includes(`"${type}"`) || section.includes(`\`${type}\``), `message type ${type}`);
  for (const code of realtimeErrorCodes) t.ok(section.includes(`\`${code}\``), `error code ${code}`);
  for (const reason of unsubscribeReasons) t.ok(section.includes(`\`${reason}\``), `unsubscribe reason ${reason}`);
});

t.test("docs/conventions.md (Realtime) documents every close code with its reason, and every refusal of the upgrade", async (t) => {
  const section = realtimeSection();
  for (const { code, reasons } of realtimeCloseCodes) {
    t.ok(section.includes(`\`${code}\``), `close code ${code}`);
    for (const reason of reasons) t.ok(section.includes(`\`${reason}\``), `close reason ${reason} (${code})`);
  }
  for (const { status, code } of realtimeUpgradeRefusals) {
    t.ok(section.includes(`${status} \`${code}\``), `upgrade refusal ${status} ${code}`);
  }
});

t.test("docs/conventions.md (Realtime) documents each bound of a socket with its default", async (t) => {
  const section = realtimeSection();
  for (const [name, value] of Object.entries(defaultRealtimeLimits)) {
    t.ok(section.includes(`\`${name}\``) && section.includes(String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ",")), `${name} (default ${value})`);
  }
});
