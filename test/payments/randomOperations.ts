/**
 * Random sequences of payment commands (with provider faults through the sandbox tokens) for
 * the property tests: what to generate, and a runner that applies a sequence through the core
 * and reports each intent's status before and after every command.
 */
import fc from "fast-check";
import { cancelIntent } from "../../core/payments/CancelIntent.js";
import { captureIntent } from "../../core/payments/CaptureIntent.js";
import { confirmIntent } from "../../core/payments/ConfirmIntent.js";
import { createIntent } from "../../core/payments/CreateIntent.js";
import { createRefund } from "../../core/payments/CreateRefund.js";
import { getIntent } from "../../core/payments/GetIntent.js";
import type { IntentStatus } from "../../core/payments/model/PaymentIntent.js";
import type { PaymentIntent } from "../../core/payments/model/PaymentIntent.js";
import { sandboxTokens } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import type { Principal } from "../../ports/Principal.js";
import type { paymentsRuntime } from "./support.js";
import { PaymentIntentId } from "../../core/payments/model/Ids.js";

/** One generated command. */
export type Operation =
  | { readonly kind: "create"; readonly amount: number; readonly currency: string; readonly manual: boolean }
  | { readonly kind: "confirm"; readonly target: number; readonly token: string | undefined }
  | { readonly kind: "capture"; readonly target: number; readonly percent: number }
  | { readonly kind: "cancel"; readonly target: number }
  | { readonly kind: "refund"; readonly target: number; readonly percent: number };

const target = fc.nat({ max: 7 });
// Weighted towards success so most sequences capture and refund, with every fault present.
const tokens = [sandboxTokens.visa, sandboxTokens.visa, sandboxTokens.visa, ...Object.values(sandboxTokens), undefined];

/** Arbitrary command sequences, starting with a create. */
export const operationsArbitrary: fc.Arbitrary<ReadonlyArray<Operation>> = fc
  .tuple(
    fc.record({ kind: fc.constant("create" as const), amount: fc.integer({ min: 1, max: 100_000 }), currency: fc.constantFrom("EUR", "USD", "JPY"), manual: fc.boolean() }),
    fc.array(
      fc.oneof(
        fc.record({ kind: fc.constant("create" as const), amount: fc.integer({ min: 1, max: 100_000 }), currency: fc.constantFrom("EUR", "USD", "JPY"), manual: fc.boolean() }),
        fc.record({ kind: fc.constant("confirm" as const), target, token: fc.constantFrom(...tokens) }),
        fc.record({ kind: fc.constant("capture" as const), target, percent: fc.integer({ min: 1, max: 120 }) }),
        fc.record({ kind: fc.constant("cancel" as const), target }),
        fc.record({ kind: fc.constant("refund" as const), target, percent: fc.integer({ min: 1, max: 120 }) }),
      ),
      { minLength: 3, maxLength: 20 },
    ),
  )
  .map(([first, rest]) => [first, ...rest]);

/** What one command did to one intent. */
export interface Step {
  readonly operation: Operation;
  readonly before: IntentStatus | undefined;
  readonly after: PaymentIntent;
}

type Runtime = ReturnType<typeof paymentsRuntime>;

const part = (amount: number, percent: number): number => Math.max(1, Math.floor((amount * percent) / 100));

/** Applies `operations` as `merchant`; typed failures are expected, defects are not. */
export const runOperations = async (
  runtime: Runtime,
  merchant: Principal,
  operations: ReadonlyArray<Operation>,
  onStep: (step: Step) => Promise<void> | void,
): Promise<void> => {
  const ids: PaymentIntentId[] = [];
  for (const operation of operations) {
    if (operation.kind === "create") {
      const created = await runtime.run(
        createIntent(merchant, { amountMinor: operation.amount, currency: operation.currency, captureMethod: operation.manual ? "manual" : "automatic" }),
      );
      ids.push(created.id);
      await onStep({ operation, before: undefined, after: created });
      continue;
    }
    const id = ids[operation.target % ids.length];
    if (id === undefined) continue;
    const before = await runtime.run(getIntent(merchant, id));
    switch (operation.kind) {
      case "confirm":
        await runtime.attempt(confirmIntent(merchant, id, operation.token === undefined ? {} : { paymentMethod: operation.token }));
        break;
      case "capture":
        await runtime.attempt(captureIntent(merchant, id, { amountMinor: part(before.amountCapturableMinor || before.amountMinor, operation.percent) }));
        break;
      case "cancel":
        await runtime.attempt(cancelIntent(merchant, id));
        break;
      case "refund":
        await runtime.attempt(createRefund(merchant, { intentId: id, amountMinor: part(before.amountCapturedMinor || before.amountMinor, operation.percent) }));
        break;
    }
    await onStep({ operation, before: before.status, after: await runtime.run(getIntent(merchant, id)) });
  }
};
