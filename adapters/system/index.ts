/** System adapters: ids (and, later, other process-level services). */
export * from "./Ids.js";
