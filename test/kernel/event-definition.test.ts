/**
 * Event types declared once (core/kernel/EventDefinition.ts). Spec, Versioning: "Realtime and
 * webhook events are versioned"; consumer event schemas are contract-tested. A module's event
 * union reads each type only in the schema version it declares: an envelope of another version of
 * a known type fails to decode (its consumer's relay retries it, then dead-letters it), never read
 * as the version the code knows.
 */
import { Effect, Either, Layer, Schema } from "effect";
import t from "tap";
import { Ids } from "../../ports/Ids.js";
import { defineEvent, eventUnion } from "../../core/kernel/EventDefinition.js";

const Shipped = defineEvent("Shipped", 1, Schema.Struct({ parcel: Schema.String }));
const Renamed = defineEvent("Renamed", 2, Schema.Struct({ name: Schema.String }));
const Events = eventUnion(Shipped, Renamed);
const decode = Schema.decodeUnknownEither(Events);

const ids = Layer.succeed(Ids, { next: Effect.succeed("00000000-0000-7000-8000-000000000001") });
const made = (definition: typeof Shipped | typeof Renamed, data: never) =>
  Effect.runSync(
    Effect.provide(definition.make({ tenant_id: "t-1", aggregate_id: "a-1", aggregate_version: 1, actor_id: null, data }), ids),
  );

t.test("an event union decodes each type in the schema version it declares", (t) => {
  const shipped = made(Shipped, { parcel: "P-1" } as never);
  const renamed = made(Renamed, { name: "Q3" } as never);
  t.equal(shipped.schema_version, 1);
  t.equal(renamed.schema_version, 2);
  const a = decode(shipped);
  const b = decode(renamed);
  t.ok(Either.isRight(a) && a.right.type === "Shipped" && a.right.data.parcel === "P-1");
  t.ok(Either.isRight(b) && b.right.type === "Renamed" && b.right.data.name === "Q3");
  t.end();
});

t.test("an envelope of a known type in a schema version the union does not declare fails to decode (never read as the known version)", (t) => {
  const shipped = made(Shipped, { parcel: "P-1" } as never);
  for (const version of [0, 2, 3]) {
    t.ok(Either.isLeft(decode({ ...shipped, schema_version: version })), `Shipped v${version} is refused`);
  }
  const renamed = made(Renamed, { name: "Q3" } as never);
  t.ok(Either.isLeft(decode({ ...renamed, schema_version: 1 })), "Renamed v1 is refused (the union knows v2)");
  t.end();
});
