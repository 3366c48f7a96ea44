/**
 * Payments migration 33: a merchant webhook URL is https, or plain http on the loopback interface
 * (security audit S1). The core decides per host whether loopback http is allowed at all
 * (core/payments/WebhookTarget.ts, off in production); the database holds the form that is never
 * allowed otherwise, whoever writes: plain http to a host other than localhost, 127.0.0.1 or
 * [::1] (credentials before it included), or another scheme, is refused on insert and on a change
 * of `url`. Stored URLs are normalized by the core (lower-case scheme and host, a path after the
 * authority), so the check reads that form. Rows written before stay readable.
 */
import type { Migration } from "../../Migration.js";

const postgres = [
  `CREATE FUNCTION payment_webhook_url_https_or_loopback() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.url !~ '^(https://|http://(localhost|127\\.0\\.0\\.1|\\[::1\\])(:[0-9]{1,5})?/)' THEN
       RAISE EXCEPTION 'a webhook URL is https, or plain http on the loopback interface' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER payment_webhook_endpoints_url_form BEFORE INSERT OR UPDATE OF url ON payment_webhook_endpoints FOR EACH ROW EXECUTE FUNCTION payment_webhook_url_https_or_loopback()`,
];

// SQLite: GLOB is case-sensitive; the authority (after "http://", up to the first "/") holds no "@".
const sqliteRefused =
  `NOT (NEW.url GLOB 'https://*' OR (` +
  `(NEW.url GLOB 'http://localhost[:/]*' OR NEW.url GLOB 'http://127.0.0.1[:/]*' OR NEW.url GLOB 'http://[[]::1][:/]*') ` +
  `AND instr(substr(NEW.url, 8), '/') > 0 AND instr(substr(NEW.url, 8, instr(substr(NEW.url, 8), '/')), '@') = 0))`;

const sqlite = [
  `CREATE TRIGGER payment_webhook_endpoints_url_form_insert BEFORE INSERT ON payment_webhook_endpoints FOR EACH ROW WHEN ${sqliteRefused} ` +
    `BEGIN SELECT RAISE(ABORT, 'a webhook URL is https, or plain http on the loopback interface'); END`,
  `CREATE TRIGGER payment_webhook_endpoints_url_form_update BEFORE UPDATE OF url ON payment_webhook_endpoints FOR EACH ROW WHEN ${sqliteRefused} ` +
    `BEGIN SELECT RAISE(ABORT, 'a webhook URL is https, or plain http on the loopback interface'); END`,
];

/** Version 33 of the payment module. */
export const paymentsMigration0033WebhookUrlsHttpsOrLoopback: Migration = {
  version: 33,
  name: "webhook_urls_https_or_loopback",
  sqlite,
  postgres,
};
