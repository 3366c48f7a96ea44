/**
 * Every error path of the HTTP host answers RFC 9457 problem+json with a stable code, and no
 * error body carries a stack trace, SQL or a secret.
 */
import { Effect, Either, Schema } from "effect";
import t from "tap";
import { NotFound } from "../../core/kernel/Errors.js";
import { runHandler } from "../../adapters/koa/EffectHandler.js";
import { defineRoute } from "../../adapters/koa/Route.js";
import { fieldErrors } from "../../adapters/koa/Decode.js";
import { call, jsonInit, startTestApp, tokenFor, aliceId, type ReadResponse } from "./support.js";
import { fixtureRoutes, knownThingId, lockedThingId } from "./routes.fixture.js";

type Test = Parameters<Parameters<typeof t.test>[0]>[0];

/** Asserts the answer is problem+json with this status and code and the standard members. */
const assertProblem = (tt: Test, res: ReadResponse, status: number, code: string): void => {
  tt.equal(res.status, status, `status ${status}`);
  tt.match(res.contentType, /^application\/problem\+json/, "content type is application/problem+json");
  tt.equal(res.body?.code, code, `code ${code}`);
  tt.equal(res.body?.status, status, "body status equals HTTP status");
  tt.equal(res.body?.type, `urn:domainkit:problem:${code}`, "type names the code");
  tt.type(res.body?.title, "string");
  tt.type(res.body?.detail, "string");
};

t.test("error paths answer problem+json with a stable code", async (t) => {
  const app = await startTestApp(t, {
    routes: [
      ...fixtureRoutes,
      // Answers an ETag without declaring it: the OpenAPI document would not show it.
      defineRoute({
        method: "GET",
        path: "/v1/undeclared-etag",
        operationId: "undeclaredEtag",
        summary: "Answers an ETag it does not declare",
        tags: ["test"],
        auth: "none",
        responses: { 200: Schema.Struct({ ok: Schema.Boolean }) },
        handler: () => Effect.succeed({ status: 200 as const, body: { ok: true }, etag: 1 }),
      }),
    ],
    limits: { jsonBodyBytes: 1024 },
    // A raw route outside defineRoute still gets the runtime and the one error mapper.
    configureRouter: (router) =>
      router.get("/v1/raw/:id", (ctx) =>
        runHandler(ctx, ctx.params.id === "1" ? Effect.succeed({ status: 200, body: { raw: true } }) : Effect.fail(new NotFound({ resource: "raw" }))),
      ),
  });
  const auth = { authorization: `Bearer ${await tokenFor(aliceId)}` };
  const url = (path: string) => `${app.url}${path}`;

  t.test("an Idempotency-Key sent to a creation that takes none answers 400 idempotency_key_not_supported, and nothing is created", async (t) => {
    const refused = await call(url("/v1/things"), jsonInit("POST", { title: "A", count: 1 }, { ...auth, "idempotency-key": "k-1" }));
    assertProblem(t, refused, 400, "idempotency_key_not_supported");
    t.match(refused.body?.detail, /POST \/v1\/things takes no Idempotency-Key: a retry creates another resource/);
    t.equal((await call(url("/v1/things"), jsonInit("POST", { title: "A", count: 1 }, auth))).status, 201, "without the header it creates");
  });

  t.test("If-Match sent to a route that checks no version answers 400 if_match_not_supported before any work; reads ignore it", async (t) => {
    const refused = await call(url(`/v1/things/${knownThingId}/checkout`), { method: "POST", headers: { ...auth, "if-match": '"3"' } });
    assertProblem(t, refused, 400, "if_match_not_supported");
    const unconditional = await call(url(`/v1/things/${knownThingId}/checkout`), { method: "POST", headers: auth });
    t.equal(unconditional.body?.code, "price_changed", "without the header the work runs (and answers its own conflict)");
    t.equal((await call(url(`/v1/things/${knownThingId}`), { headers: { ...auth, "if-match": '"3"' } })).status, 200, "a read ignores it");
  });

  t.test("malformed JSON answers 400 malformed_json", async (t) => {
    const res = await call(url("/v1/things"), { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: "{bad" });
    assertProblem(t, res, 400, "malformed_json");
    t.same(res.body?.errors, [{ path: "", message: "the body is not a JSON object or array" }], "with errors, as every 400");
  });

  t.test("a body nested deeper than the documented bound (32 levels) answers 400 malformed_json; at the bound it is read", async (t) => {
    const nested = (levels: number) => `{"title":"A","count":1,"extra":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
    const post = (body: string) => call(url("/v1/things"), { method: "POST", headers: { ...auth, "content-type": "application/json" }, body });
    t.equal((await post(nested(32))).status, 201, "32 levels are read");
    const refused = await post(nested(33));
    assertProblem(t, refused, 400, "malformed_json");
    t.same(refused.body?.errors, [{ path: "", message: "nested more than 32 levels deep" }]);
  });

  t.test("a field of the wrong type is one error, not one per branch of an optional field", async (t) => {
    const Patch = Schema.Struct({ title: Schema.optional(Schema.String), count: Schema.optional(Schema.Int) });
    const failed = Schema.decodeUnknownEither(Patch, { errors: "all" })({ title: 5, count: "x" });
    if (Either.isRight(failed)) return t.fail("decoded");
    t.same(fieldErrors(failed.left), [
      { path: "title", message: "Expected string, actual 5" },
      { path: "count", message: 'Expected number, actual "x"' },
    ]);
  });

  t.test("a body over the JSON limit answers 413 payload_too_large", async (t) => {
    const res = await call(url("/v1/things"), jsonInit("POST", { title: "x".repeat(2000), count: 1 }, auth));
    assertProblem(t, res, 413, "payload_too_large");
  });

  t.test("a non-JSON body on a body route answers 415 unsupported_media_type", async (t) => {
    const res = await call(url("/v1/things"), { method: "POST", headers: { ...auth, "content-type": "text/plain" }, body: "hello" });
    assertProblem(t, res, 415, "unsupported_media_type");
  });

  t.test("an unknown route answers 404 route_not_found", async (t) => {
    const res = await call(url("/v1/nothing-here"), { headers: auth });
    assertProblem(t, res, 404, "route_not_found");
  });

  t.test("a known path with the wrong method answers 405 method_not_allowed with Allow", async (t) => {
    const res = await call(url("/v1/things"), { method: "DELETE", headers: auth });
    assertProblem(t, res, 405, "method_not_allowed");
    t.match(res.headers.get("allow") ?? "", /GET/);
    t.match(res.headers.get("allow") ?? "", /POST/);
  });

  t.test("an invalid body answers 422 validation_failed listing each field", async (t) => {
    const res = await call(url("/v1/things"), jsonInit("POST", { title: "", count: -1 }, auth));
    assertProblem(t, res, 422, "validation_failed");
    const paths = (res.body.errors as Array<{ path: string; message: string }>).map((e) => e.path).sort();
    t.same(paths, ["count", "title"]);
    for (const e of res.body.errors) t.type(e.message, "string");
  });

  t.test("a malformed path parameter answers 400 validation_failed", async (t) => {
    const res = await call(url("/v1/things/not-a-uuid"), { headers: auth });
    assertProblem(t, res, 400, "validation_failed");
    t.same(res.body.errors.map((e: { path: string }) => e.path), ["thing_id"]);
  });

  t.test("a valid body answers 201 with the encoded resource and its ETag", async (t) => {
    const res = await call(url("/v1/things"), jsonInit("POST", { title: "A", count: 2 }, auth));
    t.equal(res.status, 201);
    t.match(res.contentType, /^application\/json/);
    t.same(res.body, { id: knownThingId, title: "A", count: 2, version: 1 });
    t.equal(res.headers.get("etag"), '"1"');
  });

  t.test("Forbidden answers 403 forbidden", async (t) => {
    assertProblem(t, await call(url(`/v1/things/${lockedThingId}`), { headers: auth }), 403, "forbidden");
  });

  t.test("NotFound answers 404 not_found", async (t) => {
    assertProblem(t, await call(url("/v1/things/0190a1b2-0000-7000-8000-0000000000ff"), { headers: auth }), 404, "not_found");
  });

  t.test("a stale If-Match answers 412 version_mismatch with current", async (t) => {
    const res = await call(url(`/v1/things/${knownThingId}`), jsonInit("PATCH", { title: "B" }, { ...auth, "if-match": '"2"' }));
    assertProblem(t, res, 412, "version_mismatch");
    t.same(res.body.current, { id: knownThingId, title: "Current", count: 1, version: 3 });
  });

  t.test("a matching If-Match (quoted, bare or weak) is accepted and answers the new ETag", async (t) => {
    for (const ifMatch of ['"3"', "3", 'W/"3"']) {
      const res = await call(url(`/v1/things/${knownThingId}`), jsonInit("PATCH", { title: "B" }, { ...auth, "if-match": ifMatch }));
      t.equal(res.status, 200, `If-Match ${ifMatch}`);
      t.equal(res.headers.get("etag"), '"4"');
    }
  });

  t.test("a missing If-Match where required answers 428 precondition_required", async (t) => {
    const res = await call(url(`/v1/things/${knownThingId}`), jsonInit("PATCH", { title: "B" }, auth));
    assertProblem(t, res, 428, "precondition_required");
  });

  t.test("a garbage If-Match answers 400 invalid_if_match", async (t) => {
    const res = await call(url(`/v1/things/${knownThingId}`), jsonInit("PATCH", { title: "B" }, { ...auth, "if-match": "soon" }));
    assertProblem(t, res, 400, "invalid_if_match");
  });

  t.test("a conflict with a diff answers 409 with its code and diff", async (t) => {
    const res = await call(url(`/v1/things/${knownThingId}/checkout`), { method: "POST", headers: auth });
    assertProblem(t, res, 409, "price_changed");
    t.same(res.body.diff, { price_minor: { was: 100, now: 120 } });
  });

  t.test("a limit above the maximum answers 400 invalid_limit", async (t) => {
    assertProblem(t, await call(url("/v1/things?limit=201"), { headers: auth }), 400, "invalid_limit");
    assertProblem(t, await call(url("/v1/things?limit=abc"), { headers: auth }), 400, "invalid_limit");
    assertProblem(t, await call(url("/v1/things?limit=0"), { headers: auth }), 400, "invalid_limit");
  });

  t.test("a cursor the server did not issue answers 400 invalid_cursor", async (t) => {
    assertProblem(t, await call(url("/v1/things?cursor=garbage"), { headers: auth }), 400, "invalid_cursor");
  });

  t.test("a list pages with next_cursor and the cursor continues after the last row", async (t) => {
    const first = await call(url("/v1/things?limit=2"), { headers: auth });
    t.equal(first.status, 200);
    t.same(first.body.data.map((r: { count: number }) => r.count), [1, 2]);
    t.type(first.body.next_cursor, "string");
    const second = await call(url(`/v1/things?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`), { headers: auth });
    t.same(second.body.data.map((r: { count: number }) => r.count), [3, 4]);
    const defaults = await call(url("/v1/things"), { headers: auth });
    t.equal(defaults.body.data.length, 50, "default page size is 50");
  });

  t.test("a defect answers 500 internal_error with no stack, SQL or secret, and is logged with the request id", async (t) => {
    const res = await call(url("/v1/crash"), { headers: { "x-request-id": "req-crash-1" } });
    assertProblem(t, res, 500, "internal_error");
    t.notMatch(res.text, /SELECT|hunter2|s3cr3t|postgres:|at .*\.js/);
    t.same(Object.keys(res.body).sort(), ["code", "detail", "status", "title", "type"]);
    const logged = app.logLines().find((l) => l.request_id === "req-crash-1" && l.msg === "request failed");
    t.ok(logged, "the failure is logged with the request id");
  });

  t.test("a route answering an ETag it does not declare (answersEtag) is a defect, as an undeclared status is: the document must not lie", async (t) => {
    const res = await call(url("/v1/undeclared-etag"));
    assertProblem(t, res, 500, "internal_error");
    t.equal(res.headers.get("etag"), null, "and no ETag goes out");
  });

  t.test("an untyped failure answers 500 internal_error without its message", async (t) => {
    const res = await call(url("/v1/fail-untyped"));
    assertProblem(t, res, 500, "internal_error");
    t.notMatch(res.text, /ECONNREFUSED|s3cr3t/);
  });

  t.test("runHandler on a raw route answers its success or its problem", async (t) => {
    const ok = await call(url("/v1/raw/1"));
    t.equal(ok.status, 200);
    t.same(ok.body, { raw: true });
    assertProblem(t, await call(url("/v1/raw/2")), 404, "not_found");
  });

  t.test("every answer carries X-Request-Id: the caller's, or a generated UUID v7", async (t) => {
    const given = await call(url("/v1/public/ping"), { headers: { "x-request-id": "abc-123" } });
    t.equal(given.headers.get("x-request-id"), "abc-123");
    const generated = await call(url("/v1/public/ping"));
    t.match(generated.headers.get("x-request-id") ?? "", /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const hostile = await call(url("/v1/nothing"), { headers: { "x-request-id": "bad id\twith spaces" } });
    t.not(hostile.headers.get("x-request-id"), "bad id\twith spaces", "an unsafe id is replaced");
  });
});
