/**
 * One definition per record: the wire shape and the SQL row codec are derived from the record's
 * Schema. Keys become snake_case, times RFC 3339 text on the wire and the dialect's own type in
 * SQL, and a stored row that does not fit (an unknown status, malformed JSON) is refused.
 */
import { Effect, Exit, Schema } from "effect";
import t from "tap";
import { recordFields } from "../../core/kernel/RecordFields.js";
import { toWire, wireShape } from "../../core/kernel/Wire.js";
import { rowCodec, RowDoesNotFit } from "../../adapters/sql/RowCodec.js";
import { sqliteFeatures } from "../../adapters/sqlite/sqliteFeatures.js";
import { postgresFeatures } from "../../adapters/postgres/postgresFeatures.js";
import { DomainError } from "../../core/kernel/Errors.js";
import { defineJob, defineJobType, JobPayloadInvalid } from "../../core/kernel/JobDefinition.js";
import { defineEvent, eventUnion } from "../../core/kernel/EventDefinition.js";
import { pageFrom } from "../../core/kernel/Page.js";
import { decodeCursor } from "../../core/kernel/Cursor.js";
import { IdCursorKey } from "../../core/kernel/Page.js";
import { Ids } from "../../ports/Ids.js";
import type { Job } from "../../ports/Jobs.js";

const WidgetId = Schema.String.pipe(Schema.brand("WidgetId"));
const Widget = Schema.Struct({
  id: WidgetId,
  ownerId: Schema.String,
  status: Schema.Literal("draft", "live"),
  priceMinor: Schema.Int,
  labels: Schema.Array(Schema.String),
  archived: Schema.Boolean,
  deletedAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
});
type Widget = typeof Widget.Type;

const widget: Widget = {
  id: WidgetId.make("w1"),
  ownerId: "u1",
  status: "live",
  priceMinor: 1250,
  labels: ["a", "b"],
  archived: false,
  deletedAt: null,
  createdAt: new Date("2026-01-02T03:04:05.006Z"),
};

t.test("record fields are classified once from the schema", async (t) => {
  const fields = recordFields(Widget);
  t.same(
    fields.map((f) => [f.key, f.name, f.kind, f.nullable]),
    [
      ["id", "id", "string", false],
      ["ownerId", "owner_id", "string", false],
      ["status", "status", "string", false],
      ["priceMinor", "price_minor", "number", false],
      ["labels", "labels", "json", false],
      ["archived", "archived", "boolean", false],
      ["deletedAt", "deleted_at", "time", true],
      ["createdAt", "created_at", "time", false],
    ],
  );
  t.throws(() => recordFields(Schema.Struct({ at: Schema.Date })), /transformation/);
});

t.test("the wire shape is snake_case with RFC 3339 times, and decodes back to the record", async (t) => {
  const wire = toWire(Widget, widget);
  t.same(wire, {
    id: "w1",
    owner_id: "u1",
    status: "live",
    price_minor: 1250,
    labels: ["a", "b"],
    archived: false,
    deleted_at: null,
    created_at: "2026-01-02T03:04:05.006Z",
  });
  t.same(Schema.decodeUnknownSync(wireShape(Widget))(wire), widget);
  t.equal(wireShape(Widget), wireShape(Widget), "derived once");
  t.throws(() => Schema.decodeUnknownSync(wireShape(Widget))({ ...wire, status: "gone" }));
});

for (const features of [sqliteFeatures, postgresFeatures]) {
  t.test(`${features.dialect}: rows round-trip through the derived codec`, async (t) => {
    const codec = rowCodec(Widget, features);
    const row = codec.toRow(widget);
    t.same(Object.keys(row), ["id", "owner_id", "status", "price_minor", "labels", "archived", "deleted_at", "created_at"]);
    t.equal(row.archived, features.dialect === "sqlite" ? 0 : false);
    // What the driver hands back: pg returns bigint columns as text and jsonb already parsed.
    const stored = features.dialect === "postgres" ? { ...row, price_minor: "1250", labels: ["a", "b"] } : row;
    t.same(codec.fromRow(stored), widget);
  });

  t.test(`${features.dialect}: a row that does not fit its record is refused, never cast`, async (t) => {
    const codec = rowCodec(Widget, features);
    const written = codec.toRow(widget);
    const row = features.dialect === "postgres" ? { ...written, labels: ["a", "b"] } : written;
    t.throws(() => codec.fromRow({ ...row, status: "gone" }), RowDoesNotFit);
    t.throws(() => codec.fromRow({ ...row, owner_id: null }), RowDoesNotFit);
    t.throws(() => codec.fromRow({ ...row, price_minor: "abc" }), RowDoesNotFit);
    t.throws(() => codec.fromRow({ ...row, labels: features.dialect === "postgres" ? [1, 2] : "[1,2]" }), RowDoesNotFit);
  });
}

class WidgetLocked extends DomainError("WidgetLocked", "widget_locked", "conflict")<{ readonly widgetId: string }> {}

t.test("a module error declared with DomainError carries tag, code, category and its fields", async (t) => {
  const error = new WidgetLocked({ widgetId: "w1", detail: "locked" });
  t.equal(error._tag, "WidgetLocked");
  t.equal(error.code, "widget_locked");
  t.equal(error.category, "conflict");
  t.equal(error.widgetId, "w1");
  t.equal(error.detail, "locked");
  const caught = Effect.runSync(Effect.fail(error).pipe(Effect.catchTag("WidgetLocked", (e) => Effect.succeed(e.widgetId))));
  t.equal(caught, "w1");
});

const job = (payload: unknown): Job => ({
  id: "j1",
  kind: "widgets.publish",
  key: null,
  payload,
  status: "running",
  attempts: 1,
  maxAttempts: 8,
  runAt: new Date(0),
  lastError: null,
});

t.test("a job's payload is decoded with its Schema before it is handled; a bad one fails the attempt", async (t) => {
  const seen: string[] = [];
  const publish = defineJob({
    kind: "widgets.publish",
    payload: Schema.Struct({ widget_id: Schema.String }),
    handle: (payload) => Effect.sync(() => void seen.push(payload.widget_id)),
  });
  await Effect.runPromise(publish.run(job({ widget_id: "w1" })));
  t.same(seen, ["w1"]);
  const exit = await Effect.runPromiseExit(publish.run(job({ widget: 1 })));
  t.ok(Exit.isFailure(exit));
  t.ok(exit._tag === "Failure" && exit.cause._tag === "Fail" && exit.cause.error instanceof JobPayloadInvalid);
  t.same(seen, ["w1"], "the handler never saw the bad payload");
});

t.test("events are declared once and consumers decode envelopes into the module's typed union", async (t) => {
  const WidgetPublished = defineEvent("WidgetPublished", 2, Schema.Struct({ widget: wireShape(Widget) }));
  const WidgetArchived = defineEvent("WidgetArchived", 1, Schema.Struct({ widget_id: Schema.String }));
  const WidgetEvent = eventUnion(WidgetPublished, WidgetArchived);
  let n = 0;
  const ids = Ids.of({ next: Effect.sync(() => `e${++n}`) } as Ids);
  const envelope = await Effect.runPromise(
    WidgetPublished.make({ tenant_id: "t1", aggregate_id: "w1", aggregate_version: 3, actor_id: "u1", data: { widget } }).pipe(
      Effect.provideService(Ids, ids),
    ),
  );
  t.equal(envelope.type, "WidgetPublished");
  t.equal(envelope.schema_version, 2);
  t.same(envelope.data, { widget: toWire(Widget, widget) }, "data travels in the wire shape");
  const decoded = Schema.decodeUnknownSync(WidgetEvent)(envelope);
  t.equal(decoded.type, "WidgetPublished");
  if (decoded.type === "WidgetPublished") t.same(decoded.data.widget, widget);
  t.throws(() => Schema.decodeUnknownSync(WidgetEvent)({ ...envelope, type: "Other" }));
});

t.test("pageFrom keeps limit rows and derives the next cursor from the last one kept", async (t) => {
  const rows = [{ id: "a" }, { id: "b" }, { id: "c" }];
  const page = pageFrom(rows, 2, (r) => [r.id]);
  t.same(page.data, [{ id: "a" }, { id: "b" }]);
  t.not(page.next_cursor, null);
  t.same(await Effect.runPromise(decodeCursor(IdCursorKey, page.next_cursor!)), ["b"]);
  t.equal(pageFrom(rows, 3, (r) => [r.id]).next_cursor, null, "no extra row: the last page");
});

t.test("a job type declared apart from its handler decodes the same way once handled", async (t) => {
  const recheck = defineJobType({ kind: "widgets.recheck", payload: Schema.Struct({ widget_id: Schema.String }) });
  const seen: string[] = [];
  const handled = recheck.handledBy((payload) => Effect.sync(() => void seen.push(payload.widget_id)));
  t.equal(handled.kind, "widgets.recheck");
  await Effect.runPromise(handled.run(job({ widget_id: "w2" })));
  t.same(seen, ["w2"]);
  const exit = await Effect.runPromiseExit(handled.run(job({ widget_id: 7 })));
  t.ok(exit._tag === "Failure" && exit.cause._tag === "Fail" && exit.cause.error instanceof JobPayloadInvalid, "a bad payload fails the attempt");
  t.same(seen, ["w2"]);
});
