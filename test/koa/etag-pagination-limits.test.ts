/** If-Match parsing, page shaping and the limits table. */
import t from "tap";
import { InvalidCursor, PreconditionRequired } from "../../core/kernel/Errors.js";
import { decodeCursor } from "../../core/kernel/Cursor.js";
import { Effect, Schema } from "effect";
import { etag, parseIfMatch, qualifiedEtag, requireIfMatch } from "../../adapters/koa/ETag.js";
import { InvalidIfMatch, InvalidLimit } from "../../adapters/koa/HttpErrors.js";
import { defaultLimits, resolveLimits } from "../../adapters/koa/Limits.js";
import { pageParams } from "../../adapters/koa/Pagination.js";
import { pageFrom } from "../../core/kernel/Page.js";

t.test("If-Match accepts a quoted, bare or weak version and rejects anything else", async (t) => {
  t.equal(etag(3), '"3"');
  t.equal(parseIfMatch('"3"'), 3);
  t.equal(parseIfMatch("3"), 3);
  t.equal(parseIfMatch('W/"3"'), 3);
  t.equal(parseIfMatch(" 12 "), 12);
  t.equal(parseIfMatch('"5.2"'), 5, "a qualified ETag (version.epoch) names its version");
  t.equal(parseIfMatch('W/"5.2"'), 5);
  t.equal(parseIfMatch(undefined), undefined);
  t.equal(parseIfMatch(""), undefined);
  for (const garbage of ["*", '"3", "4"', "v3", '"-1"', "3.5", '"3.x"', '"3."', '"abc"', "W/3"]) {
    t.throws(() => parseIfMatch(garbage), InvalidIfMatch, `${garbage} is invalid_if_match`);
  }
  t.equal(qualifiedEtag(5, 2), '"5.2"', "a qualified ETag");
  t.equal(qualifiedEtag(5, 281474976710655, { weak: true }), 'W/"5.281474976710655"', "a weak one over a 48-bit digest");
  t.equal(parseIfMatch(qualifiedEtag(5, 281474976710655, { weak: true })), 5, "names its version back");
  t.throws(() => requireIfMatch(undefined), PreconditionRequired);
  t.equal(requireIfMatch('"7"'), 7);
});

t.test("list limits default to 50, allow at most 200, and reject anything else", async (t) => {
  t.same(pageParams({}), { limit: 50, cursor: undefined });
  t.equal(pageParams({ limit: "200" }).limit, 200);
  t.equal(pageParams({ limit: "1" }).limit, 1);
  for (const bad of ["0", "201", "-1", "1.5", "ten", ["1", "2"]]) {
    t.throws(() => pageParams({ limit: bad }), InvalidLimit, `limit ${JSON.stringify(bad)} is invalid_limit`);
  }
  t.throws(() => pageParams({ cursor: ["a", "b"] }), InvalidCursor);
  t.equal(pageParams({ limit: "20" }, { listDefault: 10, listMax: 20 }).limit, 20, "limits come from the Limits table");
});

t.test("a page of limit+1 rows has a cursor to the last returned row; a short page has none", async (t) => {
  const rows = [1, 2, 3, 4].map((n) => ({ n }));
  const full = pageFrom(rows, 3, (row) => [row.n]);
  t.same(full.data, [{ n: 1 }, { n: 2 }, { n: 3 }]);
  t.type(full.next_cursor, "string");
  const keys = await Effect.runPromise(decodeCursor(Schema.Tuple(Schema.Int), full.next_cursor as string));
  t.same(keys, [3], "the cursor carries the last returned row's key");
  t.same(pageFrom(rows.slice(0, 3), 3, (row) => [row.n]).next_cursor, null, "the last page has next_cursor null");
});

t.test("limits have the documented defaults and refuse nonsense", async (t) => {
  t.equal(defaultLimits.jsonBodyBytes, 1024 * 1024);
  t.equal(defaultLimits.listDefault, 50);
  t.equal(defaultLimits.listMax, 200);
  t.equal(defaultLimits.idempotencyKeyMaxLength, 255);
  t.equal(resolveLimits({ listMax: 500 }).listMax, 500);
  t.throws(() => resolveLimits({ rateLimitPoints: 0 }));
  t.throws(() => resolveLimits({ listDefault: 300 }));
});
