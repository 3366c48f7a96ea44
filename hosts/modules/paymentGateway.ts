/**
 * The payment port for the host's other modules (e-commerce, food delivery): a route-less
 * module binding `PaymentGateway` to the in-process adapter, which runs the payment core on the
 * host's own runtime. The port is bound before that runtime exists, so the adapter asks for it
 * lazily; the host hands it over with `attachRuntime` right after building it. A host whose
 * payment service runs elsewhere rebinds the port to `makeHttpPaymentGateway` instead.
 */
import { makeInProcessPaymentGateway } from "../../adapters/payments-gateway/InProcessPaymentGateway.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import type { ModuleDefinition } from "../ModuleDefinition.js";
import type { DomainRuntime } from "../Runtime.js";

/** The module, plus the hook that gives the gateway the host runtime (which must mount the payment module). */
export interface PaymentGatewayModule extends ModuleDefinition {
  readonly attachRuntime: (runtime: DomainRuntime) => void;
}

/** Builds the payment gateway module; `caller` names the calling modules in the payment audit log. */
export const makePaymentGatewayModule = (options: { readonly caller?: string } = {}): PaymentGatewayModule => {
  let runtime: DomainRuntime | undefined;
  const gateway = makeInProcessPaymentGateway({
    caller: options.caller ?? "host",
    runtime: () => {
      // A wiring error, not a payment failure: it surfaces as a defect at the first call.
      if (runtime === undefined) throw new Error("the payment gateway's runtime was not attached (attachRuntime after building the host runtime)");
      return runtime;
    },
  });
  return {
    name: "payment-gateway",
    routes: [],
    ports: [{ tag: PaymentGateway, make: () => gateway }],
    attachRuntime: (built) => {
      runtime = built;
    },
  };
};
