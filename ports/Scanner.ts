/**
 * Malware scanner port (spec: "Files stay quarantined until checks complete"; background work
 * "attachment scan"). A scan reads an object's bytes and answers a verdict; a scanner that cannot
 * answer fails with ScannerUnavailable so the durable job retries it (never guessing "clean").
 */
import { Context, Data, type Effect, type Stream } from "effect";

/** What a scan concluded. */
export type ScanVerdict =
  | { readonly verdict: "clean" }
  | { readonly verdict: "infected"; readonly signature: string };

/** The scanner could not answer (engine down, timeout); the caller retries later. */
export class ScannerUnavailable extends Data.TaggedError("ScannerUnavailable")<{ readonly detail?: string }> {
  readonly code = "scanner_unavailable";
  readonly category = "unavailable" as const;
}

/** The scanner. */
export interface Scanner {
  /** Scans `content` to its end and answers the verdict. */
  readonly scan: (content: Stream.Stream<Uint8Array>) => Effect.Effect<ScanVerdict, ScannerUnavailable>;
}
export const Scanner = Context.GenericTag<Scanner>("domainkit/Scanner");
