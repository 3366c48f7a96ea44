/**
 * MerchantProvisioning in-process, for every module that sells through the payment module (a
 * store, a restaurant): the merchant is created by the payment core on the host runtime (forked
 * there, so it joins no transaction of the caller), under the kernel's idempotency path keyed by
 * the caller's stable reference (`store:<id>`, `restaurant:<id>`): provisioning the same
 * reference again answers the same merchant. One implementation, bound by each module that needs
 * it; a host whose payment service runs elsewhere binds its own adapter of the port.
 */
import { createHash } from "node:crypto";
import { Effect, Fiber, Schema } from "effect";
import { runIdempotent } from "../../../core/kernel/Idempotency.js";
import { createMerchant } from "../../../core/payments/Merchants.js";
import type { IdempotencyStore } from "../../../ports/IdempotencyStore.js";
import type { Ids } from "../../../ports/Ids.js";
import type { MerchantProvisioning } from "../../../ports/MerchantProvisioning.js";
import type { Transactions } from "../../../ports/Transactions.js";
import type { ApiKeys } from "../../../ports/payments/ApiKeys.js";
import type { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** What provisioning runs with (the payment module's ports and the kernel's). */
export type ProvisioningServices = PaymentsRepository | ApiKeys | Transactions | Ids | IdempotencyStore;

/** The part of a runtime provisioning uses (the host's ManagedRuntime fits). */
export interface ProvisioningRuntime {
  readonly runFork: <A, E>(effect: Effect.Effect<A, E, ProvisioningServices>) => Fiber.RuntimeFiber<A, E>;
}

/** The scopes of a provisioned merchant: what the gateway acts with for its orders and refunds. */
const merchantScopes = ["payments:write", "refunds:write", "ledger:read"];

const decodeProvisioned = Schema.decodeUnknown(Schema.Struct({ merchant_id: Schema.String }));

/** Builds the in-process provisioning; `runtime` is asked for at each call (attached after the host builds it). */
export const makeInProcessMerchantProvisioning = (runtime: () => ProvisioningRuntime): MerchantProvisioning => ({
  provision: ({ name, reference }) =>
    Effect.suspend(() => {
      const program = runIdempotent(
        {
          scope: "system:merchant-provisioning",
          key: reference,
          requestHash: createHash("sha256").update(`PROVISION\n${reference}\n${name}`).digest("hex"),
        },
        createMerchant({ name, scopes: merchantScopes, actor: `system:provisioning:${reference}` }).pipe(
          Effect.map((created) => ({ status: 201, body: { merchant_id: created.merchant.id } })),
        ),
      ).pipe(
        Effect.flatMap(({ response }) => decodeProvisioned(response.body)),
        Effect.map((body) => ({ merchantId: body.merchant_id })),
      );
      const fiber = runtime().runFork(program);
      return Fiber.join(fiber).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber)));
    }).pipe(Effect.orDie, withSpan("MerchantProvisioning.inProcess")),
});
