/**
 * Merchant webhook URLs name public hosts (payments audit O3, docs/decisions.md sixteenth
 * session): a signed POST the server makes to the cloud metadata address, a private network or
 * a local-use name is a request forgery, so registration refuses such https URLs with 422 on
 * `url`. Plain http is limited to the loopback interface, where the host allows it (development).
 */
import t from "tap";
import { isNonPublicHost } from "../../core/payments/WebhookTarget.js";
import { createWebhookEndpoint } from "../../core/payments/WebhookEndpointCommands.js";
import { forEachDialect } from "../support/databases.js";
import { newMerchant, paymentsRuntime } from "./support.js";

const hostOf = (url: string) => new URL(url).hostname;

t.test("loopback, private, link-local, shared, multicast and local-use hosts are not public, in every notation the URL parser reads", async (t) => {
  for (const url of [
    "https://169.254.169.254/latest/meta-data/",
    "https://10.0.0.5/",
    "https://172.16.0.1/",
    "https://172.31.255.255/",
    "https://192.168.1.1/",
    "https://100.64.0.1/",
    "https://127.0.0.1/",
    "https://0x7f.1/",
    "https://2130706433/",
    "https://0/",
    "https://224.0.0.1/",
    "https://255.255.255.255/",
    "https://[::1]/",
    "https://[::]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:a9fe:a9fe]/",
    "https://[64:ff9b::a00:1]/",
    "https://[fd00::1]/",
    "https://[fe80::1]/",
    "https://[ff02::1]/",
    "https://localhost/",
    "https://api.localhost/",
    "https://printer.local/",
    "https://db.internal/",
    "https://router.home.arpa/",
    "https://intranet/",
    "https://169.254.169.254./",
  ]) {
    t.ok(isNonPublicHost(hostOf(url)), `${url} is not public`);
  }
  for (const url of ["https://merchant.example/hooks", "https://93.184.216.34/", "https://172.32.0.1/", "https://[2606:4700::1111]/", "https://[::ffff:5db8:d822]/", "https://hooks.shop.com./"]) {
    t.notOk(isNonPublicHost(hostOf(url)), `${url} is public`);
  }
});

t.test("IPv4-compatible, SIIT, 6to4, NAT64 and Teredo addresses embedding a non-public IPv4, site-local IPv6 and the IPv4 documentation ranges are not public", async (t) => {
  for (const url of [
    "https://[::127.0.0.1]/",
    "https://[::10.0.0.1]/",
    "https://[::ffff:0:127.0.0.1]/",
    "https://[2002:7f00:1::]/",
    "https://[2002:a9fe:a9fe::1]/",
    "https://[2002:c000:201::]/",
    "https://[64:ff9b::127.0.0.1]/",
    "https://[64:ff9b:1::7f00:1]/",
    "https://[64:ff9b:1:ffff::5db8:d822]/",
    "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
    "https://[fec0::1]/",
    "https://[feff::1]/",
    "https://192.0.2.1/",
    "https://198.51.100.7/",
    "https://203.0.113.9/",
  ]) {
    t.ok(isNonPublicHost(hostOf(url)), `${url} is not public`);
  }
  for (const url of ["https://[2002:5db8:d822::1]/", "https://[64:ff9b::93.184.216.34]/", "https://192.0.3.1/", "https://198.51.101.1/", "https://203.0.114.1/", "https://[2001:4860::8888]/"]) {
    t.notOk(isNonPublicHost(hostOf(url)), `${url} is public`);
  }
});

t.test("registering an https webhook URL that names a non-public host answers 422 on url; a public one is registered", (t) =>
  forEachDialect(t, "webhook targets", async (t, db) => {
    const { run, attempt } = paymentsRuntime(t, db);
    const merchant = await newMerchant(run, ["payments:write", "webhooks:write"]);
    for (const url of ["https://169.254.169.254/latest/meta-data/", "https://10.1.2.3/hook", "https://[fd12::1]/hook", "https://vault.internal/hook"]) {
      t.match(await attempt(createWebhookEndpoint(merchant, { url })), { ok: false, error: { code: "validation_failed", errors: [{ path: "url" }] } }, `${url} refused`);
    }
    t.match(await attempt(createWebhookEndpoint(merchant, { url: "https://hooks.merchant.example/payments" })), { ok: true }, "a public host is registered");
  }),
);
