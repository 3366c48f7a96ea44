/**
 * The one keyset cursor codec of the project (docs/conventions.md, Lists). A cursor carries the last
 * row's sort key as an opaque base64url string of a versioned JSON payload with a short
 * checksum. Decoding accepts only the exact string this codec would produce for the same keys,
 * then validates the keys with the caller's schema, so an edited, truncated or foreign cursor
 * is a 400 invalid_cursor and never a page of the wrong rows.
 */
import { Effect, ParseResult, Schema } from "effect";
import { InvalidCursor } from "./Errors.js";

/** One component of a sort key. */
export type CursorKey = string | number;

const cursorVersion = 1;

/** Cursors longer than this are refused before any parsing work. */
export const maxCursorLength = 2048;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

// FNV-1a over UTF-8: short and deterministic; it catches accidents, it is not a signature.
const checksum = (text: string): string => {
  let hash = 0x811c9dc5;
  for (const byte of utf8Encoder.encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
};

const toBase64Url = (bytes: Uint8Array): string => {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
};

const fromBase64Url = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  try {
    const binary = atob(padded);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
};

const body = (keys: ReadonlyArray<CursorKey>): string => JSON.stringify([cursorVersion, keys]);

/** Encodes a sort key as an opaque cursor. Keys must be strings or finite numbers. */
export const encodeCursor = (keys: ReadonlyArray<CursorKey>): string => {
  for (const key of keys) {
    if (typeof key === "number" && !Number.isFinite(key)) {
      // JSON cannot carry it, so such a cursor could never decode: a programming error.
      throw new RangeError(`cursor keys must be finite numbers, got ${key}`);
    }
  }
  const text = body(keys);
  return toBase64Url(utf8Encoder.encode(JSON.stringify({ v: cursorVersion, k: keys, c: checksum(text) })));
};

const invalid = (detail: string) => new InvalidCursor({ detail });

const readKeys = (cursor: string): Effect.Effect<ReadonlyArray<CursorKey>, InvalidCursor> => {
  if (cursor.length === 0 || cursor.length > maxCursorLength) return Effect.fail(invalid("cursor has an invalid length"));
  const bytes = fromBase64Url(cursor);
  if (bytes === undefined) return Effect.fail(invalid("cursor is not base64url"));
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8Decoder.decode(bytes));
  } catch {
    return Effect.fail(invalid("cursor is not readable"));
  }
  if (typeof parsed !== "object" || parsed === null) return Effect.fail(invalid("cursor is not readable"));
  const { v, k } = parsed as { v?: unknown; k?: unknown };
  if (v !== cursorVersion) return Effect.fail(invalid("cursor version is not supported"));
  if (!Array.isArray(k) || !k.every((key) => typeof key === "string" || (typeof key === "number" && Number.isFinite(key)))) {
    return Effect.fail(invalid("cursor keys are not readable"));
  }
  // Only the exact canonical encoding is accepted: any edit either breaks the checksum or
  // produces a different string than this codec would write.
  if (encodeCursor(k) !== cursor) return Effect.fail(invalid("cursor checksum does not match"));
  return Effect.succeed(k);
};

/** Decodes a cursor and validates its keys with `schema`; any unreadable cursor fails InvalidCursor. */
export const decodeCursor = <A, I>(
  schema: Schema.Schema<A, I, never>,
  cursor: string,
): Effect.Effect<A, InvalidCursor> =>
  Effect.flatMap(readKeys(cursor), (keys) =>
    Schema.decodeUnknown(schema)(keys).pipe(
      Effect.mapError((error) => invalid(`cursor does not fit this list: ${ParseResult.TreeFormatter.formatErrorSync(error)}`)),
    ),
  );
