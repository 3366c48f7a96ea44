/**
 * Keyed digests of checkout risk signals (a client's network, a normalised e-mail): equal signals
 * give equal digests, so declines are counted per signal, and the module stores only the digest.
 * Without the key a digest cannot be matched against guessed addresses.
 */
import { Context } from "effect";

export interface RiskSignalDigests {
  /** The digest of `signal` (64 lowercase hex characters). */
  readonly digest: (signal: string) => string;
}
export const RiskSignalDigests = Context.GenericTag<RiskSignalDigests>("domainkit/commerce/RiskSignalDigests");
