/**
 * The payment port for the host's other modules (e-commerce, food delivery): a route-less
 * module binding `PaymentGateway` to the in-process adapter, which runs the payment core on the
 * host's own runtime. The port is bound before that runtime exists, so the adapter asks for it
 * lazily; the host hands it over with `attachRuntime` right after building it (the module's
 * programs need the payment services, so it composes only after the payment module). A host
 * whose payment service runs elsewhere rebinds the port to `makeHttpPaymentGateway` instead.
 */
import { Layer, type ManagedRuntime } from "effect";
import { makeInProcessPaymentGateway, type InProcessGatewayServices } from "../../adapters/payments/gateway/InProcessPaymentGateway.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import type { ModuleDefinition } from "../ModuleDefinition.js";

/** Builds the payment gateway module; `caller` names the calling modules in the payment audit log. */
export const makePaymentGatewayModule = (options: { readonly caller?: string } = {}): ModuleDefinition<PaymentGateway, InProcessGatewayServices> => {
  let runtime: ManagedRuntime.ManagedRuntime<InProcessGatewayServices, never> | undefined;
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
    layer: Layer.succeed(PaymentGateway, gateway),
    routes: [],
    attachRuntime: (built) => {
      runtime = built;
    },
  };
};
