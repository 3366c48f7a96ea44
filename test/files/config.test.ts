/**
 * File storage configuration (hosts/Config.ts): the retention windows are validated at start-up
 * with the documented defaults (trash 30 days, changes 90 days), and reach the module's settings.
 */
import t from "tap";
import { ConfigError, loadConfig } from "../../hosts/Config.js";

t.test("FILES_TRASH_RETENTION_DAYS and FILES_CHANGE_RETENTION_DAYS default to 30 and 90 days and refuse what is not 1 to 3650 days", async (t) => {
  const defaults = loadConfig({});
  t.equal(defaults.filesTrashRetentionDays, 30);
  t.equal(defaults.filesChangeRetentionDays, 90);
  const set = loadConfig({ FILES_TRASH_RETENTION_DAYS: "7", FILES_CHANGE_RETENTION_DAYS: "365" });
  t.equal(set.filesTrashRetentionDays, 7);
  t.equal(set.filesChangeRetentionDays, 365);
  for (const [name, value] of [["FILES_TRASH_RETENTION_DAYS", "0"], ["FILES_TRASH_RETENTION_DAYS", "soon"], ["FILES_CHANGE_RETENTION_DAYS", "3651"]] as const) {
    t.throws(() => loadConfig({ [name]: value }), ConfigError, `${name}=${value} is refused`);
  }
});
