/**
 * Contract kit for WebhookEndpoints: an endpoint is stored with a fresh signing secret answered
 * once and given to the signer; a rotation answers a fresh one and keeps the previous one signing
 * until its expiry (at most two secrets); a merchant's live endpoints are listed newest first, deleted ones
 * are not (deletion is once); `subscribed` answers the live endpoints taking an event type (no
 * filter takes every type); deliveries are unique per (endpoint, event); a delivery's status,
 * attempts and last error are updated and listed with its append-only attempts; dead deliveries
 * form the operators' queue; a delivery has at most one open replay request, approved once and
 * never by its requester.
 */
import { Effect } from "effect";
import type { ReplayRequest } from "../../../core/payments/model/ReplayRequest.js";
import type { DeliveryAttempt, WebhookDelivery } from "../../../core/payments/model/WebhookDelivery.js";
import type { WebhookEndpoint } from "../../../core/payments/model/WebhookEndpoint.js";
import { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import { WebhookEndpoints } from "../../../ports/payments/WebhookEndpoints.js";
import { at, runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { seedMerchant, uid } from "./fixtures.js";
import { DeliveryAttemptId, MerchantId, ReplayRequestId, WebhookDeliveryId, WebhookEndpointId } from "../../../core/payments/model/Ids.js";

/** The ports this kit needs (merchants are written through the PaymentsRepository). */
export type WebhookEndpointsKitPorts = WebhookEndpoints | PaymentsRepository;

const hooks = <A>(f: (r: WebhookEndpoints) => Effect.Effect<A>) => Effect.flatMap(WebhookEndpoints, f);
const ids = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((row) => row.id);

/** Live endpoint `n` of merchant `merchantN`. */
export const endpointRecord = (merchantN: number, n: number, events: WebhookEndpoint["events"] = null): WebhookEndpoint => ({
  id: WebhookEndpointId.make(uid("whe", n)),
  merchantId: MerchantId.make(uid("mer", merchantN)),
  url: `https://merchant-${merchantN}.example/hooks/${n}`,
  events,
  createdAt: at(n),
  deletedAt: null,
});

/** Pending delivery `n` of `endpoint` for event `eventId`. */
export const deliveryRecord = (endpoint: WebhookEndpoint, n: number, eventId: string, overrides: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: WebhookDeliveryId.make(uid("whd", n)),
  endpointId: endpoint.id,
  merchantId: endpoint.merchantId,
  eventId,
  eventType: "PaymentSucceeded",
  body: JSON.stringify({ id: eventId, type: "PaymentSucceeded" }),
  status: "pending",
  attempts: 0,
  lastError: null,
  createdAt: at(n),
  updatedAt: at(n),
  ...overrides,
});

/** Replay request `n` of delivery `deliveryId`, by `requestedBy`. */
export const replayRequestRecord = (deliveryId: string, n: number, requestedBy = "operator-1"): ReplayRequest => ({
  id: ReplayRequestId.make(uid("rpl", n)),
  deliveryId: WebhookDeliveryId.make(deliveryId),
  requestedBy,
  reason: "merchant asked",
  requestedAt: at(n),
  approvedBy: null,
  approvalReason: null,
  approvedAt: null,
});

/** Writes the merchants and endpoints; answers the secrets. */
const createEndpoints = (list: ReadonlyArray<WebhookEndpoint>) =>
  Effect.forEach(list, (endpoint) =>
    Effect.zipRight(seedMerchant(Number.parseInt(endpoint.merchantId.slice(-12), 16)), hooks((r) => r.create(endpoint))),
  );

/** The cases of the webhook endpoints kit. */
export const webhookEndpointsCases: ReadonlyArray<KitCase<WebhookEndpointsKitPorts>> = [
  {
    name: "webhook endpoints: create answers a fresh secret, the one the signer gets; the endpoint reads back as written",
    run: async (t, run) => {
      const [one, two] = await run(createEndpoints([endpointRecord(1, 1, ["PaymentSucceeded"]), endpointRecord(1, 2)]));
      t.ok(typeof one?.secret === "string" && one.secret.length >= 16, "a long secret");
      t.not(one?.secret, two?.secret, "each endpoint has its own");
      t.same(await run(hooks((r) => r.find(uid("whe", 1)))), endpointRecord(1, 1, ["PaymentSucceeded"]));
      t.same(await run(hooks((r) => r.signingEndpoint(uid("whe", 1), at(10)))), { endpoint: endpointRecord(1, 1, ["PaymentSucceeded"]), signingSecrets: [one?.secret] });
      t.equal(await run(hooks((r) => r.find(uid("whe", 9)))), null);
      t.equal(await run(hooks((r) => r.signingEndpoint(uid("whe", 9), at(10)))), null);
    },
  },
  {
    name: "webhook endpoints: a rotation answers a fresh secret; the previous one signs too until its expiry, then never; a second rotation drops the oldest",
    run: async (t, run) => {
      const [created] = await run(createEndpoints([endpointRecord(1, 1), endpointRecord(1, 2)]));
      const first = created?.secret;
      const signers = (n: number) => run(hooks((r) => r.signingEndpoint(uid("whe", 1), at(n)))).then((s) => s?.signingSecrets);
      const rotated = await run(hooks((r) => r.rotateSecret({ id: uid("whe", 1), at: at(10), previousExpiresAt: at(20) })));
      const second = rotated?.secret;
      t.ok(typeof second === "string" && second !== first, "a fresh secret");
      t.equal(rotated?.droppedLivePrevious, false, "nothing was live to drop");
      t.same(await signers(19), [second, first], "during the overlap: the new secret first, then the previous");
      t.same(await signers(20), [second], "at the expiry: the new secret only");
      t.same(await signers(30), [second], "and after it");
      t.same(await run(hooks((r) => r.signingEndpoint(uid("whe", 2), at(19)))).then((s) => s?.signingSecrets.length), 1, "other endpoints keep one secret");
      const third = await run(hooks((r) => r.rotateSecret({ id: uid("whe", 1), at: at(11), previousExpiresAt: at(40) })));
      t.equal(third?.droppedLivePrevious, true, "a live previous secret was dropped");
      t.same(await signers(12), [third?.secret, second], "at most two: the oldest is gone");
      const cut = await run(hooks((r) => r.rotateSecret({ id: uid("whe", 1), at: at(13), previousExpiresAt: null })));
      t.same(await signers(14), [cut?.secret], "no overlap: the new secret only");
      t.same(await run(hooks((r) => r.find(uid("whe", 1)))), endpointRecord(1, 1), "the record is unchanged");
      await run(hooks((r) => r.markDeleted(uid("whe", 2), at(50))));
      t.equal(await run(hooks((r) => r.rotateSecret({ id: uid("whe", 2), at: at(51), previousExpiresAt: at(60) }))), null, "a deleted endpoint is not rotated");
      t.equal(await run(hooks((r) => r.rotateSecret({ id: uid("whe", 9), at: at(51), previousExpiresAt: at(60) }))), null, "nor an unknown one");
    },
  },
  {
    name: "webhook endpoints: a merchant's live endpoints are listed newest first; deletion is once and hides it from list and subscribed",
    run: async (t, run) => {
      await run(createEndpoints([endpointRecord(1, 1), endpointRecord(2, 2), endpointRecord(1, 3), endpointRecord(1, 4)]));
      t.same(ids(await run(hooks((r) => r.list({ merchantId: uid("mer", 1), limit: 10 })))), [uid("whe", 4), uid("whe", 3), uid("whe", 1)]);
      t.equal(await run(hooks((r) => r.markDeleted(uid("whe", 3), at(100)))), true);
      t.equal(await run(hooks((r) => r.markDeleted(uid("whe", 3), at(200)))), false, "already deleted");
      t.equal(await run(hooks((r) => r.markDeleted(uid("whe", 9), at(200)))), false, "unknown");
      t.same(ids(await run(hooks((r) => r.list({ merchantId: uid("mer", 1), limit: 10 })))), [uid("whe", 4), uid("whe", 1)]);
      t.equal((await run(hooks((r) => r.find(uid("whe", 3)))))?.deletedAt?.getTime(), at(100).getTime(), "a deleted endpoint is still found, deleted");
      t.notOk(ids(await run(hooks((r) => r.subscribed(uid("mer", 1), "PaymentSucceeded")))).includes(uid("whe", 3)), "not subscribed once deleted");
      t.same(ids(await run(hooks((r) => r.list({ merchantId: uid("mer", 2), limit: 10 })))), [uid("whe", 2)]);
      t.same(ids(await run(hooks((r) => r.list({ merchantId: uid("mer", 1), limit: 1 })))), [uid("whe", 4)], "at most `limit`");
      t.same(ids(await run(hooks((r) => r.list({ merchantId: uid("mer", 1), limit: 10, before: uid("whe", 4) })))), [uid("whe", 1)], "strictly before `before`, deleted ones skipped");
    },
  },
  {
    name: "webhook endpoints: subscribed answers the merchant's live endpoints taking the event type; no filter takes every type",
    run: async (t, run) => {
      await run(
        createEndpoints([endpointRecord(1, 1, ["PaymentSucceeded"]), endpointRecord(1, 2, ["RefundSucceeded"]), endpointRecord(1, 3), endpointRecord(2, 4)]),
      );
      t.same(ids(await run(hooks((r) => r.subscribed(uid("mer", 1), "PaymentSucceeded")))).sort(), [uid("whe", 1), uid("whe", 3)]);
      t.same(ids(await run(hooks((r) => r.subscribed(uid("mer", 1), "RefundSucceeded")))).sort(), [uid("whe", 2), uid("whe", 3)]);
      t.same(ids(await run(hooks((r) => r.subscribed(uid("mer", 1), "ReconciliationExceptionsOpen")))), [uid("whe", 3)]);
      t.same(ids(await run(hooks((r) => r.subscribed(uid("mer", 9), "PaymentSucceeded")))), []);
    },
  },
  {
    name: "webhook endpoints: a delivery is unique per (endpoint, event): a second one is not inserted",
    run: async (t, run) => {
      const a = endpointRecord(1, 1);
      const b = endpointRecord(1, 2);
      await run(createEndpoints([a, b]));
      t.equal(await run(hooks((r) => r.insertDelivery(deliveryRecord(a, 1, "evt-1")))), true);
      t.equal(await run(hooks((r) => r.insertDelivery(deliveryRecord(a, 2, "evt-1", { body: "other" })))), false, "same endpoint and event");
      t.equal(await run(hooks((r) => r.findDelivery(uid("whd", 2)))), null, "nothing written");
      t.same(await run(hooks((r) => r.findDelivery(uid("whd", 1)))), deliveryRecord(a, 1, "evt-1"), "the first stands");
      t.equal(await run(hooks((r) => r.insertDelivery(deliveryRecord(b, 3, "evt-1")))), true, "the same event to another endpoint");
      t.equal(await run(hooks((r) => r.insertDelivery(deliveryRecord(a, 4, "evt-2")))), true, "another event to the same endpoint");
      t.same(await run(hooks((r) => r.findDelivery(uid("whd", 4), { forUpdate: true }))), deliveryRecord(a, 4, "evt-2"));
    },
  },
  {
    name: "webhook endpoints: a delivery's status moves with its attempts; listed newest first with its attempts in order",
    run: async (t, run) => {
      const a = endpointRecord(1, 1);
      await run(createEndpoints([a, endpointRecord(1, 2)]));
      await run(hooks((r) => Effect.forEach([deliveryRecord(a, 1, "evt-1"), deliveryRecord(a, 2, "evt-2"), deliveryRecord(a, 3, "evt-3")], (d) => r.insertDelivery(d))));
      const attempt = (n: number, number: number, statusCode: number | null, error: string | null): DeliveryAttempt => ({
        id: DeliveryAttemptId.make(uid("wha", n)),
        deliveryId: WebhookDeliveryId.make(uid("whd", 1)),
        number,
        statusCode,
        error,
        attemptedAt: at(10 + n),
      });
      await run(hooks((r) => r.appendAttempt(attempt(1, 1, 500, "HTTP 500"))));
      await run(hooks((r) => r.updateDelivery(deliveryRecord(a, 1, "evt-1", { attempts: 1, lastError: "HTTP 500", updatedAt: at(11) }))));
      await run(hooks((r) => r.appendAttempt(attempt(2, 2, 200, null))));
      const succeeded = deliveryRecord(a, 1, "evt-1", { status: "succeeded", attempts: 2, lastError: null, updatedAt: at(12) });
      await run(hooks((r) => r.updateDelivery(succeeded)));
      t.same(await run(hooks((r) => r.findDelivery(uid("whd", 1)))), succeeded, "status, attempts, last error and time written");
      const listed = await run(hooks((r) => r.listDeliveries({ endpointId: a.id, limit: 10 })));
      t.same(listed.map((d) => d.delivery.id), [uid("whd", 3), uid("whd", 2), uid("whd", 1)]);
      t.same(listed[2]?.attempts, [attempt(1, 1, 500, "HTTP 500"), attempt(2, 2, 200, null)], "its attempts, in order");
      t.same(listed[0]?.attempts, [], "a delivery without attempts");
      t.same((await run(hooks((r) => r.listDeliveries({ endpointId: a.id, before: uid("whd", 3), limit: 1 })))).map((d) => d.delivery.id), [uid("whd", 2)]);
      t.same(await run(hooks((r) => r.listDeliveries({ endpointId: uid("whe", 2), limit: 10 }))), [], "another endpoint's");
    },
  },
  {
    name: "webhook endpoints: dead deliveries of every merchant are the operators' queue, newest first, before `before`",
    run: async (t, run) => {
      const a = endpointRecord(1, 1);
      const b = endpointRecord(2, 2);
      await run(createEndpoints([a, b]));
      await run(
        hooks((r) =>
          Effect.forEach(
            [deliveryRecord(a, 1, "evt-1", { status: "dead" }), deliveryRecord(b, 2, "evt-2", { status: "dead" }), deliveryRecord(a, 3, "evt-3"), deliveryRecord(b, 4, "evt-4", { status: "succeeded" })],
            (d) => r.insertDelivery(d),
          ),
        ),
      );
      await run(hooks((r) => r.updateDelivery(deliveryRecord(a, 3, "evt-3", { status: "dead", attempts: 8, lastError: "timeout", updatedAt: at(99) }))));
      t.same(ids(await run(hooks((r) => r.listDeadDeliveries({ limit: 10 })))), [uid("whd", 3), uid("whd", 2), uid("whd", 1)]);
      t.same(ids(await run(hooks((r) => r.listDeadDeliveries({ before: uid("whd", 3), limit: 1 })))), [uid("whd", 2)]);
    },
  },
  {
    name: "webhook endpoints: one open replay request per delivery; approved once, never by its requester",
    run: async (t, run) => {
      const a = endpointRecord(1, 1);
      await run(createEndpoints([a]));
      await run(hooks((r) => r.insertDelivery(deliveryRecord(a, 1, "evt-1", { status: "dead" }))));
      t.equal(await run(hooks((r) => r.insertReplayRequest(replayRequestRecord(uid("whd", 1), 1)))), true);
      t.equal(await run(hooks((r) => r.insertReplayRequest(replayRequestRecord(uid("whd", 1), 2, "operator-2")))), false, "one already open");
      t.equal(await run(hooks((r) => r.findReplayRequest(uid("rpl", 2)))), null);
      t.equal(await run(hooks((r) => r.approveReplayRequest({ id: uid("rpl", 1), approvedBy: "operator-1", reason: "self", at: at(50) }))), false, "not by its requester");
      t.equal(await run(hooks((r) => r.approveReplayRequest({ id: uid("rpl", 1), approvedBy: "operator-2", reason: "checked", at: at(60) }))), true);
      t.same(await run(hooks((r) => r.findReplayRequest(uid("rpl", 1), { forUpdate: true }))), {
        ...replayRequestRecord(uid("whd", 1), 1),
        approvedBy: "operator-2",
        approvalReason: "checked",
        approvedAt: at(60),
      });
      t.equal(await run(hooks((r) => r.approveReplayRequest({ id: uid("rpl", 1), approvedBy: "operator-3", reason: "again", at: at(70) }))), false, "already approved");
      t.equal(await run(hooks((r) => r.insertReplayRequest(replayRequestRecord(uid("whd", 1), 3)))), true, "a new request once the last was approved");
      t.equal(await run(hooks((r) => r.approveReplayRequest({ id: uid("rpl", 9), approvedBy: "operator-2", reason: "x", at: T0 }))), false, "unknown");
    },
  },
];

/** Runs the webhook endpoints kit. */
export const webhookEndpointsSuite = (options: SuiteOptions<WebhookEndpointsKitPorts>): Promise<unknown> => runCases(options, webhookEndpointsCases);
