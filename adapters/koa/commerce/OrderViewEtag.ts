/**
 * The ETag of GET /v1/orders/:id: weak, `W/"<order version>.<digest>"`. The view embeds the first
 * page of the timeline, which gains entries (fulfillment moves, payment and return entries) and
 * loses texts (guest retention) while the order's version stays, and a full page gains a next page
 * while its entries stay: the digest is over the whole view (order, lines, page and its next
 * cursor), so any change of the answer changes the ETag. Its qualifier has at most 15 digits, so
 * `parseIfMatch` (ETag.ts) reads the order's version from it, as from a node's `"<version>.<epoch>"`.
 */
import { createHash } from "node:crypto";
import type { OrderView } from "../../../core/commerce/model/Order.js";
import { qualifiedEtag } from "../ETag.js";
import { canonicalJson } from "../Idempotency.js";

export const orderViewEtag = (view: OrderView): string => {
  // 48 bits of SHA-256: at most 15 decimal digits.
  const digest = createHash("sha256").update(canonicalJson(view)).digest().readUIntBE(0, 6);
  return qualifiedEtag(view.version, digest, { weak: true });
};
