/**
 * Provisions a payments merchant for a tenant of another module (an e-commerce store, a
 * restaurant), so that tenant's payments, captures and refunds are its own merchant's. The
 * reference server binds it to the payments module in-process; an embedding host binds its own.
 * `reference` is stable per tenant ("store:<id>"): provisioning again answers the same merchant,
 * so a retried store creation never makes a second one.
 */
import { Context, type Effect } from "effect";

/** What to provision. */
export interface MerchantProvisioningRequest {
  /** The merchant's display name (the store's or restaurant's). */
  readonly name: string;
  /** Stable per tenant, e.g. `store:<store id>`; the idempotency key of the provisioning. */
  readonly reference: string;
}

/** The provisioned merchant. */
export interface ProvisionedMerchant {
  readonly merchantId: string;
}

/** The port. */
export interface MerchantProvisioning {
  readonly provision: (request: MerchantProvisioningRequest) => Effect.Effect<ProvisionedMerchant>;
}
export const MerchantProvisioning = Context.GenericTag<MerchantProvisioning>("domainkit/MerchantProvisioning");
