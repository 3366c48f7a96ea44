/**
 * The location access log (spec: Authentication 4, "Location access is short-lived, encrypted
 * and audited"): every read of a precise position or a drop-off address writes one append-only
 * row — who read it, in which role, for which delivery, when.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { LocationSamples } from "../../ports/delivery/LocationSamples.js";
import { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";

/** Writes one access-log row for `viewerId` reading `deliveryId`'s location details. */
export const auditLocationAccess = (deliveryId: string, viewerId: string, viewerRole: "customer" | "courier" | "dispatcher") =>
  Effect.gen(function* () {
    const id = yield* (yield* Ids).next;
    yield* (yield* Transactions).run(Effect.flatMap(LocationSamples, (l) => Effect.flatMap(now, (at) => l.recordAccess({ id, deliveryId, viewerId, viewerRole, at }))));
  });
