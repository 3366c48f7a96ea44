/**
 * The platform operators' queue of dead-lettered merchant webhook deliveries, across merchants:
 * what needs a (dual-control) replay. Keyset pages newest first by delivery id, with the
 * kernel's cursor codec. Only operators see it; it shows ids, event type, attempts, last error
 * and timestamps: never the payload (it may carry customer data) nor any secret.
 */
import { Effect, Schema } from "effect";
import { decodeCursor, encodeCursor } from "../kernel/Cursor.js";
import type { Forbidden, InvalidCursor } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import { WebhookEndpoints } from "../../ports/payments/WebhookEndpoints.js";
import { requireOperator, type OperatorPolicy } from "./OperatorReplay.js";
import type { WebhookDelivery } from "./WebhookEndpointRecords.js";

/** A dead delivery as an operator sees it: no body. */
export type DeadDelivery = Omit<WebhookDelivery, "body">;

/** The sort key a dead-deliveries cursor carries: the last delivery's id. */
export const DeadDeliveryCursor = Schema.Tuple(Schema.String);

/** One page of dead deliveries across merchants (platform operators only). */
export const listDeadDeliveries = (
  principal: Principal,
  policy: OperatorPolicy,
  page: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<{ readonly data: ReadonlyArray<DeadDelivery>; readonly nextCursor: string | null }, Forbidden | InvalidCursor, WebhookEndpoints> =>
  Effect.gen(function* () {
    yield* requireOperator(principal, policy);
    const before = page.cursor === undefined ? undefined : (yield* decodeCursor(DeadDeliveryCursor, page.cursor))[0];
    const rows = yield* (yield* WebhookEndpoints).listDeadDeliveries({ ...(before === undefined ? {} : { before }), limit: page.limit + 1 });
    // The payload is dropped here, so no adapter or view can show it by mistake.
    const data = rows.slice(0, page.limit).map(({ body: _body, ...rest }): DeadDelivery => rest);
    const last = data[data.length - 1];
    return { data, nextCursor: rows.length > page.limit && last !== undefined ? encodeCursor([last.id]) : null };
  }).pipe(Effect.withSpan("Payments.listDeadDeliveries"));
