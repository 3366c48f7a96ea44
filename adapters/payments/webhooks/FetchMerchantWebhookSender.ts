/**
 * Outgoing merchant webhooks over HTTP (node:http and node:https). Each POST carries
 * `Webhook-Id: <event id>` (receivers dedupe by it; it never changes between attempts) and
 * `Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, one
 * `v1=` per live secret (current first: two during a rotation's overlap), so a receiver holding
 * either secret checks integrity, origin and freshness with `verifyMerchantWebhookSignature`.
 * Redirects are not followed and a slow receiver times out: both count as failed attempts. An
 * https receiver is connected to only at a public address (a literal one checked here, a name
 * through PublicOnlyLookup.ts); plain http only on the loopback interface.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Effect } from "effect";
import type { MerchantWebhookSender, SendResult } from "../../../ports/payments/WebhookEndpointsSender.js";
import { withSpan } from "../../../core/kernel/Span.js";
import { isLoopbackHost, isNonPublicHost } from "../../../core/payments/WebhookTarget.js";
import { NonPublicAddress, publicOnlyLookup } from "./PublicOnlyLookup.js";

const hmacHex = (secret: string, timestampSeconds: number, body: string): string =>
  createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex");

/** The signature header value for `body` sent at `timestampSeconds`: one `v1=` per secret, in order. */
export const signMerchantWebhook = (secrets: string | ReadonlyArray<string>, timestampSeconds: number, body: string): string =>
  [`t=${timestampSeconds}`, ...(typeof secrets === "string" ? [secrets] : secrets).map((secret) => `v1=${hmacHex(secret, timestampSeconds, body)}`)].join(",");

/** The most `v1=` values a header may carry (we send at most two). */
const maxSignatures = 8;

/**
 * What a merchant's receiver does: true when one of the `v1=` values of `header` signs
 * `rawBody` with `secret` (every value compared in constant time) and its timestamp is within
 * `toleranceSeconds` of `nowSeconds` in either direction.
 */
export const verifyMerchantWebhookSignature = (input: {
  readonly secret: string;
  readonly header: string | undefined;
  readonly rawBody: string;
  readonly nowSeconds: number;
  readonly toleranceSeconds?: number;
}): boolean => {
  const [stamp, ...values] = (input.header ?? "").split(",");
  const match = /^t=(\d{1,12})$/.exec(stamp ?? "");
  if (match === null || values.length === 0 || values.length > maxSignatures) return false;
  if (!values.every((value) => /^v1=[0-9a-f]{64}$/.test(value))) return false;
  const t = Number(match[1]);
  if (Math.abs(input.nowSeconds - t) > (input.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(hmacHex(input.secret, t, input.rawBody), "hex");
  let found = false;
  for (const value of values) {
    if (timingSafeEqual(expected, Buffer.from(value.slice(3), "hex"))) found = true;
  }
  return found;
};

/** Options of the fetch sender. */
export interface FetchSenderOptions {
  /** Per-attempt timeout (default 10 s). */
  readonly timeoutMs?: number;
  /** Resolves https hosts; only public addresses are connected to (PublicOnlyLookup.ts). */
  readonly lookup?: LookupFunction;
}

/** Plain http to a host off the loopback interface (registration never allows it). */
class PlainHttpOffLoopback extends Error {
  constructor() {
    super("plain http is sent only to the loopback interface");
    this.name = "PlainHttpOffLoopback";
  }
}

/**
 * One POST, answered with its status. https goes to a public address only: a literal address is
 * checked here (node connects to it without any lookup), a name through `lookup`. Plain http goes
 * only to the loopback interface (development; the payment core decides whether it is allowed).
 * Redirects are not followed; the answer's body is drained and dropped.
 */
const post = (url: URL, headers: Record<string, string>, body: string, signal: AbortSignal, lookup: LookupFunction): Promise<number> =>
  new Promise((resolve, reject) => {
    if (url.protocol === "https:" && isIP(url.hostname.replace(/^\[|\]$/g, "")) !== 0 && isNonPublicHost(url.hostname)) {
      return reject(new NonPublicAddress(url.hostname));
    }
    if (url.protocol !== "https:" && !isLoopbackHost(url.hostname)) return reject(new PlainHttpOffLoopback());
    const options = { method: "POST", headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) }, signal };
    const onResponse = (response: IncomingMessage) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
      response.on("error", reject);
    };
    const request = url.protocol === "https:" ? httpsRequest(url, { ...options, lookup }, onResponse) : httpRequest(url, options, onResponse);
    request.on("error", reject);
    request.end(body);
  });

/** What a failed connection is told as, whatever its cause besides a timeout. */
const unreachable = "no answer (Error)";

/** The MerchantWebhookSender port over node:http(s). */
export const makeFetchMerchantWebhookSender = (options: FetchSenderOptions = {}): MerchantWebhookSender => {
  const lookup = options.lookup ?? publicOnlyLookup();
  return {
    send: ({ url, secrets, eventId, body, timestampSeconds }) =>
      Effect.promise(async () => {
        try {
          const status = await post(
            new URL(url),
            {
              "Content-Type": "application/json",
              "User-Agent": "domainkit-webhooks/1",
              "Webhook-Id": eventId,
              "Webhook-Signature": signMerchantWebhook(secrets, timestampSeconds, body),
            },
            body,
            AbortSignal.timeout(options.timeoutMs ?? 10_000),
            lookup,
          );
          const ok = status >= 200 && status < 300;
          return { ok, statusCode: status, error: ok ? null : `receiver answered ${status}` };
        } catch (error) {
          const name = error instanceof Error ? error.name : "Error";
          // Told to the merchant like any connection that got no answer: a distinct text would tell
          // them which of their names resolve to internal addresses (a split-horizon resolver's
          // map of the network). The reason goes to the log only.
          if (error instanceof NonPublicAddress) return { ok: false, statusCode: null, error: unreachable, refused: error.message };
          if (error instanceof PlainHttpOffLoopback) return { ok: false, statusCode: null, error: error.message };
          return { ok: false, statusCode: null, error: name === "TimeoutError" || name === "AbortError" ? "timed out" : `no answer (${name})` };
        }
      }).pipe(
        Effect.flatMap(({ refused, ...attempt }: SendResult & { readonly refused?: string }) =>
          refused === undefined
            ? Effect.succeed(attempt)
            : Effect.as(Effect.logWarning("merchant webhook not sent: the receiver's name resolves to a non-public address").pipe(Effect.annotateLogs({ reason: refused })), attempt),
        ),
        withSpan("MerchantWebhookSender.send"),
      ),
  };
};
