/**
 * Contract kit for the commerce FieldSealer (ports/commerce/FieldSealer.ts), asserting only what
 * the port promises: what is sealed opens to the same text; a sealed value names its key, so after
 * a rotation every configured key still opens what it sealed, new seals use the new key (a
 * sealer without it cannot open them); a tampered or unknown value does not open (it throws).
 *
 * The factory provides the sealer under test and, as `FieldSealerRotated`, one configured as after
 * a key rotation: the same keys plus a new current one.
 */
import { Context, Effect } from "effect";
import { FieldSealer } from "../../../ports/commerce/FieldSealer.js";
import { runCases, type KitCase, type SuiteOptions } from "../Kit.js";

/** The sealer under test's configuration after a key rotation: its keys kept, a new one current. */
export interface FieldSealerRotated {
  readonly sealer: FieldSealer;
}
export const FieldSealerRotated = Context.GenericTag<FieldSealerRotated>("domainkit/testkit/FieldSealerRotated");

/** The ports this kit needs. */
export type FieldSealerKitPorts = FieldSealer | FieldSealerRotated;

const sealers = Effect.all({ sealer: FieldSealer, rotated: Effect.map(FieldSealerRotated, (r) => r.sealer) });

/** Texts an order's fields hold: empty, accented, other scripts, long. */
const texts = ["", "Ada Lovelace, 12 Rue de l'Église, 75004 Paris", "東京都千代田区1-1 🚚", "x".repeat(5_000), "a.b.c"];

/** Whether `open(sealed)` throws (the port's defect for a value it cannot open). */
const refuses = (sealer: FieldSealer, sealed: string): boolean => {
  try {
    sealer.open(sealed);
    return false;
  } catch {
    return true;
  }
};

/** `sealed` with the character at `at` changed. */
const tampered = (sealed: string, at: number): string => sealed.slice(0, at) + (sealed[at] === "A" ? "B" : "A") + sealed.slice(at + 1);

/** The cases of the field sealer kit. */
export const fieldSealerCases: ReadonlyArray<KitCase<FieldSealerKitPorts>> = [
  {
    name: "field sealer: a sealed text opens to the same text, and is not the text",
    run: async (t, run) => {
      const { sealer } = await run(sealers);
      for (const text of texts) {
        const sealed = sealer.seal(text);
        t.equal(sealer.open(sealed), text, `round trip of ${JSON.stringify(text.slice(0, 20))}`);
        if (text.length > 0) t.notOk(sealed.includes(text), "the sealed value does not carry the text");
      }
    },
  },
  {
    name: "field sealer: after a key rotation the old key still opens what it sealed, and new seals use the new key",
    run: async (t, run) => {
      const { sealer, rotated } = await run(sealers);
      const old = sealer.seal("before the rotation");
      t.equal(rotated.open(old), "before the rotation", "the rotated sealer opens an old value");
      const fresh = rotated.seal("after the rotation");
      t.equal(rotated.open(fresh), "after the rotation");
      t.ok(refuses(sealer, fresh), "a sealer without the new key cannot open a new value: it was sealed with the new key");
    },
  },
  {
    name: "field sealer: a tampered sealed value does not open",
    run: async (t, run) => {
      const { sealer } = await run(sealers);
      const sealed = sealer.seal("Ada Lovelace, 12 Rue de l'Église");
      for (const at of [Math.floor(sealed.length / 2), sealed.length - 2, sealed.length - 10]) {
        t.ok(refuses(sealer, tampered(sealed, at)), `a change at ${at} of ${sealed.length} is refused`);
      }
      t.ok(refuses(sealer, sealed.slice(0, -4)), "a cut value is refused");
      t.ok(refuses(sealer, "not sealed at all"), "a value never sealed is refused");
    },
  },
];

/** Runs the field sealer kit against the sealers `options.factory` makes. */
export const fieldSealerSuite = (options: SuiteOptions<FieldSealerKitPorts>): Promise<unknown> => runCases(options, fieldSealerCases);
