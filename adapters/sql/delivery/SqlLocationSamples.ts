/**
 * The LocationSamples port over dl_location_samples. Latitude and longitude are sealed with
 * AES-256-GCM under the host's key (12-byte random IV, 16-byte tag, then the ciphertext of
 * `[lat, lng]`), bound to the sample id as associated data, so a database reader sees no
 * position and a sealed value cannot be moved to another row. The row is not the record's
 * column set (the position is sealed), so it is mapped here rather than with rowCodec.
 */
import { LocationSampleId } from "../../../core/delivery/model/Ids.js";
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { Effect, Schema } from "effect";
import { CourierId } from "../../../core/delivery/model/Courier.js";
import type { LocationSample } from "../../../core/delivery/model/LocationSample.js";
import type { LocationSamples } from "../../../ports/delivery/LocationSamples.js";
import { featuresFor } from "../featuresFor.js";
import { compiledOnce, runQuery, runStatement, sendStatement, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

const Position = Schema.parseJson(Schema.Tuple(Schema.Number, Schema.Number));
const encodePosition = Schema.encodeSync(Position);
const decodePosition = Schema.decodeUnknownSync(Position);

const seal = (key: Uint8Array, id: string, lat: number, lng: number): Buffer => {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(id, "utf8"));
  const body = Buffer.concat([cipher.update(encodePosition([lat, lng]), "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
};

const open = (key: Uint8Array, id: string, sealed: Uint8Array): readonly [number, number] => {
  const bytes = Buffer.from(sealed);
  const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12));
  decipher.setAAD(Buffer.from(id, "utf8"));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return decodePosition(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8"));
};

/** Builds the location samples repository over `db`, sealing positions with the 32-byte `key`. */
export const makeSqlLocationSamples = (db: SqlDatabase, key: Uint8Array): LocationSamples => {
  if (key.length !== 32) throw new Error("the location key must be 32 bytes (AES-256)");
  const f = featuresFor(db);
  const rowOf = (s: LocationSample) => ({
    id: s.id,
    courier_id: s.courierId,
    sealed: seal(key, s.id, s.lat, s.lng),
    recorded_at: f.timeToDb(s.recordedAt),
    received_at: f.timeToDb(s.receivedAt),
  });
  // The insert of a single sample (the usual location update) and the access log's insert,
  // compiled once; a batch of several samples is one insert built per call.
  const insertSample = compiledOnce<ReturnType<typeof rowOf>>((ex, p) =>
    ex
      .insertInto("dl_location_samples")
      .values({ id: p("id"), courier_id: p("courier_id"), sealed: p("sealed"), recorded_at: p("recorded_at"), received_at: p("received_at") }),
  );
  const insertAccess = compiledOnce<{ id: string; deliveryId: string; viewerId: string; viewerRole: string; at: unknown }>((ex, p) =>
    ex
      .insertInto("dl_location_access_log")
      .values({ id: p("id"), delivery_id: p("deliveryId"), viewer_id: p("viewerId"), viewer_role: p("viewerRole"), at: p("at") }),
  );
  return {
    append: (samples) =>
      samples.length === 0
        ? Effect.void
        : (samples.length === 1
            ? // Nobody reads its answer: in a Postgres transaction it goes out with the next statement.
              sendStatement(db, insertSample, rowOf(samples[0]!))
            : runQuery(db, (ex) => ex.insertInto("dl_location_samples").values(samples.map(rowOf)).execute())
          ).pipe(Effect.asVoid, withSpan("LocationSamples.append")),
    samplesOf: (courierId, since) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("dl_location_samples")
          .selectAll()
          .where("courier_id", "=", courierId)
          .where("recorded_at", ">=", f.timeToDb(since))
          .orderBy("recorded_at")
          .orderBy("id")
          .execute(),
      ).pipe(
        Effect.map((rows) =>
          rows.map((row): LocationSample => {
            const id = String(row.id);
            const [lat, lng] = open(key, id, row.sealed);
            return { id: LocationSampleId.make(id), courierId: CourierId.make(String(row.courier_id)), lat, lng, recordedAt: f.timeFromDb(row.recorded_at), receivedAt: f.timeFromDb(row.received_at) };
          }),
        ),
      ),
    recordAccess: (access) =>
      runStatement(db, insertAccess, { ...access, at: f.timeToDb(access.at) }).pipe(Effect.asVoid),
    deleteRecordedBefore: (cutoff) =>
      runQuery(db, (ex) => ex.deleteFrom("dl_location_samples").where("recorded_at", "<", f.timeToDb(cutoff)).executeTakeFirst()).pipe(
        Effect.map((r) => toNumber(r.numDeletedRows)),
        withSpan("LocationSamples.deleteRecordedBefore"),
      ),
  };
};
