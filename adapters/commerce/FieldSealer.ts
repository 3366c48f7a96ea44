/**
 * The FieldSealer port with node:crypto AES-256-GCM: `v1.<key id>.<iv>.<tag>.<ciphertext>`
 * (base64url parts, 12-byte random IV, 16-byte tag). Keys are 32 bytes, configured by the host
 * with one current key id; older keys stay configured to open older rows. The module binds it
 * to the FieldSealer port and hands it to the SQL orders repository, which seals on write.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { FieldSealer } from "../../ports/commerce/FieldSealer.js";

export interface FieldSealerKeys {
  readonly currentKeyId: string;
  readonly keys: Readonly<Record<string, Buffer>>;
}

export const makeAesGcmFieldSealer = (config: FieldSealerKeys): FieldSealer => {
  for (const [id, key] of Object.entries(config.keys)) {
    if (!/^[A-Za-z0-9_-]{1,40}$/.test(id)) throw new Error(`field sealer: bad key id ${id}`);
    if (key.length !== 32) throw new Error(`field sealer: key ${id} must be 32 bytes`);
  }
  const current = config.keys[config.currentKeyId];
  if (current === undefined) throw new Error("field sealer: the current key is not configured");
  return {
    seal: (plaintext) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", current, iv);
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return ["v1", config.currentKeyId, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
    },
    open: (sealed) => {
      const [version, keyId, iv, tag, body] = sealed.split(".");
      const key = keyId === undefined ? undefined : config.keys[keyId];
      if (version !== "v1" || key === undefined || iv === undefined || tag === undefined || body === undefined) {
        throw new Error("field sealer: unreadable sealed value or unknown key");
      }
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    },
  };
};
