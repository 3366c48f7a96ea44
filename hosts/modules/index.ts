/** Every module the reference server mounts. Business modules add themselves here. */
import type { ModuleDefinition } from "../ModuleDefinition.js";
import { identityModule } from "./identityModule.js";
import { paymentsModule } from "./paymentsModule.js";
import { projectsModule } from "./projectsModule.js";

/** The modules of the reference server, in mount order. */
export const referenceModules: ReadonlyArray<ModuleDefinition> = [identityModule, projectsModule, paymentsModule];
