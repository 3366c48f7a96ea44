/**
 * File storage configuration (hosts/Config.ts): the retention windows are validated at start-up
 * with the documented defaults (trash 30 days, changes 90 days, audit exports 7 days), and reach
 * the module's settings.
 */
import t from "tap";
import { ConfigError, loadConfig } from "../../hosts/Config.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { startReferenceServer, testConfig } from "../hosts/support.js";

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

t.test("FILES_AUDIT_EXPORT_RETENTION_DAYS defaults to 7 days, refuses what is not 1 to 3650 days, and sets the files module's audit export retention", async (t) => {
  t.equal(loadConfig({}).filesAuditExportRetentionDays, 7);
  for (const value of ["0", "3651", "a week"]) {
    t.throws(() => loadConfig({ FILES_AUDIT_EXPORT_RETENTION_DAYS: value }), ConfigError, `FILES_AUDIT_EXPORT_RETENTION_DAYS=${value} is refused`);
  }
  const config = await testConfig("sqlite", t, { FILES_AUDIT_EXPORT_RETENTION_DAYS: "2" });
  t.equal(config.filesAuditExportRetentionDays, 2);
  const { server } = await startReferenceServer(t, config);
  const settings = await server.core.runtime.runPromise(FilesSettings);
  t.equal(settings.auditExportRetentionMs, 2 * 86_400_000, "the reference server's files module keeps exports 2 days");
  t.equal(settings.changeRetentionDays, 90, "the other settings keep their defaults");
});
