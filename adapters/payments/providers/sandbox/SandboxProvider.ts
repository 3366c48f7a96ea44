/**
 * An in-process sandbox PaymentProvider that behaves like a real provider: it dedupes every
 * operation by our idempotency reference (the same reference never acts twice and answers what
 * it did the first time), and its test tokens inject faults:
 *   pm_card_visa            authorized (and captured when asked);
 *   pm_card_declined        declined (card_declined);
 *   pm_card_authentication_required  needs customer action;
 *   pm_card_timeout_after   acts, then the first answer is lost (a timeout after acting);
 *   pm_card_timeout_before  the first call times out before acting; a retry goes through.
 * A void cancels an authorization or a payment still waiting for authentication (as real
 * providers cancel a payment in that state). Capture, refund and void take injected faults (`injectFault`), as a header would on a real
 * sandbox. It never sees card numbers: only tokens. `calls` and `payments` let tests observe it.
 * Like a real provider it records an event for everything it does (`events`, delivered as
 * signed webhooks by SandboxWebhooks.ts: duplicates, reordering and delays are the test's
 * choice of what to post when) and publishes a settlement file per UTC day
 * (`settlementFile`), into which `injectSettlementFault` puts missing, amount, currency or
 * status mismatches.
 */
import { Effect } from "effect";
import { randomBytes } from "node:crypto";
import type { Money } from "../../../../core/kernel/Money.js";
import { ProviderOutcomeUnknown } from "../../../../core/payments/Errors.js";
import { formatSettlementFile, type SettlementRow } from "../../../../core/payments/SettlementFile.js";
import type { AuthorizeResult, PaymentProvider, ProviderPayment, SettleResult } from "../../../../ports/payments/PaymentProvider.js";

/** The test payment method tokens the sandbox understands. */
export const sandboxTokens = {
  visa: "pm_card_visa",
  declined: "pm_card_declined",
  authenticationRequired: "pm_card_authentication_required",
  timeoutAfter: "pm_card_timeout_after",
  timeoutBefore: "pm_card_timeout_before",
} as const;

interface SandboxPayment {
  reference: string;
  providerPaymentId: string | null;
  status: ProviderPayment["status"];
  amount: Money;
  authorizedMinor: number;
  capturedMinor: number;
  refundedMinor: number;
  declineCode: string | null;
  answer: AuthorizeResult;
  capture: boolean;
  capturedAt: Date | null;
}

/** One event as the sandbox sends it in a webhook body (the provider's wire format). */
export interface SandboxEvent {
  readonly id: string;
  readonly type: string;
  /** Unix seconds. */
  readonly created: number;
  readonly data: Readonly<Record<string, unknown>>;
}

/** A settlement mismatch to inject into the file of the day the object settled. */
export type SettlementFault =
  | { readonly omit: true }
  | { readonly amountMinor?: number; readonly currency?: string; readonly status?: string };

interface SandboxRefund {
  reference: string;
  paymentReference: string;
  providerPaymentId: string;
  amount: Money;
  at: Date;
}

/** Options of the sandbox. */
export interface SandboxOptions {
  /** Simulated network latency per call (default 0). */
  readonly latencyMs?: number;
  /** The sandbox's clock (default: the system clock). */
  readonly now?: () => Date;
}

/** The sandbox with its observable state. */
export interface SandboxProvider extends PaymentProvider {
  /** Every call made, in order, with the operation and our reference. */
  readonly calls: ReadonlyArray<{ readonly operation: string; readonly reference: string }>;
  /** Payments the sandbox created (one per authorization reference that acted). */
  readonly payments: () => ReadonlyArray<ProviderPayment>;
  /** Makes the next call of `operation` time out, before or after acting. */
  readonly injectFault: (operation: "capture" | "refund" | "void", fault: SandboxFault) => void;
  /** Every event the sandbox recorded, oldest first (what its webhooks carry). */
  readonly events: () => ReadonlyArray<SandboxEvent>;
  /** Calls `listener` with every event as it is recorded (how webhooks are pushed); answers the unsubscribe. */
  readonly onEvent: (listener: (event: SandboxEvent) => void) => () => void;
  /** The customer completes authentication of a payment that required action. */
  readonly completeAction: (reference: string) => SandboxEvent | null;
  /** The settlement rows of UTC day `day` (YYYY-MM-DD), with injected faults applied. */
  readonly settlementRows: (day: string) => ReadonlyArray<SettlementRow>;
  /** The settlement file (CSV) of UTC day `day`. */
  readonly settlementFile: (day: string) => string;
  /** Misreports (or omits) the object under `reference` in its settlement file. */
  readonly injectSettlementFault: (reference: string, fault: SettlementFault) => void;
}

/** An injected transport fault. */
export type SandboxFault = "timeout_before" | "timeout_after";

/** A fresh, empty sandbox. */
export const makeSandboxProvider = (options: SandboxOptions = {}): SandboxProvider => {
  const calls: Array<{ operation: string; reference: string }> = [];
  const byReference = new Map<string, SandboxPayment>();
  const byProviderId = new Map<string, SandboxPayment>();
  const settled = new Map<string, SettleResult>();
  const faultedOnce = new Set<string>();
  const injected = new Map<string, SandboxFault>();
  let sequence = 0;
  const clock = options.now ?? (() => new Date());
  const events: SandboxEvent[] = [];
  const refunds: SandboxRefund[] = [];
  const settlementFaults = new Map<string, SettlementFault>();
  const listeners = new Set<(event: SandboxEvent) => void>();

  const paymentData = (p: SandboxPayment): Record<string, unknown> => ({
    object: "payment",
    reference: p.reference,
    provider_payment_id: p.providerPaymentId,
    status: p.status,
    amount_minor: p.amount.amount_minor,
    captured_minor: p.capturedMinor,
    currency: p.amount.currency,
    decline_code: p.declineCode,
  });
  const record = (type: string, data: Record<string, unknown>): SandboxEvent => {
    const event = { id: `evt_${randomBytes(12).toString("hex")}`, type, created: Math.floor(clock().getTime() / 1000), data };
    events.push(event);
    // A listener's failure is its own (webhook delivery): it never undoes what the sandbox did.
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        /* ignored */
      }
    }
    return event;
  };
  const recordPayment = (p: SandboxPayment): SandboxEvent => record(`payment.${p.status}`, paymentData(p));

  const call = <A>(operation: string, reference: string, act: () => A | ProviderOutcomeUnknown): Effect.Effect<A, ProviderOutcomeUnknown> =>
    Effect.gen(function* () {
      if ((options.latencyMs ?? 0) > 0) yield* Effect.sleep(options.latencyMs ?? 0);
      calls.push({ operation, reference });
      const result = act();
      return result instanceof ProviderOutcomeUnknown ? yield* Effect.fail(result) : result;
    });

  const timeout = (operation: string) => new ProviderOutcomeUnknown({ operation, detail: "The payment provider did not answer in time." });

  const view = (p: SandboxPayment): ProviderPayment => ({
    reference: p.reference,
    providerPaymentId: p.providerPaymentId,
    status: p.status,
    amount: p.amount,
    capturedMinor: p.capturedMinor,
    refundedMinor: p.refundedMinor,
    declineCode: p.declineCode,
  });

  const settleOnce = (operation: "capture" | "refund" | "void", reference: string, act: () => SettleResult): SettleResult | ProviderOutcomeUnknown => {
    const fault = injected.get(operation);
    injected.delete(operation);
    if (fault === "timeout_before") return timeout(operation);
    const known = settled.get(reference);
    if (known !== undefined) return known;
    const result = act();
    settled.set(reference, result);
    return fault === "timeout_after" ? timeout(operation) : result;
  };

  const create = (reference: string, amount: Money, token: string, capture: boolean): SandboxPayment => {
    const providerPaymentId = `sbx_pay_${++sequence}`;
    const base = { reference, amount, refundedMinor: 0 };
    let payment: SandboxPayment;
    if (token === sandboxTokens.declined || !token.startsWith("pm_card_")) {
      const declineCode = token === sandboxTokens.declined ? "card_declined" : "invalid_payment_method";
      payment = { ...base, providerPaymentId: null, status: "declined", authorizedMinor: 0, capturedMinor: 0, declineCode, answer: { _tag: "Declined", declineCode }, capture, capturedAt: null };
    } else if (token === sandboxTokens.authenticationRequired) {
      payment = { ...base, providerPaymentId, status: "requires_action", authorizedMinor: 0, capturedMinor: 0, declineCode: null, answer: { _tag: "RequiresAction", providerPaymentId }, capture, capturedAt: null };
      byProviderId.set(providerPaymentId, payment);
    } else {
      const capturedMinor = capture ? amount.amount_minor : 0;
      payment = {
        ...base,
        providerPaymentId,
        status: capture ? "captured" : "authorized",
        authorizedMinor: amount.amount_minor,
        capturedMinor,
        declineCode: null,
        answer: { _tag: "Authorized", providerPaymentId, capturedMinor },
        capture,
        capturedAt: capture ? clock() : null,
      };
      byProviderId.set(providerPaymentId, payment);
    }
    byReference.set(reference, payment);
    recordPayment(payment);
    return payment;
  };

  const settlementRows = (day: string): SettlementRow[] => {
    const onDay = (at: Date | null) => at !== null && at.toISOString().slice(0, 10) === day;
    const rows: SettlementRow[] = [
      ...[...byReference.values()]
        .filter((p) => p.status === "captured" && onDay(p.capturedAt))
        .map((p): SettlementRow => ({
          type: "payment",
          reference: p.reference,
          providerPaymentId: p.providerPaymentId ?? "",
          amountMinor: p.capturedMinor,
          currency: p.amount.currency,
          status: "captured",
          settledAt: (p.capturedAt ?? clock()).toISOString(),
        })),
      ...refunds
        .filter((r) => onDay(r.at))
        .map((r): SettlementRow => ({
          type: "refund",
          reference: r.reference,
          providerPaymentId: r.providerPaymentId,
          amountMinor: r.amount.amount_minor,
          currency: r.amount.currency,
          status: "succeeded",
          settledAt: r.at.toISOString(),
        })),
    ];
    return rows.flatMap((row) => {
      const fault = settlementFaults.get(row.reference);
      if (fault === undefined) return [row];
      if ("omit" in fault) return [];
      return [{ ...row, ...fault }];
    });
  };

  return {
    calls,
    injectFault: (operation, fault) => {
      injected.set(operation, fault);
    },
    events: () => [...events],
    onEvent: (listener) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    completeAction: (reference) => {
      const payment = byReference.get(reference);
      if (payment === undefined || payment.status !== "requires_action") return null;
      payment.status = payment.capture ? "captured" : "authorized";
      payment.authorizedMinor = payment.amount.amount_minor;
      payment.capturedMinor = payment.capture ? payment.amount.amount_minor : 0;
      payment.capturedAt = payment.capture ? clock() : null;
      payment.answer = { _tag: "Authorized", providerPaymentId: payment.providerPaymentId ?? "", capturedMinor: payment.capturedMinor };
      return recordPayment(payment);
    },
    settlementRows,
    settlementFile: (day) => formatSettlementFile(settlementRows(day)),
    injectSettlementFault: (reference, fault) => {
      settlementFaults.set(reference, fault);
    },
    payments: () => [...byReference.values()].filter((p) => p.status !== "declined").map(view),
    authorize: ({ reference, amount, paymentMethod, capture }) =>
      call("authorize", reference, () => {
        const known = byReference.get(reference);
        if (known !== undefined) return known.answer;
        const firstTime = !faultedOnce.has(reference);
        if (paymentMethod === sandboxTokens.timeoutBefore && firstTime) {
          faultedOnce.add(reference);
          return timeout("authorize");
        }
        const payment = create(reference, amount, paymentMethod, capture);
        if (paymentMethod === sandboxTokens.timeoutAfter && firstTime) {
          faultedOnce.add(reference);
          return timeout("authorize");
        }
        return payment.answer;
      }),
    capture: ({ reference, providerPaymentId, amount }) =>
      call("capture", reference, () =>
        settleOnce("capture", reference, () => {
          const payment = byProviderId.get(providerPaymentId);
          if (payment === undefined || payment.status !== "authorized") return { _tag: "Rejected", reason: "payment_not_capturable" };
          if (amount.currency !== payment.amount.currency || amount.amount_minor > payment.authorizedMinor || amount.amount_minor <= 0) {
            return { _tag: "Rejected", reason: "invalid_capture_amount" };
          }
          payment.capturedMinor = amount.amount_minor;
          payment.status = "captured";
          payment.capturedAt = clock();
          recordPayment(payment);
          return { _tag: "Done", amountMinor: amount.amount_minor };
        }),
      ),
    refund: ({ reference, providerPaymentId, amount }) =>
      call("refund", reference, () =>
        settleOnce("refund", reference, () => {
          const payment = byProviderId.get(providerPaymentId);
          if (payment === undefined || payment.status !== "captured") return { _tag: "Rejected", reason: "payment_not_refundable" };
          if (amount.currency !== payment.amount.currency || amount.amount_minor <= 0 || payment.refundedMinor + amount.amount_minor > payment.capturedMinor) {
            return { _tag: "Rejected", reason: "invalid_refund_amount" };
          }
          payment.refundedMinor += amount.amount_minor;
          const refund = { reference, paymentReference: payment.reference, providerPaymentId, amount, at: clock() };
          refunds.push(refund);
          record("refund.succeeded", {
            object: "refund",
            reference,
            payment_reference: payment.reference,
            provider_payment_id: providerPaymentId,
            status: "succeeded",
            amount_minor: amount.amount_minor,
            currency: amount.currency,
            failure_reason: null,
          });
          return { _tag: "Done", amountMinor: amount.amount_minor };
        }),
      ),
    void: ({ reference, providerPaymentId }) =>
      call("void", reference, () =>
        settleOnce("void", reference, () => {
          const payment = byProviderId.get(providerPaymentId);
          // An authorization, or a payment still waiting for the customer's authentication (which
          // can then never complete), is cancelled; anything captured or declined is not.
          if (payment === undefined || (payment.status !== "authorized" && payment.status !== "requires_action")) {
            return { _tag: "Rejected", reason: "payment_not_voidable" };
          }
          payment.status = "voided";
          recordPayment(payment);
          return { _tag: "Done", amountMinor: payment.authorizedMinor };
        }),
      ),
    lookup: (reference) =>
      call("lookup", reference, () => {
        const payment = byReference.get(reference);
        return payment === undefined ? null : view(payment);
      }),
  };
};
