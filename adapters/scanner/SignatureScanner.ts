/**
 * The built-in scanner: byte-signature matching over the whole object, streamed. It knows the
 * EICAR anti-virus test file, so quarantine is real in tests and demos, and takes extra
 * signatures (e.g. a team's own test markers). It is not an anti-virus engine; production
 * deployments bind the Scanner port to one (ClamAV and the like).
 */
import { Effect, Stream } from "effect";
import type { ScanVerdict, Scanner } from "../../ports/Scanner.js";
import { withSpan } from "../../core/kernel/Span.js";

/** One signature: a name reported in the verdict and the bytes that betray it. */
export interface Signature {
  readonly name: string;
  readonly bytes: Uint8Array;
}

/**
 * The EICAR test string, assembled at run time so this source file itself is not flagged by
 * the anti-virus of whoever checks it out.
 */
export const eicarTestString: string = ["X5O!P%@AP[4\\PZX54(P^)7CC)7}$", "EICAR-STANDARD-ANTIVIRUS-", "TEST-FILE!$H+H*"].join("");

/** The EICAR signature. */
export const eicarSignature: Signature = { name: "EICAR-Test-File", bytes: new TextEncoder().encode(eicarTestString) };

/** Options of the signature scanner. */
export interface SignatureScannerOptions {
  /** Signatures beyond EICAR. */
  readonly signatures?: ReadonlyArray<Signature>;
}

const indexOf = (haystack: Buffer, needle: Uint8Array): number => haystack.indexOf(needle);

/** Builds the signature scanner. */
export const makeSignatureScanner = (options: SignatureScannerOptions = {}): Scanner => {
  const signatures = [eicarSignature, ...(options.signatures ?? [])].filter((s) => s.bytes.length > 0);
  // Keep this many trailing bytes between chunks so a signature split across two chunks is found.
  const overlap = Math.max(0, ...signatures.map((s) => s.bytes.length - 1));
  return {
    scan: (content) =>
      Effect.gen(function* () {
        let carry: Buffer = Buffer.alloc(0);
        let found: string | null = null;
        yield* Stream.runForEachWhile(content, (chunk) =>
          Effect.sync(() => {
            const window = Buffer.concat([carry, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)]);
            const hit = signatures.find((s) => indexOf(window, s.bytes) >= 0);
            if (hit !== undefined) {
              found = hit.name;
              return false;
            }
            carry = window.subarray(Math.max(0, window.length - overlap));
            return true;
          }),
        );
        const verdict: ScanVerdict = found === null ? { verdict: "clean" } : { verdict: "infected", signature: found };
        return verdict;
      }).pipe(withSpan("SignatureScanner.scan")),
  };
};
