/** The RiskSignalDigests port: keyed digests of a checkout's network and e-mail (security audit S4). */
import { createHmac, hkdfSync } from "node:crypto";
import type { RiskSignalDigests } from "../../ports/commerce/RiskSignalDigests.js";
import type { FieldSealerKeys } from "./FieldSealer.js";

/**
 * Risk signal digests (core/commerce/RiskSignals.ts): HMAC-SHA-256 under a key derived (HKDF) from
 * the current sealing key, so a stored digest cannot be matched against guessed IPs or e-mails
 * without it. A new current sealing key starts the counts afresh (declines count for an hour).
 */
export const hmacRiskSignalDigests = (keys: FieldSealerKeys): RiskSignalDigests => {
  const sealingKey = keys.keys[keys.currentKeyId];
  if (sealingKey === undefined) throw new Error("risk signal digests: the current sealing key is not configured");
  const key = Buffer.from(hkdfSync("sha256", sealingKey, Buffer.alloc(0), "domainkit commerce checkout risk signals", 32));
  return { digest: (signal) => createHmac("sha256", key).update(signal, "utf8").digest("hex") };
};
