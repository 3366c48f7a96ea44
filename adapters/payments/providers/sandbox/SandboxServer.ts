/**
 * The sandbox provider behind its own HTTP interface, as a real provider's test mode is: our
 * service talks to it only over HTTP (HttpPaymentProvider), in-process for tests or as a separate
 * process (`domainkit sandbox`, sandboxMain.ts). Provider-style API, every route behind a
 * sandbox API key (Bearer, compared in constant time):
 *   POST /v1/payment_methods    {card:{number,exp_month,exp_year,cvc}} -> {id:"pm_..."}; the only
 *                               place card data exists (test cards only, never stored or echoed);
 *   POST /v1/authorizations     {reference, amount_minor, currency, payment_method, capture};
 *                               402 with `decline_code` when declined;
 *   POST /v1/captures | /v1/refunds {reference, provider_payment_id, amount_minor, currency};
 *   POST /v1/voids              {reference, provider_payment_id};
 *                               each keyed by our `reference` and idempotent (the same reference
 *                               answers what it did the first time); 409 when refused;
 *   GET  /v1/payments/:reference  lookup by our reference (404 unknown);
 *   GET  /v1/settlements/:day   the settlement file (text/csv) of a UTC day;
 *   POST /v1/sandbox/settlement_faults, /v1/sandbox/faults, /v1/sandbox/webhook_faults,
 *        /v1/sandbox/payments/:reference/complete_action   fault injection and customer action.
 * Faults: the test card (pm_card_timeout_after / _before) or the `Sandbox-Fault: timeout_after |
 * timeout_before` header on any operation: the sandbox acts (or not) and then never answers, as a
 * provider whose answer is lost; `Sandbox-Webhook-Fault: duplicate | out_of_order | delay=<ms>`
 * shapes the webhook of the event the operation causes. Every recorded event is pushed, signed,
 * to the configured endpoint (SandboxWebhookPusher.ts).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Effect, Exit } from "effect";
import type { ProviderOutcomeUnknown } from "../../../../core/payments/Errors.js";
import type { ProviderPayment } from "../../../../ports/payments/PaymentProvider.js";
import { tokenBehaviourOf } from "./SandboxCards.js";
import { makeSandboxProvider, type SandboxFault, type SandboxOptions, type SandboxProvider, type SettlementFault } from "./SandboxProvider.js";
import {
  makeSandboxWebhookPusher,
  parseWebhookFault,
  type SandboxWebhookEndpoint,
  type SandboxWebhookPusher,
  type SandboxWebhookPusherOptions,
} from "./SandboxWebhookPusher.js";

/** The header injecting a transport fault on any operation. */
export const sandboxFaultHeader = "Sandbox-Fault";
/** The header shaping the webhook of the event an operation causes. */
export const sandboxWebhookFaultHeader = "Sandbox-Webhook-Fault";

/** Options of the sandbox server. */
export interface SandboxServerOptions {
  /** The API key callers must present as `Authorization: Bearer <key>` (SANDBOX_API_KEY). */
  readonly apiKey: string;
  /** Port on 127.0.0.1 (0 = ephemeral, the default). */
  readonly port?: number;
  /** Interface to bind (default 127.0.0.1). */
  readonly host?: string;
  /** Where webhooks go (our /v1/webhooks/provider) and their secrets; settable later with `setWebhookEndpoint`. */
  readonly webhooks?: SandboxWebhookEndpoint;
  /** Retry and timeout settings of the webhook pusher. */
  readonly webhookDelivery?: Omit<SandboxWebhookPusherOptions, "endpoint">;
  /** The in-process sandbox behind the API (a fresh one by default). */
  readonly sandbox?: SandboxProvider;
  /** Options of the fresh sandbox (ignored when `sandbox` is given). */
  readonly sandboxOptions?: SandboxOptions;
  /** How long an unanswered (timed-out) request is held before its socket is destroyed (default 60 s). */
  readonly timeoutHoldMs?: number;
}

/** One request as the sandbox saw it (no bodies: they may hold card data or tokens). */
export interface SandboxRequestRecord {
  readonly method: string;
  readonly path: string;
  /** The status answered, or null when the sandbox deliberately never answered. */
  readonly status: number | null;
}

/** A running sandbox server. */
export interface SandboxServer {
  /** Base URL, e.g. http://127.0.0.1:4010. */
  readonly url: string;
  readonly port: number;
  /** The in-process sandbox (state, events, settlement) behind the API. */
  readonly sandbox: SandboxProvider;
  /** The webhook pusher (deliveries, idle, flush). */
  readonly webhooks: SandboxWebhookPusher;
  /** Every request answered (or deliberately left unanswered), in order. */
  readonly requests: () => ReadonlyArray<SandboxRequestRecord>;
  /** Sets (or clears) where webhooks are pushed. */
  readonly setWebhookEndpoint: (endpoint: SandboxWebhookEndpoint | null) => void;
  /** Stops listening, drops held requests and stops pending webhook timers. */
  readonly close: () => Promise<void>;
}

const maxBodyBytes = 64 * 1024;

class HttpFailure {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly type: "invalid_request_error" | "authentication_error" | "card_error" | "api_error",
    readonly extra: Record<string, unknown> = {},
  ) {}
}

/** A deliberate non-answer: the operation's outcome is lost on the wire. */
class NoAnswer {}

const invalid = (param: string): HttpFailure => new HttpFailure(400, "parameter_invalid", "invalid_request_error", { param });

const readBody = (req: IncomingMessage): Promise<Record<string, unknown>> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        reject(new HttpFailure(413, "body_too_large", "invalid_request_error"));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("error", reject);
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      if (text === "") return resolve({});
      try {
        const json = JSON.parse(text) as unknown;
        if (json === null || typeof json !== "object" || Array.isArray(json)) return reject(new HttpFailure(400, "body_not_object", "invalid_request_error"));
        resolve(json as Record<string, unknown>);
      } catch {
        reject(new HttpFailure(400, "malformed_json", "invalid_request_error"));
      }
    });
  });

const str = (body: Record<string, unknown>, key: string, pattern: RegExp = /^[A-Za-z0-9_.:-]{1,255}$/): string => {
  const v = body[key];
  if (typeof v !== "string" || !pattern.test(v)) throw invalid(key);
  return v;
};
const amountOf = (body: Record<string, unknown>): { amount_minor: number; currency: string } => {
  const amount = body.amount_minor;
  if (typeof amount !== "number" || !Number.isSafeInteger(amount) || amount <= 0) throw invalid("amount_minor");
  return { amount_minor: amount, currency: str(body, "currency", /^[A-Z]{3}$/) };
};

const paymentJson = (p: ProviderPayment): Record<string, unknown> => ({
  object: "payment",
  reference: p.reference,
  provider_payment_id: p.providerPaymentId,
  status: p.status,
  amount_minor: p.amount.amount_minor,
  currency: p.amount.currency,
  captured_minor: p.capturedMinor,
  refunded_minor: p.refundedMinor,
  decline_code: p.declineCode,
});

const digest = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest();

/** Starts the sandbox server on 127.0.0.1 (by default). */
export const startSandboxServer = async (options: SandboxServerOptions): Promise<SandboxServer> => {
  if (options.apiKey.length < 16) throw new Error("the sandbox API key must be at least 16 characters");
  const sandbox = options.sandbox ?? makeSandboxProvider(options.sandboxOptions);
  const pusher = makeSandboxWebhookPusher({ ...options.webhookDelivery, ...(options.webhooks ? { endpoint: options.webhooks } : {}) });
  const unsubscribe = sandbox.onEvent((event) => pusher.push(event));
  const expectedKey = digest(options.apiKey);
  const issuedTokens = new Map<string, string>();
  const requests: SandboxRequestRecord[] = [];
  const heldSockets = new Set<Socket>();
  const timeoutHoldMs = options.timeoutHoldMs ?? 60_000;

  // Digests have equal length, so the comparison is constant-time whatever the caller sent.
  const authenticate = (req: IncomingMessage): void => {
    const header = req.headers.authorization ?? "";
    const presented = header.startsWith("Bearer ") ? header.slice(7) : "";
    if (!timingSafeEqual(digest(presented), expectedKey) || presented === "") {
      throw new HttpFailure(401, "api_key_invalid", "authentication_error");
    }
  };

  const transportFault = (req: IncomingMessage): SandboxFault | null => {
    const raw = req.headers[sandboxFaultHeader.toLowerCase()];
    if (raw === undefined) return null;
    if (raw === "timeout_after" || raw === "timeout_before") return raw;
    throw invalid(sandboxFaultHeader);
  };

  const webhookFault = (req: IncomingMessage, subject: string | null): void => {
    const raw = req.headers[sandboxWebhookFaultHeader.toLowerCase()];
    if (raw === undefined) return;
    const fault = typeof raw === "string" ? parseWebhookFault(raw) : null;
    if (fault === null) throw invalid(sandboxWebhookFaultHeader);
    if (subject !== null) pusher.injectFault(subject, fault);
  };

  const paymentReferenceOf = (providerPaymentId: string): string | null =>
    sandbox.payments().find((p) => p.providerPaymentId === providerPaymentId)?.reference ?? null;

  /** Runs a sandbox operation under a transport fault: a lost answer becomes a non-answer. */
  const operate = async <A>(fault: SandboxFault | null, op: () => Effect.Effect<A, ProviderOutcomeUnknown>): Promise<A> => {
    if (fault === "timeout_before") throw new NoAnswer();
    const exit = await Effect.runPromiseExit(op());
    if (fault === "timeout_after" || Exit.isFailure(exit)) throw new NoAnswer();
    return exit.value;
  };

  const settle = async (req: IncomingMessage, operation: "capture" | "refund" | "void"): Promise<[number, unknown]> => {
    const fault = transportFault(req);
    const body = await readBody(req);
    const reference = str(body, "reference");
    const providerPaymentId = str(body, "provider_payment_id");
    const amount = operation === "void" ? null : amountOf(body);
    webhookFault(req, operation === "refund" ? reference : paymentReferenceOf(providerPaymentId));
    const result = await operate(fault, () =>
      operation === "void"
        ? sandbox.void({ reference, providerPaymentId })
        : sandbox[operation]({ reference, providerPaymentId, amount: amount as { amount_minor: number; currency: string } }),
    );
    if (result._tag === "Rejected") throw new HttpFailure(409, result.reason, "invalid_request_error");
    return [200, { object: operation, reference, provider_payment_id: providerPaymentId, status: "succeeded", amount_minor: result.amountMinor }];
  };

  const route = async (req: IncomingMessage, path: string): Promise<[number, unknown, string?]> => {
    const method = req.method ?? "GET";
    if (method === "POST" && path === "/v1/payment_methods") {
      const body = await readBody(req);
      const outcome = tokenBehaviourOf(body.card, new Date());
      if ("rejected" in outcome) throw new HttpFailure(422, outcome.rejected, "card_error");
      const id = `pm_${randomBytes(12).toString("hex")}`;
      issuedTokens.set(id, outcome.behaviour);
      const number = String((body.card as { number: string }).number).replace(/[\s-]/g, "");
      // Only the last four digits and the expiry are kept in the answer; never the number or the CVC.
      const card = body.card as { exp_month: number; exp_year: number };
      return [200, { id, object: "payment_method", card: { brand: "visa", last4: number.slice(-4), exp_month: card.exp_month, exp_year: card.exp_year } }];
    }
    if (method === "POST" && path === "/v1/authorizations") {
      const fault = transportFault(req);
      const body = await readBody(req);
      const reference = str(body, "reference");
      const amount = amountOf(body);
      const token = str(body, "payment_method", /^pm_[A-Za-z0-9_]{1,64}$/);
      if (typeof body.capture !== "boolean") throw invalid("capture");
      const capture = body.capture;
      webhookFault(req, reference);
      // An issued token maps to its card's behaviour; fixed pm_card_* tokens stand for themselves.
      const paymentMethod = issuedTokens.get(token) ?? token;
      const answer = await operate(fault, () => sandbox.authorize({ reference, amount, paymentMethod, capture }));
      if (answer._tag === "Declined") {
        throw new HttpFailure(402, "card_declined", "card_error", { decline_code: answer.declineCode, reference });
      }
      if (answer._tag === "RequiresAction") {
        return [200, { object: "payment", reference, provider_payment_id: answer.providerPaymentId, status: "requires_action", captured_minor: 0 }];
      }
      return [200, { object: "payment", reference, provider_payment_id: answer.providerPaymentId, status: answer.capturedMinor > 0 ? "captured" : "authorized", captured_minor: answer.capturedMinor }];
    }
    if (method === "POST" && path === "/v1/captures") return settle(req, "capture");
    if (method === "POST" && path === "/v1/refunds") return settle(req, "refund");
    if (method === "POST" && path === "/v1/voids") return settle(req, "void");
    const lookup = /^\/v1\/payments\/([A-Za-z0-9_.:-]{1,255})$/.exec(path);
    if (method === "GET" && lookup !== null) {
      const reference = lookup[1] as string;
      const payment = await operate(transportFault(req), () => sandbox.lookup(reference));
      if (payment === null) throw new HttpFailure(404, "resource_missing", "invalid_request_error");
      return [200, paymentJson(payment)];
    }
    const settlement = /^\/v1\/settlements\/(\d{4}-\d{2}-\d{2})$/.exec(path);
    if (method === "GET" && settlement !== null) {
      const day = settlement[1] as string;
      if (Number.isNaN(Date.parse(`${day}T00:00:00Z`)) || new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day) throw invalid("day");
      if (transportFault(req) !== null) throw new NoAnswer();
      return [200, sandbox.settlementFile(day), "text/csv; charset=utf-8"];
    }
    const complete = /^\/v1\/sandbox\/payments\/([A-Za-z0-9_.:-]{1,255})\/complete_action$/.exec(path);
    if (method === "POST" && complete !== null) {
      const reference = complete[1] as string;
      webhookFault(req, reference);
      const event = sandbox.completeAction(reference);
      if (event === null) throw new HttpFailure(409, "payment_not_awaiting_action", "invalid_request_error");
      return [200, { reference, event_id: event.id, status: event.data.status }];
    }
    if (method === "POST" && path === "/v1/sandbox/settlement_faults") {
      const body = await readBody(req);
      const reference = str(body, "reference");
      let fault: SettlementFault;
      if (body.omit === true) fault = { omit: true };
      else {
        const f: { amountMinor?: number; currency?: string; status?: string } = {};
        if (body.amount_minor !== undefined) f.amountMinor = amountOf({ ...body, currency: "XXX" }).amount_minor;
        if (body.currency !== undefined) f.currency = str(body, "currency", /^[A-Z]{3}$/);
        if (body.status !== undefined) f.status = str(body, "status", /^[a-z_]{1,40}$/);
        if (Object.keys(f).length === 0) throw invalid("fault");
        fault = f;
      }
      sandbox.injectSettlementFault(reference, fault);
      return [204, null];
    }
    if (method === "POST" && path === "/v1/sandbox/faults") {
      const body = await readBody(req);
      const operation = body.operation;
      if (operation !== "capture" && operation !== "refund" && operation !== "void") throw invalid("operation");
      if (body.fault !== "timeout_after" && body.fault !== "timeout_before") throw invalid("fault");
      sandbox.injectFault(operation, body.fault);
      return [204, null];
    }
    if (method === "POST" && path === "/v1/sandbox/webhook_faults") {
      const body = await readBody(req);
      const subject = str(body, "reference");
      const fault = typeof body.fault === "string" ? parseWebhookFault(body.fault) : null;
      if (fault === null) throw invalid("fault");
      pusher.injectFault(subject, fault);
      return [204, null];
    }
    throw new HttpFailure(404, "route_not_found", "invalid_request_error");
  };

  const holdWithoutAnswer = (req: IncomingMessage, res: ServerResponse): void => {
    const socket = req.socket;
    heldSockets.add(socket);
    const timer = setTimeout(() => socket.destroy(), timeoutHoldMs);
    socket.once("close", () => {
      clearTimeout(timer);
      heldSockets.delete(socket);
    });
    // Reading on keeps the socket healthy until the caller gives up; nothing is ever written.
    res.on("error", () => undefined);
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const method = req.method ?? "GET";
    const answer = (status: number, body: unknown, contentType = "application/json"): void => {
      requests.push({ method, path, status });
      if (status === 204 || body === null) {
        res.writeHead(status).end();
        return;
      }
      const text = typeof body === "string" ? body : JSON.stringify(body);
      res.writeHead(status, { "Content-Type": contentType, "Content-Length": Buffer.byteLength(text) }).end(text);
    };
    Promise.resolve()
      .then(() => {
        authenticate(req);
        return route(req, path);
      })
      .then(
        ([status, body, contentType]) => answer(status, body, contentType),
        (error: unknown) => {
          if (error instanceof NoAnswer) {
            requests.push({ method, path, status: null });
            holdWithoutAnswer(req, res);
          } else if (error instanceof HttpFailure) {
            answer(error.status, { error: { type: error.type, code: error.code, ...error.extra } });
          } else {
            answer(500, { error: { type: "api_error", code: "internal_error" } });
          }
        },
      );
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${options.host === undefined || options.host === "0.0.0.0" ? "127.0.0.1" : options.host}:${port}`,
    port,
    sandbox,
    webhooks: pusher,
    requests: () => [...requests],
    setWebhookEndpoint: (endpoint) => pusher.configure(endpoint),
    close: () =>
      (closing ??= (async () => {
        unsubscribe();
        for (const socket of heldSockets) socket.destroy();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await stopped;
        await pusher.close();
      })()),
  };
};
