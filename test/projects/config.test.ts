/**
 * Projects retention configuration (hosts/Config.ts): PROJECTS_EXPORT_RETENTION_DAYS and
 * PROJECTS_QUARANTINE_RETENTION_DAYS default to 7 and 30 days, refuse what is not 1 to 3650 days
 * at start-up (hosts/modules/index.ts passes them to the projects module).
 */
import t from "tap";
import { ConfigError, loadConfig } from "../../hosts/Config.js";

t.test("PROJECTS_EXPORT_RETENTION_DAYS and PROJECTS_QUARANTINE_RETENTION_DAYS default to 7 and 30 days and refuse what is not 1 to 3650 days", async (t) => {
  const defaults = loadConfig({});
  t.equal(defaults.projectsExportRetentionDays, 7);
  t.equal(defaults.projectsQuarantineRetentionDays, 30);
  const set = loadConfig({ PROJECTS_EXPORT_RETENTION_DAYS: "1", PROJECTS_QUARANTINE_RETENTION_DAYS: "90" });
  t.equal(set.projectsExportRetentionDays, 1);
  t.equal(set.projectsQuarantineRetentionDays, 90);
  for (const [name, value] of [["PROJECTS_EXPORT_RETENTION_DAYS", "0"], ["PROJECTS_EXPORT_RETENTION_DAYS", "a week"], ["PROJECTS_QUARANTINE_RETENTION_DAYS", "3651"]] as const) {
    t.throws(() => loadConfig({ [name]: value }), ConfigError, `${name}=${value} is refused`);
  }
});
