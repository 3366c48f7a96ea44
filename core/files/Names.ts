/**
 * Node names: 1 to 255 characters after Unicode NFC normalization, never `.` or `..`, without
 * `/`, `\` or control characters. Names are compared exactly as normalized (docs/decisions.md,
 * File storage).
 */
import { Effect } from "effect";
import { InvalidName } from "./Errors.js";

// Control characters (C0, DEL, C1) and the two path separators.
const forbidden = /[\u0000-\u001f\u007f-\u009f/\\]/;

/** The normalized name, or InvalidName. */
export const validName = (raw: string): Effect.Effect<string, InvalidName> => {
  const name = raw.normalize("NFC");
  const ok = name.length >= 1 && name.length <= 255 && name.trim().length > 0 && name !== "." && name !== ".." && !forbidden.test(name);
  return ok ? Effect.succeed(name) : Effect.fail(new InvalidName({ name: raw, detail: "a name has 1 to 255 characters, is not . or .., and has no / \\ or control characters" }));
};
