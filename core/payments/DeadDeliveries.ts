/**
 * The platform operators' queue of dead-lettered merchant webhook deliveries, across merchants:
 * what needs a (dual-control) replay. Keyset pages newest first by delivery id, with the
 * kernel's cursor codec. Only operators see it; it shows ids, event type, attempts, last error
 * and timestamps: never the payload (it may carry customer data) nor any secret.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, mapPage, pageFrom, type Page } from "../kernel/Page.js";
import type { Forbidden, InvalidCursor } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import { WebhookEndpoints } from "../../ports/payments/WebhookEndpoints.js";
import { requireOperator, type OperatorPolicy } from "./OperatorReplay.js";
import { deadDeliveryView, type DeadDeliveryView } from "./model/WebhookDelivery.js";
import { withSpan } from "../kernel/Span.js";

/** One page of dead deliveries across merchants (platform operators only). */
export const listDeadDeliveries = (
  principal: Principal,
  policy: OperatorPolicy,
  page: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<DeadDeliveryView>, Forbidden | InvalidCursor, WebhookEndpoints> =>
  Effect.gen(function* () {
    yield* requireOperator(principal, policy);
    const before = page.cursor === undefined ? undefined : (yield* decodeCursor(IdCursorKey, page.cursor))[0];
    const rows = yield* (yield* WebhookEndpoints).listDeadDeliveries({ ...(before === undefined ? {} : { before }), limit: page.limit + 1 });
    // The payload is dropped here (the view has no body), so no adapter can show it by mistake.
    return mapPage(pageFrom(rows, page.limit, (row) => [row.id]), deadDeliveryView);
  }).pipe(withSpan("Payments.listDeadDeliveries"));
