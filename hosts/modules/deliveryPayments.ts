/**
 * The payment side of the delivery module inside the reference server: a restaurant's payments
 * merchant is provisioned in-process by the payment core (`createMerchant`, once per reference
 * under the kernel's idempotency path), on the host runtime handed over by `attachRuntime`, so
 * it runs outside any transaction of the caller. The money itself moves through the in-process
 * PaymentGateway (adapters/payments/gateway/InProcessPaymentGateway.ts). A host whose payment
 * service runs elsewhere binds its own MerchantProvisioning and PaymentGateway instead.
 */
import { createHash } from "node:crypto";
import { Effect, Fiber, Schema } from "effect";
import { runIdempotent } from "../../core/kernel/Idempotency.js";
import { createMerchant } from "../../core/payments/Merchants.js";
import type { IdempotencyStore } from "../../ports/IdempotencyStore.js";
import type { Ids } from "../../ports/Ids.js";
import type { MerchantProvisioning } from "../../ports/MerchantProvisioning.js";
import type { Transactions } from "../../ports/Transactions.js";
import type { ApiKeys } from "../../ports/payments/ApiKeys.js";
import type { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { withSpan } from "../../core/kernel/Span.js";

/** What provisioning a merchant in-process needs of the host runtime (the payment module's ports). */
export type MerchantProvisioningServices = PaymentsRepository | ApiKeys | Transactions | Ids | IdempotencyStore;

/** The part of a runtime the provisioning uses (a host's ManagedRuntime fits). */
export interface ProvisioningRuntime {
  readonly runFork: <A, E>(effect: Effect.Effect<A, E, MerchantProvisioningServices>) => Fiber.RuntimeFiber<A, E>;
}

const Provisioned = Schema.Struct({ merchant_id: Schema.String });

/**
 * Provisions a payments merchant per reference (`restaurant:<id>`): the same reference answers
 * the same merchant while its idempotency record is kept. The merchant's API key is not kept:
 * the delivery module reaches the merchant only through the in-process gateway.
 */
export const makeInProcessMerchantProvisioning = (options: { readonly runtime: () => ProvisioningRuntime; readonly caller: string }): MerchantProvisioning => ({
  provision: (request) =>
    Effect.suspend(() => {
      const program = runIdempotent(
        {
          scope: `system/merchant-provisioning/${options.caller}`,
          key: request.reference,
          requestHash: createHash("sha256").update(`PROVISION\n${request.reference}\n${request.name}`).digest("hex"),
        },
        createMerchant({ name: request.name.slice(0, 200), scopes: [], actor: `system:${options.caller}` }).pipe(
          Effect.map((created) => ({ status: 201, body: { merchant_id: created.merchant.id } })),
        ),
      ).pipe(
        Effect.flatMap(({ response }) => Schema.decodeUnknown(Provisioned)(response.body)),
        Effect.map((body) => ({ merchantId: body.merchant_id })),
      );
      const fiber = options.runtime().runFork(program);
      return Fiber.join(fiber).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber)));
    }).pipe(
      // A restaurant cannot be created without its merchant; a failure here is the host's fault.
      Effect.orDie,
      withSpan("MerchantProvisioning.inProcess"),
    ),
});
