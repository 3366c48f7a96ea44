/** Event envelopes: the conventions' shape, built with ids from the Ids port and time from Clock. */
import { Effect, Either, Layer, Schema, TestClock, TestContext } from "effect";
import fc from "fast-check";
import t from "tap";
import { Ids } from "../../ports/Ids.js";
import { EventEnvelope, isNewerThan, makeEvent } from "../../core/kernel/EventEnvelope.js";
import { holds } from "./support/properties.js";

const counterIds = () => {
  let n = 0;
  return Layer.succeed(Ids, { next: Effect.sync(() => `00000000-0000-7000-8000-${String(++n).padStart(12, "0")}`) });
};

const envelope = fc.record({
  id: fc.uuid(),
  type: fc.constantFrom("TaskChanged", "OrderConfirmed", "CourierAssigned"),
  schema_version: fc.integer({ min: 1, max: 5 }),
  tenant_id: fc.uuid(),
  aggregate_id: fc.uuid(),
  aggregate_version: fc.nat({ max: 10_000 }),
  occurred_at: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  actor_id: fc.option(fc.uuid(), { nil: null }),
  data: fc.jsonValue(),
});

t.test("an envelope survives encode and decode unchanged", async (t) => {
  await holds(
    t,
    fc.property(envelope, (e) => {
      const wire = JSON.parse(JSON.stringify(Schema.encodeSync(EventEnvelope)(e)));
      const back = Schema.decodeUnknownEither(EventEnvelope)(wire);
      return Either.isRight(back) && JSON.stringify(back.right) === JSON.stringify(e);
    }),
  );
});

t.test("an envelope with a bad version or a missing field is refused", async (t) => {
  const sample = fc.sample(envelope, { numRuns: 1, seed: 1 })[0]!;
  const decode = Schema.decodeUnknownEither(EventEnvelope);
  t.ok(Either.isRight(decode(sample)));
  for (const bad of [
    { ...sample, schema_version: 0 },
    { ...sample, aggregate_version: -1 },
    { ...sample, aggregate_version: 1.5 },
    { ...sample, actor_id: undefined },
    (({ tenant_id: _omit, ...rest }) => rest)(sample),
  ]) {
    t.ok(Either.isLeft(decode(bad)), JSON.stringify(Object.keys(bad)));
  }
});

t.test("makeEvent takes its id from the Ids port and occurred_at from the Clock", async (t) => {
  const [first, second] = await Effect.runPromise(
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2024, 4, 1, 12, 0, 0));
      const first = yield* makeEvent({
        type: "TaskChanged",
        tenant_id: "w1",
        aggregate_id: "t1",
        aggregate_version: 3,
        actor_id: "u1",
        data: { title: "x" },
      });
      yield* TestClock.adjust("1500 millis");
      const second = yield* makeEvent({
        type: "TaskChanged",
        schema_version: 2,
        tenant_id: "w1",
        aggregate_id: "t1",
        aggregate_version: 4,
        actor_id: null,
        data: null,
      });
      return [first, second] as const;
    }).pipe(Effect.provide(Layer.merge(counterIds(), TestContext.TestContext))),
  );
  t.equal(first.id, "00000000-0000-7000-8000-000000000001");
  t.equal(second.id, "00000000-0000-7000-8000-000000000002");
  t.equal(first.occurred_at, "2024-05-01T12:00:00.000Z");
  t.equal(second.occurred_at, "2024-05-01T12:00:01.500Z");
  t.equal(first.schema_version, 1);
  t.equal(second.schema_version, 2);
  t.ok(Either.isRight(Schema.decodeUnknownEither(EventEnvelope)(first)));
  t.ok(isNewerThan(second, first.aggregate_version));
  t.notOk(isNewerThan(first, second.aggregate_version));
  t.notOk(isNewerThan(first, first.aggregate_version), "a redelivery of the held version is dropped");
  t.ok(isNewerThan(first, null));
});
