/**
 * The one keyset cursor codec of the project (docs/conventions.md, Lists). A cursor carries the last
 * row's sort key as an opaque base64url string of a versioned JSON payload with a short
 * checksum. Decoding accepts only the exact string this codec would produce for the same keys,
 * then validates the keys with the caller's schema, so an edited, truncated or foreign cursor
 * is a 400 invalid_cursor and never a page of the wrong rows.
 *
 * A list served over HTTP binds the cursors it issues to itself (`bindCursor`: the checksum also
 * covers the list's identity, version 2), and reads them back with `unbindCursor`, so a cursor of
 * one list given to another is refused rather than read as a position in it. Unbound (version 1)
 * cursors, which cores issue and lists issued before binding, are still read.
 */
import { Effect, ParseResult, Schema } from "effect";
import { InvalidCursor } from "./Errors.js";

/** One component of a sort key. */
export type CursorKey = string | number;

const cursorVersion = 1;
const boundCursorVersion = 2;

/** The longest cursor a list issues; cores keep their keys short enough (TaskQueries). */
export const maxCursorLength = 2048;

// A bound cursor's checksum may be up to 6 digits longer (base36 of 32 bits), so up to 8
// characters of base64url; anything longer is refused before any parsing work.
const maxReadableLength = maxCursorLength + 8;

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

// What the checksum covers: the version, the keys and, for a bound cursor, the list.
const body = (keys: ReadonlyArray<CursorKey>, list: string | undefined): string =>
  JSON.stringify(list === undefined ? [cursorVersion, keys] : [boundCursorVersion, list, keys]);

const encode = (keys: ReadonlyArray<CursorKey>, list: string | undefined): string => {
  for (const key of keys) {
    if (typeof key === "number" && !Number.isFinite(key)) {
      // JSON cannot carry it, so such a cursor could never decode: a programming error.
      throw new RangeError(`cursor keys must be finite numbers, got ${key}`);
    }
  }
  const version = list === undefined ? cursorVersion : boundCursorVersion;
  return toBase64Url(utf8Encoder.encode(JSON.stringify({ v: version, k: keys, c: checksum(body(keys, list)) })));
};

/** Encodes a sort key as an opaque cursor. Keys must be strings or finite numbers. */
export const encodeCursor = (keys: ReadonlyArray<CursorKey>): string => encode(keys, undefined);

const invalid = (detail: string) => new InvalidCursor({ detail });

// The version and keys of a readable payload, before its checksum is checked.
const readPayload = (cursor: string): Effect.Effect<{ readonly version: number; readonly keys: ReadonlyArray<CursorKey> }, InvalidCursor> => {
  if (cursor.length === 0 || cursor.length > maxReadableLength) return Effect.fail(invalid("cursor has an invalid length"));
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
  if (v !== cursorVersion && v !== boundCursorVersion) return Effect.fail(invalid("cursor version is not supported"));
  if (!Array.isArray(k) || !k.every((key) => typeof key === "string" || (typeof key === "number" && Number.isFinite(key)))) {
    return Effect.fail(invalid("cursor keys are not readable"));
  }
  return Effect.succeed({ version: v, keys: k });
};

const readKeys = (cursor: string): Effect.Effect<ReadonlyArray<CursorKey>, InvalidCursor> =>
  Effect.flatMap(readPayload(cursor), ({ version, keys }) =>
    // Only the exact canonical encoding is accepted: any edit either breaks the checksum or
    // produces a different string than this codec would write.
    version === cursorVersion && encodeCursor(keys) === cursor
      ? Effect.succeed(keys)
      : Effect.fail(invalid(version === cursorVersion ? "cursor checksum does not match" : "cursor version is not supported")),
  );

/** The cursor bound to `list` (a list's identity: the route and the parameters it was read with). */
export const bindCursor = (cursor: string, list: string): Effect.Effect<string, InvalidCursor> =>
  Effect.map(readKeys(cursor), (keys) => encode(keys, list));

/**
 * The unbound cursor of a cursor `list` issued; an unbound (version 1) cursor as it is. A cursor
 * bound to another list, or edited, fails InvalidCursor.
 */
export const unbindCursor = (cursor: string, list: string): Effect.Effect<string, InvalidCursor> =>
  Effect.flatMap(readPayload(cursor), ({ version, keys }) => {
    if (version === cursorVersion) return Effect.as(readKeys(cursor), cursor);
    return encode(keys, list) === cursor
      ? Effect.succeed(encodeCursor(keys))
      : Effect.fail(invalid("the cursor belongs to another list"));
  });

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
