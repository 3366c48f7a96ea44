/** The identity module: token revocation for the reference server's users. */
import { Layer } from "effect";
import { identityRoutes } from "../../adapters/koa/identity/IdentityRoutes.js";
import type { ModuleDefinition } from "../ModuleDefinition.js";
import type { SharedPorts } from "../PortBindings.js";

/** Module definition of identity (no tables or ports of its own: epochs are a kernel table). */
export const identityModule: ModuleDefinition<never, SharedPorts> = {
  name: "identity",
  layer: Layer.empty,
  routes: identityRoutes,
};
