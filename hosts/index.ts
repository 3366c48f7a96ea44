/** Hosts: configuration, composition (inversify container -> Effect runtime), the reference server, embedding. */
export * from "./Config.js";
export * from "./PortBindings.js";
export * from "./ModuleDefinition.js";
export * from "./Composition.js";
export * from "./Container.js";
export * from "./Database.js";
export * from "./Runtime.js";
export * from "./HostAuthentication.js";
export * from "./ReferenceServer.js";
export * from "./Embedding.js";
export { referenceModules } from "./modules/index.js";
