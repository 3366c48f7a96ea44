/**
 * Merchant webhooks are sent only to public addresses (payments audit O3): registration refuses
 * literal non-public hosts, and the sender connects to an https receiver through a lookup that
 * refuses a name resolving to any non-public address, so a public-looking name pointed at the
 * metadata address or a private network is never posted to.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { lookup as dnsLookup } from "node:dns";
import { Effect } from "effect";
import t from "tap";
import { makeFetchMerchantWebhookSender } from "../../adapters/payments/webhooks/FetchMerchantWebhookSender.js";
import { NonPublicAddress, publicOnlyLookup, type ResolveAll } from "../../adapters/payments/webhooks/PublicOnlyLookup.js";

const answering = (addresses: ReadonlyArray<{ address: string; family: number }>): ResolveAll => (_hostname, callback) => callback(null, addresses);

const lookUp = (resolve: ResolveAll, all: boolean) =>
  new Promise<{ error: unknown; result: unknown }>((done) => {
    (publicOnlyLookup(resolve) as unknown as (h: string, o: { all: boolean }, cb: (error: unknown, result: unknown) => void) => void)("hooks.merchant.example", { all }, (error, result) =>
      done({ error, result }),
    );
  });

t.test("a name resolving only to public addresses is answered; one with any non-public address fails NonPublicAddress", async (t) => {
  const publicOnes = [{ address: "93.184.216.34", family: 4 }, { address: "2606:4700::1111", family: 6 }];
  t.same((await lookUp(answering(publicOnes), true)).result, publicOnes, "all addresses when asked for all");
  t.equal((await lookUp(answering(publicOnes), false)).result, "93.184.216.34", "the first otherwise");
  for (const inside of [
    { address: "169.254.169.254", family: 4 },
    { address: "10.0.0.7", family: 4 },
    { address: "127.0.0.1", family: 4 },
    { address: "fd00::5", family: 6 },
    { address: "::1", family: 6 },
    { address: "::ffff:127.0.0.1", family: 6 },
  ]) {
    for (const all of [true, false]) {
      const { error } = await lookUp(answering([publicOnes[0]!, inside]), all);
      t.ok(error instanceof NonPublicAddress, `${inside.address} among the answers is refused (all: ${all})`);
    }
  }
  t.ok((await lookUp(answering([]), true)).error instanceof NonPublicAddress, "an empty answer connects nowhere");
});

t.test("at connect time a name answering an address that embeds or names a non-public one (IPv4-compatible, 6to4, NAT64, site-local, documentation) is refused", async (t) => {
  const publicOne = { address: "93.184.216.34", family: 4 };
  for (const inside of [
    { address: "::7f00:1", family: 6 },
    { address: "::ffff:0:7f00:1", family: 6 },
    { address: "2002:7f00:1::", family: 6 },
    { address: "64:ff9b:1::a00:1", family: 6 },
    { address: "fec0::1", family: 6 },
    { address: "192.0.2.10", family: 4 },
    { address: "203.0.113.10", family: 4 },
  ]) {
    t.ok((await lookUp(answering([publicOne, inside]), true)).error instanceof NonPublicAddress, `${inside.address} among the answers is refused`);
  }
});

t.test("the sender never connects to an https receiver whose name resolves to a non-public address, and tells it as a connection that got no answer (no map of internal names)", async (t) => {
  let connections = 0;
  const receiver = createServer((_req, res) => res.end("ok"));
  receiver.on("connection", () => connections++);
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const { port } = receiver.address() as AddressInfo;
  const sender = makeFetchMerchantWebhookSender({ timeoutMs: 2_000 });
  const sent = await Effect.runPromise(
    sender.send({ url: `https://localhost:${port}/hooks`, secrets: ["whsec_test"], eventId: "evt_1", body: "{}", timestampSeconds: 1 }),
  );
  t.equal(connections, 0, "no connection was made");
  // What a name the sender may connect to answers when nothing listens there (a lookup that allows loopback).
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const permissive = makeFetchMerchantWebhookSender({ timeoutMs: 2_000, lookup: dnsLookup as never });
  const refused = await Effect.runPromise(
    permissive.send({ url: `https://localhost:${closedPort}/hooks`, secrets: ["whsec_test"], eventId: "evt_2", body: "{}", timestampSeconds: 1 }),
  );
  t.match(refused, { ok: false, statusCode: null, error: "no answer (Error)" }, "a refused connection");
  t.same(sent, refused, "the non-public name is told exactly as the refused connection");
});

t.test("the sender never connects to an https receiver named by a non-public literal address, which no lookup sees", async (t) => {
  let connections = 0;
  const receiver = createServer((_req, res) => res.end("ok"));
  receiver.on("connection", () => connections++);
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const { port } = receiver.address() as AddressInfo;
  const sender = makeFetchMerchantWebhookSender({ timeoutMs: 2_000 });
  for (const url of [`https://127.0.0.1:${port}/hooks`, `https://[::ffff:127.0.0.1]:${port}/hooks`, `https://2130706433:${port}/hooks`]) {
    const sent = await Effect.runPromise(sender.send({ url, secrets: ["whsec_test"], eventId: "evt_1", body: "{}", timestampSeconds: 1 }));
    t.match(sent, { ok: false, statusCode: null, error: "no answer (Error)" }, `${url} is refused, told as no answer`);
  }
  t.equal(connections, 0, "no connection was made");
});

t.test("the sender posts plain http only to the loopback interface", async (t) => {
  const sender = makeFetchMerchantWebhookSender({ timeoutMs: 2_000 });
  for (const url of ["http://10.0.0.7/hooks", "http://hooks.merchant.example/hooks", "http://169.254.169.254/latest/meta-data/"]) {
    const sent = await Effect.runPromise(sender.send({ url, secrets: ["whsec_test"], eventId: "evt_1", body: "{}", timestampSeconds: 1 }));
    t.match(sent, { ok: false, statusCode: null, error: "plain http is sent only to the loopback interface" }, `${url} is refused`);
  }
});
