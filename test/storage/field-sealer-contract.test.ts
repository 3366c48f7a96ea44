/** Runs the commerce FieldSealer kit on our AES-256-GCM sealer (adapters/commerce/FieldSealer.ts). */
import { randomBytes } from "node:crypto";
import { Context, Layer } from "effect";
import t from "tap";
import { makeAesGcmFieldSealer } from "../../adapters/commerce/FieldSealer.js";
import { FieldSealer } from "../../ports/commerce/FieldSealer.js";
import { FieldSealerRotated, fieldSealerSuite } from "../contract/index.js";

t.test("FieldSealer contract [aes-256-gcm]", (t) =>
  fieldSealerSuite({
    test: (name, fn) => t.test(name, fn),
    factory: async () => {
      const old = randomBytes(32);
      const sealer = makeAesGcmFieldSealer({ currentKeyId: "k1", keys: { k1: old } });
      const rotated = makeAesGcmFieldSealer({ currentKeyId: "k2", keys: { k1: old, k2: randomBytes(32) } });
      return { layer: Layer.succeedContext(Context.make(FieldSealer, sealer).pipe(Context.add(FieldSealerRotated, { sealer: rotated }))), close: async () => undefined };
    },
  }),
);
