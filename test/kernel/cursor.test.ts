/** Keyset cursors: opaque, round-trip exactly, and any edited or foreign string is invalid_cursor. */
import { Effect, Either, Exit, Schema } from "effect";
import fc from "fast-check";
import t from "tap";
import { InvalidCursor } from "../../core/kernel/Errors.js";
import { bindCursor, decodeCursor, encodeCursor, unbindCursor, type CursorKey } from "../../core/kernel/Cursor.js";
import { breaks, holds } from "./support/properties.js";

const AnyKeys = Schema.Array(Schema.Union(Schema.String, Schema.Number));
const key: fc.Arbitrary<CursorKey> = fc.oneof(
  fc.string({ unit: "grapheme" }),
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
);
const keys = fc.array(key, { maxLength: 4 });

type Decode = (cursor: string) => Effect.Effect<ReadonlyArray<CursorKey>, InvalidCursor>;

// Decoding must end in a success or an InvalidCursor failure, never a thrown error or defect.
const outcome = (decode: Decode, cursor: string) => {
  const exit = Effect.runSyncExit(decode(cursor));
  if (Exit.isSuccess(exit)) return { ok: true as const, value: exit.value };
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined;
  return { ok: false as const, invalid: failure instanceof InvalidCursor };
};

const mutation = fc.oneof(
  fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), char: fc.oneof(fc.constantFrom(..."ABCabc012-_xyzQ=+/."), fc.string({ minLength: 1, maxLength: 1 })) }),
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), char: fc.constantFrom(..."Aa0-_=") }),
  fc.record({ kind: fc.constant("swap" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
);
const mutate = (s: string, m: typeof mutation extends fc.Arbitrary<infer M> ? M : never): string => {
  const at = s.length === 0 ? 0 : m.at % s.length;
  switch (m.kind) {
    case "replace":
      return s.slice(0, at) + m.char + s.slice(at + 1);
    case "delete":
      return s.slice(0, at) + s.slice(at + 1);
    case "insert":
      return s.slice(0, at) + m.char + s.slice(at);
    case "swap":
      return s.slice(0, at) + s.charAt(at + 1) + s.charAt(at) + s.slice(at + 2);
    case "truncate":
      return s.slice(0, at);
  }
};

// Any edit of a real cursor that changes the string is refused with InvalidCursor.
const editsAreRefused = (decode: Decode) =>
  fc.property(keys, fc.array(mutation, { minLength: 1, maxLength: 3 }), (k, mutations) => {
    const cursor = encodeCursor(k);
    const edited = mutations.reduce(mutate, cursor);
    if (edited === cursor) return true;
    const result = outcome(decode, edited);
    return !result.ok && result.invalid;
  });

const decodeAny: Decode = (cursor) => decodeCursor(AnyKeys, cursor);

t.test("decoding an encoded cursor gives back exactly its keys", async (t) => {
  await holds(
    t,
    fc.property(keys, (k) => {
      const result = Effect.runSync(Effect.either(decodeAny(encodeCursor(k))));
      return Either.isRight(result) && result.right.length === k.length && result.right.every((x, i) => Object.is(x, k[i]));
    }),
  );
  const typed = Schema.Tuple(Schema.String, Schema.Number);
  await holds(
    t,
    fc.property(fc.string(), fc.integer(), (createdAt, rank) => {
      const result = Effect.runSync(Effect.either(decodeCursor(typed, encodeCursor([createdAt, rank]))));
      return Either.isRight(result) && result.right[0] === createdAt && result.right[1] === rank;
    }),
  );
});

t.test("an edited cursor fails invalid_cursor and never yields other keys", async (t) => {
  await holds(t, editsAreRefused(decodeAny), 500);
});

t.test("mutant: a decoder without the checksum and canonical check is caught", async (t) => {
  const lenient: Decode = (cursor) =>
    Effect.try({
      try: () => {
        const padded = cursor.replace(/-/g, "+").replace(/_/g, "/");
        const binary = atob(padded + "=".repeat((4 - (padded.length % 4)) % 4));
        const text = new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
        return (JSON.parse(text) as { k: ReadonlyArray<CursorKey> }).k;
      },
      catch: () => new InvalidCursor({}),
    }).pipe(Effect.flatMap((k) => Effect.mapError(Schema.decodeUnknown(AnyKeys)(k), () => new InvalidCursor({}))));
  await breaks(t, editsAreRefused(lenient), 500);
});

t.test("garbage strings fail invalid_cursor and never throw", async (t) => {
  await holds(
    t,
    fc.property(
      fc.oneof(fc.string(), fc.base64String(), fc.stringMatching(/^[A-Za-z0-9_-]{0,80}$/), fc.string({ unit: "binary", maxLength: 50 })),
      (garbage) => {
        const result = outcome(decodeAny, garbage);
        // The only acceptable success is a string that is itself a canonical cursor.
        return result.ok ? encodeCursor(result.value) === garbage : result.invalid;
      },
    ),
  );
  for (const bad of ["", "=", "%%%", "eyJ2IjoxfQ", btoa('{"v":1,"k":["a"],"c":"0"}'), "a".repeat(5000)]) {
    const result = outcome(decodeAny, bad);
    t.ok(!result.ok && result.invalid, `refuses ${bad.slice(0, 20)}`);
  }
});

t.test("a valid cursor of the wrong shape fails invalid_cursor (400)", async (t) => {
  const wrongShape = Effect.runSync(Effect.either(decodeCursor(Schema.Tuple(Schema.Number), encodeCursor(["not a number"]))));
  t.ok(Either.isLeft(wrongShape) && wrongShape.left instanceof InvalidCursor);
  if (Either.isLeft(wrongShape)) {
    t.equal(wrongShape.left.code, "invalid_cursor");
    t.equal(wrongShape.left.category, "bad_request");
  }
  const tooMany = Effect.runSync(Effect.either(decodeCursor(Schema.Tuple(Schema.String), encodeCursor(["a", "b"]))));
  t.ok(Either.isLeft(tooMany));
  t.match(encodeCursor(["2024-01-01T00:00:00.000Z", "018f-uuid"]), /^[A-Za-z0-9_-]+$/, "opaque base64url");
  t.throws(() => encodeCursor([Number.NaN]), RangeError);
});

const listName = fc.string({ maxLength: 40 });

type Unbind = (cursor: string, list: string) => Effect.Effect<string, InvalidCursor>;

// A cursor bound to `list` reads back as its keys there, and any other list refuses it.
const boundToItsList = (unbind: Unbind) =>
  fc.property(keys, listName, listName, (k, list, other) => {
    const bound = Effect.runSync(bindCursor(encodeCursor(k), list));
    const own = Effect.runSync(Effect.either(Effect.flatMap(unbind(bound, list), decodeAny)));
    if (!Either.isRight(own) || own.right.length !== k.length || !own.right.every((x, i) => Object.is(x, k[i]))) return false;
    if (other === list) return true;
    const foreign = outcome((cursor) => Effect.flatMap(unbind(cursor, other), decodeAny), bound);
    return !foreign.ok && foreign.invalid;
  });

t.test("a bound cursor reads back as its keys on its list and is refused by any other list", async (t) => {
  await holds(t, boundToItsList(unbindCursor));
  const bound = Effect.runSync(bindCursor(encodeCursor(["a"]), "tasks"));
  t.ok(!outcome(decodeAny, bound).ok, "a core's decoder does not read a bound cursor: the route unbinds it first");
});

t.test("mutant: an unbind that reads the keys without checking the list is caught", async (t) => {
  const ignoresList: Unbind = (cursor) =>
    Effect.try({
      try: () => {
        const padded = cursor.replace(/-/g, "+").replace(/_/g, "/");
        const binary = atob(padded + "=".repeat((4 - (padded.length % 4)) % 4));
        const text = new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
        return encodeCursor((JSON.parse(text) as { k: ReadonlyArray<CursorKey> }).k);
      },
      catch: () => new InvalidCursor({}),
    });
  await breaks(t, boundToItsList(ignoresList));
});

t.test("an edited bound cursor fails invalid_cursor", async (t) => {
  await holds(
    t,
    fc.property(keys, fc.array(mutation, { minLength: 1, maxLength: 3 }), (k, mutations) => {
      const bound = Effect.runSync(bindCursor(encodeCursor(k), "list"));
      const edited = mutations.reduce(mutate, bound);
      if (edited === bound) return true;
      const result = outcome((cursor) => Effect.flatMap(unbindCursor(cursor, "list"), decodeAny), edited);
      return !result.ok && result.invalid;
    }),
    500,
  );
});

t.test("an unbound cursor is read by any list as it is", async (t) => {
  await holds(
    t,
    fc.property(keys, listName, (k, list) => {
      const cursor = encodeCursor(k);
      const result = Effect.runSync(Effect.either(unbindCursor(cursor, list)));
      return Either.isRight(result) && result.right === cursor;
    }),
  );
});
