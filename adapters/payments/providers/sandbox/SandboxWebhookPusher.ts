/**
 * The sandbox's outgoing webhooks: every event the sandbox records is POSTed, signed with
 * PROVIDER_WEBHOOK_SECRET (`Webhook-Signature`, re-signed on every attempt so a retry or a
 * delayed send is never stale), to the configured endpoint. A non-2xx answer or a network error
 * is retried with exponential backoff and equal jitter, a bounded number of times, with the
 * same body and event id. Faults are injected per subject (our reference): `duplicate` sends
 * the event twice, `out_of_order` holds it until the next event about the same payment has been
 * delivered, `delay=<ms>` holds it that long. `close()` cancels every pending timer and request.
 */
import { randomInt } from "node:crypto";
import { signWebhook, sandboxWebhookBody, webhookSignatureHeader } from "./SandboxWebhooks.js";
import type { SandboxEvent } from "./SandboxProvider.js";

/** A webhook delivery fault. */
export type SandboxWebhookFault =
  | { readonly kind: "duplicate" }
  | { readonly kind: "out_of_order" }
  | { readonly kind: "delay"; readonly ms: number };

/** The longest injectable delay (10 minutes): a test or an operator typo cannot park an event for days. */
export const maxWebhookDelayMs = 600_000;

/** Parses `duplicate`, `out_of_order` or `delay=<ms>` (the `Sandbox-Webhook-Fault` header); null when invalid. */
export const parseWebhookFault = (value: string): SandboxWebhookFault | null => {
  const v = value.trim();
  if (v === "duplicate") return { kind: "duplicate" };
  if (v === "out_of_order") return { kind: "out_of_order" };
  const delay = /^delay=(\d{1,9})$/.exec(v);
  if (delay !== null && Number(delay[1]) <= maxWebhookDelayMs) return { kind: "delay", ms: Number(delay[1]) };
  return null;
};

/** Where webhooks go and what they are signed with (several secrets while rotating). */
export interface SandboxWebhookEndpoint {
  readonly url: string;
  readonly secrets: string | ReadonlyArray<string>;
}

/** One attempt to deliver one event (what tests observe). */
export interface SandboxWebhookDelivery {
  readonly eventId: string;
  readonly type: string;
  readonly attempt: number;
  /** The HTTP status, or null when no answer arrived (the error's name is in `error`). */
  readonly status: number | null;
  readonly error: string | null;
  /** The fault that shaped this send, if any. */
  readonly fault: SandboxWebhookFault["kind"] | null;
  /** Our answer's body (the receiver's JSON), when there was one. */
  readonly body: string | null;
}

/** Options of the pusher. */
export interface SandboxWebhookPusherOptions {
  readonly endpoint?: SandboxWebhookEndpoint;
  /** Attempts per event before giving up (default 6). */
  readonly maxAttempts?: number;
  /** First backoff (default 200 ms), doubled per attempt up to `maxBackoffMs` (default 10 s). */
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Per-attempt request timeout (default 10 s). */
  readonly attemptTimeoutMs?: number;
  /** The clock that signs (default the system clock). */
  readonly now?: () => Date;
}

/** The pusher with its observable state. */
export interface SandboxWebhookPusher {
  /** Sets (or clears) the endpoint; events recorded while none is set are not sent. */
  readonly configure: (endpoint: SandboxWebhookEndpoint | null) => void;
  /** The next event about `subject` (a payment or refund reference) is delivered with `fault`. */
  readonly injectFault: (subject: string, fault: SandboxWebhookFault) => void;
  /** Delivers `event` (applying any fault injected for its subject). */
  readonly push: (event: SandboxEvent) => void;
  /** Every delivery attempt so far, in order. */
  readonly deliveries: () => ReadonlyArray<SandboxWebhookDelivery>;
  /** Events held for `out_of_order` that no later event has released yet. */
  readonly held: () => ReadonlyArray<SandboxEvent>;
  /** Resolves once nothing is in flight, waiting for a delay or a backoff (held out-of-order events aside). */
  readonly idle: () => Promise<void>;
  /** Sends every held or delayed event now. */
  readonly flush: () => void;
  /** Cancels every timer and request; nothing is sent afterwards. */
  readonly close: () => Promise<void>;
}

/** The payment an event is about (a refund event names its payment too). */
const subjectsOf = (event: SandboxEvent): ReadonlyArray<string> =>
  [event.data.reference, event.data.payment_reference].filter((s): s is string => typeof s === "string");
const paymentOf = (event: SandboxEvent): string => String(event.data.payment_reference ?? event.data.reference ?? "");

/** A pusher delivering to `options.endpoint` (or whatever `configure` sets later). */
export const makeSandboxWebhookPusher = (options: SandboxWebhookPusherOptions = {}): SandboxWebhookPusher => {
  let endpoint: SandboxWebhookEndpoint | null = options.endpoint ?? null;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 6);
  const initialBackoffMs = options.initialBackoffMs ?? 200;
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
  const clock = options.now ?? (() => new Date());
  const faults = new Map<string, SandboxWebhookFault>();
  const deliveries: SandboxWebhookDelivery[] = [];
  const heldOutOfOrder: SandboxEvent[] = [];
  const delayed = new Map<ReturnType<typeof setTimeout>, () => void>();
  const sleeping = new Map<ReturnType<typeof setTimeout>, () => void>();
  const pending = new Set<Promise<void>>();
  const closer = new AbortController();
  let closed = false;

  const track = (work: Promise<void>): void => {
    const tracked = work.finally(() => pending.delete(tracked));
    pending.add(tracked);
  };

  // Cancellable: close() resolves every sleeper at once, and the loop then sees `closed`.
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        sleeping.delete(timer);
        resolve();
      }, ms);
      sleeping.set(timer, resolve);
    });

  const backoff = (attempt: number): number => {
    const ceiling = Math.min(maxBackoffMs, initialBackoffMs * 2 ** (attempt - 1));
    const half = Math.floor(ceiling / 2);
    return half + randomInt(half + 1);
  };

  const deliver = async (event: SandboxEvent, fault: SandboxWebhookFault["kind"] | null): Promise<void> => {
    const body = sandboxWebhookBody(event);
    for (let attempt = 1; attempt <= maxAttempts && !closed; attempt++) {
      const target = endpoint;
      if (target === null) return;
      // An explicit per-attempt timer (AbortSignal.timeout inside AbortSignal.any may be collected on Node 20).
      const attemptController = new AbortController();
      const timer = setTimeout(() => attemptController.abort(), attemptTimeoutMs);
      const onClose = (): void => attemptController.abort();
      closer.signal.addEventListener("abort", onClose, { once: true });
      try {
        const response = await fetch(target.url, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            [webhookSignatureHeader]: signWebhook(target.secrets, body, clock().getTime() / 1000),
          },
          body,
          redirect: "error",
          signal: attemptController.signal,
        });
        const text = await response.text();
        deliveries.push({ eventId: event.id, type: event.type, attempt, status: response.status, error: null, fault, body: text });
        if (response.ok) return;
      } catch (error) {
        // Only the error's name: a message could carry the URL's credentials or the body.
        deliveries.push({ eventId: event.id, type: event.type, attempt, status: null, error: error instanceof Error ? error.name : "Error", fault, body: null });
      } finally {
        clearTimeout(timer);
        closer.signal.removeEventListener("abort", onClose);
      }
      if (attempt < maxAttempts && !closed) await sleep(backoff(attempt));
    }
  };

  const later = (ms: number, send: () => void): void => {
    const timer = setTimeout(() => {
      delayed.delete(timer);
      send();
    }, ms);
    delayed.set(timer, send);
  };

  const takeFault = (event: SandboxEvent): SandboxWebhookFault | null => {
    for (const subject of subjectsOf(event)) {
      const fault = faults.get(subject);
      if (fault !== undefined) {
        faults.delete(subject);
        return fault;
      }
    }
    return null;
  };

  /** Releases out-of-order events held for the payment of `event`, once `event` itself has been delivered. */
  const releaseAfter = (event: SandboxEvent, delivered: Promise<void>): void => {
    const payment = paymentOf(event);
    const released = heldOutOfOrder.filter((held) => paymentOf(held) === payment && held.id !== event.id);
    if (released.length === 0) return;
    for (const held of released) heldOutOfOrder.splice(heldOutOfOrder.indexOf(held), 1);
    track(
      delivered.then(async () => {
        for (const held of released) await deliver(held, "out_of_order");
      }),
    );
  };

  const push = (event: SandboxEvent): void => {
    if (closed) return;
    const fault = takeFault(event);
    if (fault?.kind === "out_of_order") {
      heldOutOfOrder.push(event);
      return;
    }
    if (fault?.kind === "delay") {
      let resolveDone: () => void = () => undefined;
      const done = new Promise<void>((resolve) => {
        resolveDone = resolve;
      });
      track(done);
      later(fault.ms, () => {
        const sent = closed ? Promise.resolve() : deliver(event, "delay");
        track(sent);
        releaseAfter(event, sent);
        resolveDone();
      });
      return;
    }
    const sent = fault?.kind === "duplicate" ? deliver(event, "duplicate").then(() => deliver(event, "duplicate")) : deliver(event, null);
    track(sent);
    releaseAfter(event, sent);
  };

  return {
    configure: (next) => {
      endpoint = next;
    },
    injectFault: (subject, fault) => {
      faults.set(subject, fault);
    },
    push,
    deliveries: () => [...deliveries],
    held: () => [...heldOutOfOrder],
    idle: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    flush: () => {
      for (const [timer, send] of [...delayed]) {
        clearTimeout(timer);
        delayed.delete(timer);
        send();
      }
      const held = heldOutOfOrder.splice(0);
      for (const event of held) track(deliver(event, "out_of_order"));
    },
    close: async () => {
      closed = true;
      closer.abort();
      for (const [timer, send] of [...delayed]) {
        clearTimeout(timer);
        delayed.delete(timer);
        send();
      }
      for (const [timer, wake] of [...sleeping]) {
        clearTimeout(timer);
        sleeping.delete(timer);
        wake();
      }
      heldOutOfOrder.splice(0);
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
};
