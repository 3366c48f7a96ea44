/**
 * The HTTP idempotency path against the real store on SQLite and Postgres: a finished request
 * is replayed with `Idempotent-Replayed: true`, a different body under the same key is 422, a
 * retry while the first runs is 409 with Retry-After, a required key is 400 when missing,
 * client errors are stored, server errors release the key, and concurrent identical requests
 * run the handler exactly once; a one-transaction route stores its answer with its work; a
 * route's unstored fields (a minted secret) never reach the stored answer and are reissued on replay.
 */
import { Effect, ManagedRuntime, Schema } from "effect";
import t from "tap";
import { Conflict } from "../../core/kernel/Errors.js";
import { defineRoute } from "../../adapters/koa/Route.js";
import { storageLayer } from "../../adapters/sql/index.js";
import { UserEpochs } from "../../ports/UserEpochs.js";
import { forEachDialect } from "../support/databases.js";
import { aliceId, bobId, call, jsonInit, startTestApp, tokenFor } from "./support.js";

/** The row the one-transaction route writes: a user epoch used as a counter of committed runs. */
const counterId = "00000000-0000-4000-8000-00000000c0de";

/** A gate the test opens to let a slow handler finish. */
const makeGate = () => {
  let open!: () => void;
  let entered!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (entered = resolve));
  return { open, opened, entered, reached };
};

const fixture = () => {
  const runs = { create: 0, reject: 0, flaky: 0, optional: 0, secret: 0, reissue: 0 };
  let gate: ReturnType<typeof makeGate> | undefined;
  const Order = Schema.Struct({ item: Schema.String, wait: Schema.optional(Schema.Boolean) });
  const Created = Schema.Struct({ run: Schema.Int, item: Schema.String });
  const WithSecret = Schema.Struct({ run: Schema.Int, item: Schema.String, secretToken: Schema.propertySignature(Schema.String).pipe(Schema.fromKey("secret_token")) });
  const routes = [
    defineRoute({
      method: "POST",
      path: "/v1/orders",
      operationId: "createOrder",
      summary: "Create an order (counts its runs)",
      tags: ["orders"],
      auth: "required",
      idempotency: "required",
      body: Order,
      responses: { 201: Created },
      handler: (input) =>
        Effect.gen(function* () {
          const run = ++runs.create;
          if (input.body.wait && gate) {
            gate.entered();
            yield* Effect.promise(() => gate!.opened);
          }
          // Widen the window in which concurrent duplicates overlap.
          yield* Effect.sleep("20 millis");
          return { status: 201, body: { run, item: input.body.item } };
        }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/orders/reject",
      operationId: "rejectOrder",
      summary: "Always a client error",
      tags: ["orders"],
      auth: "required",
      idempotency: "required",
      body: Order,
      responses: { 201: Created },
      handler: () =>
        Effect.suspend(() => {
          runs.reject++;
          return Effect.fail(new Conflict({ code: "out_of_stock", detail: `attempt ${runs.reject}` }));
        }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/orders/flaky",
      operationId: "flakyOrder",
      summary: "Dies the first time",
      tags: ["orders"],
      auth: "required",
      idempotency: "required",
      body: Order,
      responses: { 201: Created },
      handler: (input) =>
        Effect.suspend(() => {
          const run = ++runs.flaky;
          return run === 1 ? Effect.die(new Error("database went away")) : Effect.succeed({ status: 201, body: { run, item: input.body.item } });
        }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/orders/optional",
      operationId: "optionalOrder",
      summary: "Idempotency optional",
      tags: ["orders"],
      auth: "required",
      idempotency: "optional",
      body: Order,
      responses: { 201: Created },
      handler: (input) => Effect.sync(() => ({ status: 201, body: { run: ++runs.optional, item: input.body.item } })),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/orders/one-transaction",
      operationId: "oneTransactionOrder",
      summary: "Writes (bumps a counter), then answers or refuses: one transaction",
      tags: ["orders"],
      auth: "required",
      idempotency: "required",
      oneTransaction: true,
      body: Order,
      responses: { 201: Created },
      handler: (input) =>
        Effect.gen(function* () {
          const run = yield* (yield* UserEpochs).bump(counterId);
          if (input.body.item === "refused") return yield* Effect.fail(new Conflict({ code: "out_of_stock", detail: `after write ${run}` }));
          return { status: 201, body: { run, item: input.body.item } };
        }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/orders/with-secret",
      operationId: "orderWithSecret",
      summary: "Answers a minted secret that is never stored; a replay mints another",
      tags: ["orders"],
      auth: "required",
      idempotency: "required",
      unstored: {
        fields: ["secret_token"],
        reissue: (_input, stored) => Effect.sync(() => ({ secret_token: `reissued-${String(stored.run)}-${++runs.reissue}` })),
      },
      body: Order,
      responses: { 201: WithSecret },
      handler: (input) =>
        Effect.suspend(() => {
          if (input.body.item === "refused") return Effect.fail(new Conflict({ code: "out_of_stock", detail: "refused" }));
          const run = ++runs.secret;
          return Effect.succeed({ status: 201, body: { run, item: input.body.item, secretToken: `minted-${run}` } });
        }),
    }),
  ];
  return { runs, routes, setGate: (g: ReturnType<typeof makeGate>) => (gate = g) };
};

t.test("idempotency over HTTP", async (t) => {
  await forEachDialect(t, "idempotency", async (t, db) => {
    const { runs, routes, setGate } = fixture();
    const app = await startTestApp(t, { routes, runtime: ManagedRuntime.make(storageLayer(db)), rateLimit: false });
    const alice = { authorization: `Bearer ${await tokenFor(aliceId)}` };
    const bob = { authorization: `Bearer ${await tokenFor(bobId)}` };
    const post = (path: string, body: unknown, headers: Record<string, string>) => call(`${app.url}${path}`, jsonInit("POST", body, headers));

    t.test("a repeated request with the same key replays the stored answer with Idempotent-Replayed", async (t) => {
      const first = await post("/v1/orders", { item: "tea" }, { ...alice, "idempotency-key": "k-replay" });
      t.equal(first.status, 201);
      t.equal(first.headers.get("idempotent-replayed"), null, "the first answer is not a replay");
      // Key order in the body does not change the request hash.
      const again = await call(`${app.url}/v1/orders`, {
        method: "POST",
        headers: { ...alice, "idempotency-key": "k-replay", "content-type": "application/json" },
        body: '{ "item" : "tea" }',
      });
      t.equal(again.status, 201);
      t.equal(again.headers.get("idempotent-replayed"), "true");
      t.same(again.body, first.body);
      t.equal(runs.create, 1, "the handler ran once");
    });

    t.test("the same key with a different body answers 422 idempotency_key_reused", async (t) => {
      await post("/v1/orders", { item: "tea" }, { ...alice, "idempotency-key": "k-reuse" });
      const res = await post("/v1/orders", { item: "coffee" }, { ...alice, "idempotency-key": "k-reuse" });
      t.equal(res.status, 422);
      t.match(res.contentType, /^application\/problem\+json/);
      t.equal(res.body.code, "idempotency_key_reused");
    });

    t.test("the same key with a different query string answers 422 idempotency_key_reused; the same query in another order replays", async (t) => {
      const first = await post("/v1/orders?reason=mistake&source=web", { item: "tea" }, { ...alice, "idempotency-key": "k-query" });
      t.equal(first.status, 201);
      const reordered = await post("/v1/orders?source=web&reason=mistake", { item: "tea" }, { ...alice, "idempotency-key": "k-query" });
      t.equal(reordered.headers.get("idempotent-replayed"), "true", "parameter order does not change the request");
      const other = await post("/v1/orders?reason=something%20else&source=web", { item: "tea" }, { ...alice, "idempotency-key": "k-query" });
      t.equal(other.status, 422);
      t.equal(other.body.code, "idempotency_key_reused");
      const none = await post("/v1/orders", { item: "tea" }, { ...alice, "idempotency-key": "k-query" });
      t.equal(none.body.code, "idempotency_key_reused", "nor does dropping the query");
    });

    t.test("keys are scoped to the caller: another user's same key is a new request", async (t) => {
      const before = runs.create;
      await post("/v1/orders", { item: "scoped" }, { ...alice, "idempotency-key": "k-scope" });
      const other = await post("/v1/orders", { item: "scoped" }, { ...bob, "idempotency-key": "k-scope" });
      t.equal(other.status, 201);
      t.equal(other.headers.get("idempotent-replayed"), null);
      t.equal(runs.create, before + 2);
    });

    t.test("a retry while the first request runs answers 409 idempotency_request_in_progress with Retry-After", async (t) => {
      const gate = makeGate();
      setGate(gate);
      const first = post("/v1/orders", { item: "slow", wait: true }, { ...alice, "idempotency-key": "k-flight" });
      await gate.reached;
      const during = await post("/v1/orders", { item: "slow", wait: true }, { ...alice, "idempotency-key": "k-flight" });
      t.equal(during.status, 409);
      t.equal(during.body.code, "idempotency_request_in_progress");
      t.ok(Number(during.headers.get("retry-after")) >= 1, "Retry-After is set");
      gate.open();
      t.equal((await first).status, 201);
      const after = await post("/v1/orders", { item: "slow", wait: true }, { ...alice, "idempotency-key": "k-flight" });
      t.equal(after.headers.get("idempotent-replayed"), "true");
    });

    t.test("a write whose client leaves before the answer runs to completion; the retry under its key replays the stored answer", async (t) => {
      const gate = makeGate();
      setGate(gate);
      const before = runs.create;
      const leaving = new AbortController();
      const first = fetch(`${app.url}/v1/orders`, { ...jsonInit("POST", { item: "left", wait: true }, { ...alice, "idempotency-key": "k-left" }), signal: leaving.signal }).catch(() => "left");
      await gate.reached;
      leaving.abort();
      t.equal(await first, "left", "the client went away");
      // Let the server see the connection close before the handler may finish.
      await new Promise((resolve) => setTimeout(resolve, 50));
      gate.open();
      let retry = await post("/v1/orders", { item: "left", wait: true }, { ...alice, "idempotency-key": "k-left" });
      for (let i = 0; i < 50 && retry.status === 409; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        retry = await post("/v1/orders", { item: "left", wait: true }, { ...alice, "idempotency-key": "k-left" });
      }
      t.equal(retry.status, 201);
      t.equal(retry.headers.get("idempotent-replayed"), "true", "the answer the abandoned request stored");
      t.equal(runs.create, before + 1, "the handler ran once");
    });

    t.test("a required key that is missing answers 400 idempotency_key_required", async (t) => {
      const before = runs.create;
      const res = await post("/v1/orders", { item: "tea" }, alice);
      t.equal(res.status, 400);
      t.equal(res.body.code, "idempotency_key_required");
      t.equal(runs.create, before, "the handler did not run");
    });

    t.test("a key longer than 255 characters answers 400 validation_failed", async (t) => {
      const res = await post("/v1/orders", { item: "tea" }, { ...alice, "idempotency-key": "k".repeat(256) });
      t.equal(res.status, 400);
      t.equal(res.body.code, "validation_failed");
    });

    t.test("a client error is stored and replayed without running the handler again", async (t) => {
      const first = await post("/v1/orders/reject", { item: "tea" }, { ...alice, "idempotency-key": "k-reject" });
      t.equal(first.status, 409);
      t.equal(first.body.code, "out_of_stock");
      const again = await post("/v1/orders/reject", { item: "tea" }, { ...alice, "idempotency-key": "k-reject" });
      t.equal(again.status, 409);
      t.match(again.contentType, /^application\/problem\+json/, "the replay keeps the problem content type");
      t.equal(again.headers.get("idempotent-replayed"), "true");
      t.same(again.body, first.body);
      t.equal(runs.reject, 1);
    });

    t.test("a server error releases the key so a retry runs the handler again", async (t) => {
      const first = await post("/v1/orders/flaky", { item: "tea" }, { ...alice, "idempotency-key": "k-flaky" });
      t.equal(first.status, 500);
      t.equal(first.body.code, "internal_error");
      const retry = await post("/v1/orders/flaky", { item: "tea" }, { ...alice, "idempotency-key": "k-flaky" });
      t.equal(retry.status, 201);
      t.equal(retry.headers.get("idempotent-replayed"), null);
      t.equal(runs.flaky, 2);
    });

    t.test("an optional key: absent runs every time, present replays", async (t) => {
      await post("/v1/orders/optional", { item: "tea" }, alice);
      await post("/v1/orders/optional", { item: "tea" }, alice);
      t.equal(runs.optional, 2);
      await post("/v1/orders/optional", { item: "tea" }, { ...alice, "idempotency-key": "k-opt" });
      const replay = await post("/v1/orders/optional", { item: "tea" }, { ...alice, "idempotency-key": "k-opt" });
      t.equal(replay.headers.get("idempotent-replayed"), "true");
      t.equal(runs.optional, 3);
    });

    t.test("an Idempotency-Key sent empty is malformed (400), not absent: nothing runs", async (t) => {
      const before = runs.optional;
      const empty = await post("/v1/orders/optional", { item: "tea" }, { ...alice, "idempotency-key": "" });
      t.equal(empty.status, 400);
      t.equal(empty.body.code, "validation_failed");
      t.same(empty.body.errors, [{ path: "Idempotency-Key", message: "must be 1 to 255 characters" }]);
      const required = await post("/v1/orders", { item: "tea" }, { ...alice, "idempotency-key": "" });
      t.equal(required.status, 400, "on a route that requires a key too");
      t.equal(required.body.code, "validation_failed");
      t.equal(runs.optional, before, "the handler never ran");
    });

    t.test("a one-transaction route commits its key, work and answer together; a refusal's writes are undone", async (t) => {
      const committed = () => Effect.runPromise(Effect.flatMap(UserEpochs, (e) => e.current(counterId)).pipe(Effect.provide(storageLayer(db))));
      const first = await post("/v1/orders/one-transaction", { item: "tea" }, { ...alice, "idempotency-key": "k-one" });
      t.equal(first.status, 201);
      t.equal(first.body.run, 1);
      const again = await post("/v1/orders/one-transaction", { item: "tea" }, { ...alice, "idempotency-key": "k-one" });
      t.equal(again.headers.get("idempotent-replayed"), "true", "replayed");
      t.same(again.body, first.body);
      t.equal(await committed(), 1, "the work committed once");
      const refused = await post("/v1/orders/one-transaction", { item: "refused" }, { ...alice, "idempotency-key": "k-one-refused" });
      t.equal(refused.status, 409);
      t.equal(refused.body.code, "out_of_stock");
      t.equal(await committed(), 1, "the refused request's write is undone");
      const refusedAgain = await post("/v1/orders/one-transaction", { item: "refused" }, { ...alice, "idempotency-key": "k-one-refused" });
      t.equal(refusedAgain.headers.get("idempotent-replayed"), "true", "its answer is stored and replayed");
      t.same(refusedAgain.body, refused.body);
      const burst = await Promise.all(
        Array.from({ length: 6 }, () => post("/v1/orders/one-transaction", { item: "burst" }, { ...alice, "idempotency-key": "k-one-burst" })),
      );
      t.ok(burst.every((a) => a.status === 201 && a.body.run === 2), `every racer gets the one run's answer (${burst.map((a) => a.status).join(",")})`);
      t.equal(await committed(), 2, "the racing requests ran the work once");
    });

    // Spec (payments, Authentication 5): "Secrets and payment tokens are never cached or logged".
    t.test("a route's unstored fields are answered once, kept out of the stored answer, and reissued on replay", async (t) => {
      const first = await post("/v1/orders/with-secret", { item: "key" }, { ...alice, "idempotency-key": "k-secret" });
      t.equal(first.status, 201);
      t.same(first.body, { run: 1, item: "key", secret_token: "minted-1" }, "the first answer carries the minted secret");
      const text = JSON.stringify(await db.db.selectFrom("idempotency_keys").selectAll().execute());
      t.ok(text.includes("k-secret") && text.includes("key"), "the answer is stored under its key");
      t.notOk(text.includes("minted-1"), "the stored answer holds no secret");
      const replay = await post("/v1/orders/with-secret", { item: "key" }, { ...alice, "idempotency-key": "k-secret" });
      t.equal(replay.headers.get("idempotent-replayed"), "true");
      t.same(replay.body, { run: 1, item: "key", secret_token: "reissued-1-1" }, "a replay carries a fresh secret from reissue, with the stored rest");
      t.equal(runs.secret, 1, "the work ran once");
      const refused = await post("/v1/orders/with-secret", { item: "refused" }, { ...alice, "idempotency-key": "k-secret-refused" });
      const refusedAgain = await post("/v1/orders/with-secret", { item: "refused" }, { ...alice, "idempotency-key": "k-secret-refused" });
      t.equal(refusedAgain.status, 409);
      t.same(refusedAgain.body, refused.body, "a stored problem is replayed as it is, with nothing reissued");
      t.equal(runs.reissue, 1, "reissue ran for the 2xx replay only");
    });

    t.test("10 parallel identical requests run the handler exactly once", async (t) => {
      const before = runs.create;
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => post("/v1/orders", { item: "burst" }, { ...alice, "idempotency-key": "k-burst" })),
      );
      t.equal(runs.create - before, 1, "exactly one run");
      const statuses = answers.map((a) => a.status);
      t.ok(statuses.every((s) => s === 201 || s === 409), `only 201 or 409 (${statuses.join(",")})`);
      t.ok(statuses.includes(201), "one request got the answer");
      const winners = answers.filter((a) => a.status === 201);
      t.ok(winners.every((a) => a.body.run === winners[0]?.body.run), "every 201 carries the same run");
    });
  });
});
