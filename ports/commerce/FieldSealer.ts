/**
 * Encryption at rest of an order's sensitive fields (shipping address, e-mail): the SQL adapter
 * seals them on write and opens them on read, so the core handles plain records. A sealed value
 * names the key it was sealed with, so keys can rotate: new writes use the current key, and
 * every configured key still opens what it sealed.
 */
import { Context } from "effect";

export interface FieldSealer {
  /** The sealed text of `plaintext` under the current key. */
  readonly seal: (plaintext: string) => string;
  /** The plaintext of a sealed value (throws on an unknown key or a tampered value: a defect). */
  readonly open: (sealed: string) => string;
}
export const FieldSealer = Context.GenericTag<FieldSealer>("domainkit/commerce/FieldSealer");
