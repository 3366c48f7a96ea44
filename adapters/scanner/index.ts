/** Scanner adapters: the built-in signature scanner (EICAR and extra signatures). */
export * from "./SignatureScanner.js";
