/**
 * The spans of the storage adapters: named like the port operation, without a call-site stack
 * trace by default. They are the kernel's `withSpan` (`core/kernel/Span.ts`) under the adapters'
 * names, so one switch (`enableSpanStackTraces`) governs every span of the library.
 */
export { enableSpanStackTraces, withSpan as span } from "../../core/kernel/Span.js";
