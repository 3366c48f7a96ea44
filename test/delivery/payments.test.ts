/**
 * Money through the PaymentGateway port, outside transactions with stable keys: a declined
 * card is 402 and writes nothing; a lost provider answer is `payment_pending` (202); placing
 * the same quote again reuses the one authorization; a rejection or deadline voids the
 * authorization, and while the provider is down the order shows `void_pending` and the void
 * job retries until it succeeds; a failed capture after completion is retried by its job; an
 * authorization whose order was never written (the process stopped in between) is voided by the
 * placement's release job once the quote has expired, and a retry before then places the order.
 */
import t from "tap";
import { Effect, Exit } from "effect";
import { placementReleaseAt } from "../../core/delivery/PlacementRelease.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { expireAcceptance } from "../../core/delivery/AcceptanceDeadline.js";
import { acceptOrder, rejectOrder } from "../../core/delivery/AcceptOrder.js";
import { getOrder } from "../../core/delivery/GetOrder.js";
import { paymentFallbackDelayMs } from "../../core/delivery/OrderPayments.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { placeOrder } from "../../core/delivery/PlaceOrder.js";
import { resolvePendingPayment } from "../../core/delivery/ResolvePayment.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { forEachDeliveryDialect, advanceDelivery } from "./support.js";
import { at } from "../worker/fixtures.js";
import { authorizedOrder, deliveryRuntime, openRestaurant, pickedUpOrder, quoteFor, user, type DeliveryRuntime } from "./support.js";

const runJobs = (rt: DeliveryRuntime, millis: number) => rt.run(at(millis)(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 })));

/** Places the quote with a process that stops right after the provider authorized (before the order's transaction). */
const placeAndStop = (rt: DeliveryRuntime, customer: string, quoteId: string) =>
  rt.runtime.runPromiseExit(
    placeOrder(user(customer), { quoteId, paymentMethod: "pm_card_visa" }).pipe(
      Effect.provideService(
        PaymentGateway,
        PaymentGateway.of({ ...rt.gateway, authorize: (request) => Effect.zipRight(rt.gateway.authorize(request), Effect.die(new Error("process stopped"))) }),
      ),
    ),
  );

const countRows = async (db: Parameters<Parameters<typeof forEachDeliveryDialect>[2]>[1], table: string) =>
  Number((await db.db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);

t.test("a declined card is 402 payment_declined and writes nothing; the same quote placed twice authorizes once", (t) =>
  forEachDeliveryDialect(t, "authorize", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const declined = await quoteFor(rt, "cust-1", fixture);
    t.match(await rt.attempt(placeOrder(user("cust-1"), { quoteId: declined.id, paymentMethod: "pm_card_declined" })), {
      ok: false,
      error: { code: "payment_declined" },
    });
    t.equal(Number((await db.db.selectFrom("dl_orders").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n), 0, "no order");
    t.equal(Number((await db.db.selectFrom("outbox").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n), 0, "no event");

    const quote = await quoteFor(rt, "cust-1", fixture);
    const [a, b] = await Promise.all([
      rt.run(placeOrder(user("cust-1"), { quoteId: quote.id, paymentMethod: "pm_card_visa" })),
      rt.run(placeOrder(user("cust-1"), { quoteId: quote.id, paymentMethod: "pm_card_visa" })),
    ]);
    t.equal(a.order.id, b.order.id, "one order per quote");
    t.equal(rt.gateway.effects.authorize, 2, "the declined attempt and one authorization: the second placement replayed the key");
    t.equal(rt.gateway.payments().filter((p) => p.status === "requires_capture").length, 1);
    t.equal(a.order.merchantId, fixture.restaurant.merchantId, "paid to the restaurant's own merchant");
  }),
);

t.test("a lost authorization answer leaves the order payment_pending (202), never guessed, until the lookup job resolves it", (t) =>
  forEachDeliveryDialect(t, "ambiguous authorize", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const quote = await quoteFor(rt, "cust-1", fixture);
    const placed = await rt.run(placeOrder(user("cust-1"), { quoteId: quote.id, paymentMethod: "pm_card_timeout_after" }));
    t.equal(placed.workflow.status, "payment_pending");
    t.equal(placed.workflow.paymentState, "pending");
    t.ok(placed.workflow.paymentId !== null, "the payment id is kept to resolve it later");
    t.match(await rt.attempt(acceptOrder(user(fixture.owner), placed.order.id, { prepTimeMinutes: 10 })), { ok: false, error: { code: "order_not_acceptable" } }, "not acceptable while pending");
    await runJobs(rt, Date.now() + 1000);
    const resolved = await rt.run(getOrder(user("cust-1"), placed.order.id));
    t.equal(resolved.workflow.status, "authorized", "resolved by looking the payment up");
    t.equal(resolved.workflow.paymentState, "authorized");
    t.match(await rt.attempt(acceptOrder(user(fixture.owner), placed.order.id, { prepTimeMinutes: 10 })), { ok: true }, "then the restaurant accepts it");
  }),
);

t.test("a rejection voids the authorization; while the provider is down it is void_pending and the job retries", (t) =>
  forEachDeliveryDialect(t, "void", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const placed = await authorizedOrder(rt, "cust-1", fixture);
    rt.gateway.failNext("cancel", 2);
    const rejected = await rt.run(rejectOrder(user(fixture.owner), placed.order.id, { reason: "out of dough" }));
    t.equal(rejected.status, "rejected");
    t.equal(rejected.paymentState, "void_pending", "the provider is down: void pending");
    await runJobs(rt, Date.now() + 1000);
    t.equal((await rt.run(getOrder(user("cust-1"), placed.order.id))).workflow.paymentState, "void_pending", "the fallback job waits a few seconds");
    await runJobs(rt, Date.now() + paymentFallbackDelayMs + 1000);
    t.equal((await rt.run(getOrder(user("cust-1"), placed.order.id))).workflow.paymentState, "void_pending", "still down on the first retry");
    await runJobs(rt, Date.now() + 3_600_000);
    const after = await rt.run(getOrder(user("cust-1"), placed.order.id));
    t.equal(after.workflow.paymentState, "voided", "the retried void went through");
    t.equal(rt.gateway.payments()[0]?.status, "canceled");
    t.equal(rt.gateway.effects.cancel, 1, "voided once at the provider");
  }),
);

t.test("the acceptance deadline cancels an unaccepted order and voids its authorization (a durable job)", (t) =>
  forEachDeliveryDialect(t, "deadline", async (t, db) => {
    const rt = deliveryRuntime(t, db, { acceptDeadlineSeconds: 300 });
    const fixture = await openRestaurant(rt);
    const placed = await authorizedOrder(rt, "cust-1", fixture);
    t.match(await rt.attempt(expireAcceptance(placed.order.id)), { ok: false }, "not before the deadline");
    await runJobs(rt, placed.workflow.acceptDeadline.getTime() + 1000);
    const view = await rt.run(getOrder(user("cust-1"), placed.order.id));
    t.equal(view.workflow.status, "cancelled");
    t.equal(view.workflow.reason, "acceptance_deadline");
    t.equal(view.workflow.paymentState, "voided");
  }),
);

t.test("a capture that fails after completion is retried by its job; the delivery stays completed", (t) =>
  forEachDeliveryDialect(t, "capture retry", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const { placed, accepted, courier: c1 } = await pickedUpOrder(rt, "cust-1", fixture);
    rt.gateway.failNext("capture");
    await advanceDelivery(rt, c1!.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
    t.equal((await rt.run(getOrder(user("cust-1"), placed.order.id))).workflow.paymentState, "capture_pending");
    await runJobs(rt, Date.now() + paymentFallbackDelayMs + 1000);
    t.equal((await rt.run(getOrder(user("cust-1"), placed.order.id))).workflow.paymentState, "captured");
    t.equal(rt.gateway.effects.capture, 1);
  }),
);

t.test("an authorization whose order was never written (the process stopped in between) is voided once the quote has expired; the quote can no longer be placed", (t) =>
  forEachDeliveryDialect(t, "orphaned authorization", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const quote = await quoteFor(rt, "cust-1", fixture);
    t.ok(Exit.isFailure(await placeAndStop(rt, "cust-1", quote.id)), "the placement stopped");
    t.equal(await countRows(db, "dl_orders"), 0, "no order was written");
    t.same(rt.gateway.payments().map((p) => p.status), ["requires_capture"], "the provider holds the amount");

    await runJobs(rt, quote.expiresAt.getTime() - 1000);
    t.same(rt.gateway.payments().map((p) => p.status), ["requires_capture"], "kept while the quote is valid: a retry could still place it");

    await runJobs(rt, placementReleaseAt(quote).getTime() + 1000);
    t.same(rt.gateway.payments().map((p) => [p.status, p.capturableMinor]), [["canceled", 0]], "voided after the quote expired");
    t.equal(rt.gateway.effects.authorize, 1, "nothing was authorized again");
    t.match(
      await rt.attempt(placeOrder(user("cust-1"), { quoteId: quote.id, paymentMethod: "pm_card_visa" })),
      { ok: false, error: { code: "quote_expired" } },
      "a released quote writes no order",
    );
    t.equal(await countRows(db, "dl_orders"), 0);
  }),
);

t.test("a retry of the stopped placement before the quote expires places the order under the one authorization, which the release job leaves alone", (t) =>
  forEachDeliveryDialect(t, "retried placement", async (t, db) => {
    // The restaurant's acceptance deadline falls after the release job's time here (it would void the authorization itself).
    const rt = deliveryRuntime(t, db, { acceptDeadlineSeconds: 3600 });
    const fixture = await openRestaurant(rt);
    const quote = await quoteFor(rt, "cust-1", fixture);
    await placeAndStop(rt, "cust-1", quote.id);
    const placed = await rt.run(placeOrder(user("cust-1"), { quoteId: quote.id, paymentMethod: "pm_card_visa" }));
    t.equal(placed.workflow.status, "authorized");
    t.equal(rt.gateway.effects.authorize, 1, "the retry replayed the authorization");
    await runJobs(rt, placementReleaseAt(quote).getTime() + 1000);
    t.same(rt.gateway.payments().map((p) => p.status), ["requires_capture"], "the order's authorization stands");
    const job = await db.db.selectFrom("jobs").select("status").where("kind", "=", "delivery.placement_release").executeTakeFirstOrThrow();
    t.equal(job.status, "cancelled", "the order's transaction cancelled the release");
  }),
);

t.test("a quote being placed with one payment method is 409 quote_payment_method_differs with another, and nothing more is authorized", (t) =>
  forEachDeliveryDialect(t, "other payment method", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const quote = await quoteFor(rt, "cust-1", fixture);
    t.match(await rt.attempt(placeOrder(user("cust-1"), { quoteId: quote.id, paymentMethod: "pm_card_declined" })), { ok: false, error: { code: "payment_declined" } });
    t.match(
      await rt.attempt(placeOrder(user("cust-1"), { quoteId: quote.id, paymentMethod: "pm_card_visa" })),
      { ok: false, error: { code: "quote_payment_method_differs", category: "conflict" } },
    );
    t.equal(rt.gateway.effects.authorize, 1, "only the declined attempt reached the provider");
    t.equal(await countRows(db, "dl_orders"), 0);
  }),
);

t.test("a pending order whose payment id was never learned (the payment service unreachable) is resolved by sending the quote's authorization again, once", (t) =>
  forEachDeliveryDialect(t, "payment id lost", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const quote = await quoteFor(rt, "cust-1", fixture);
    rt.gateway.failNext("authorize");
    const placed = await rt.run(placeOrder(user("cust-1"), { quoteId: quote.id, paymentMethod: "pm_card_visa" }));
    t.same([placed.workflow.status, placed.workflow.paymentId], ["payment_pending", null], "pending, with no payment id to look up");
    await runJobs(rt, Date.now() + 1000);
    const resolved = await rt.run(getOrder(user("cust-1"), placed.order.id));
    t.equal(resolved.workflow.status, "authorized", "resolved by the quote's own authorization");
    t.equal(resolved.workflow.paymentState, "authorized");
    const [payment] = rt.gateway.payments();
    t.equal(resolved.workflow.paymentId, payment?.paymentId, "the payment id is recorded");
    t.equal(rt.gateway.effects.authorize, 1, "authorized once");
    await runJobs(rt, Date.now() + 60_000);
    t.equal(rt.gateway.effects.authorize, 1, "nothing sent again once resolved");
  }),
);

/*
 * A payment_pending order (202) that the lookup job finds declined is cancelled (States: "order
 * cancelled"); the customer, who was told only "pending", learns it like any cancellation: one
 * OrderCancelled (reason payment_declined) in the same transaction, which the push consumer turns
 * into the customer's push and the realtime relay puts on the restaurant's channel (Background
 * work: push notifications; docs/decisions.md, Food delivery (slice 2), push notifications).
 */
t.test("a payment_pending order the lookup job finds declined is cancelled and announced once (OrderCancelled, reason payment_declined)", (t) =>
  forEachDeliveryDialect(t, "pending declined", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const quote = await quoteFor(rt, "cust-1", fixture);
    rt.gateway.failNext("authorize");
    const placed = await rt.run(placeOrder(user("cust-1"), { quoteId: quote.id, paymentMethod: "pm_card_declined" }));
    t.equal(placed.workflow.status, "payment_pending", "202: the provider could not be reached");
    await runJobs(rt, Date.now() + 1000);
    await runJobs(rt, Date.now() + 60_000);
    const resolved = await rt.run(getOrder(user("cust-1"), placed.order.id));
    t.same([resolved.workflow.status, resolved.workflow.paymentState, resolved.workflow.reason], ["cancelled", "declined", "payment_declined"], "cancelled as declined");
    const rows = await db.db.selectFrom("outbox").select(["type", "event"]).where("type", "=", "OrderCancelled").execute();
    const cancelled = rows
      .map((row) => (typeof row.event === "string" ? JSON.parse(row.event) : row.event) as { aggregate_id: string; data: unknown })
      .filter((event) => event.aggregate_id === placed.order.id);
    t.equal(cancelled.length, 1, "one OrderCancelled");
    t.match(cancelled[0]?.data, { order_id: placed.order.id, restaurant_id: fixture.restaurant.id, reason: "payment_declined" });
  }),
);

/*
 * Spec, States: "authorized order | acceptance deadline passes | restaurant has not accepted |
 * cancelled | durable timer voids the authorization". An order whose payment id was never
 * learned (the payment service unreachable at placement) is cancelled by the deadline: whether
 * the lookup job's authorization lands before or after that cancellation, the void reaches it
 * (by the payment id the job records, or by releasing the quote's authorization request) and
 * no authorization stays held.
 */
t.test("the acceptance deadline voids the authorization of a cancelled payment_pending order, even when its payment id was never learned", (t) =>
  forEachDeliveryDialect(t, "deadline voids unknown payment", async (t, db) => {
    const rt = deliveryRuntime(t, db, { acceptDeadlineSeconds: 300 });
    const fixture = await openRestaurant(rt);

    // The lookup job's authorization lands, then the deadline cancels before the job records it.
    const raced = await quoteFor(rt, "cust-1", fixture);
    rt.gateway.failNext("authorize");
    const first = await rt.run(placeOrder(user("cust-1"), { quoteId: raced.id, paymentMethod: "pm_card_visa" }));
    t.same([first.workflow.status, first.workflow.paymentId], ["payment_pending", null]);
    const late = first.workflow.acceptDeadline.getTime() + 1000;
    const deadlineDuringAuthorization = PaymentGateway.of({
      ...rt.gateway,
      authorize: (request) => Effect.tap(rt.gateway.authorize(request), () => Effect.promise(() => rt.run(at(late)(expireAcceptance(first.order.id))))),
    });
    await rt.runtime.runPromiseExit(at(late)(resolvePendingPayment(first.order.id).pipe(Effect.provideService(PaymentGateway, deadlineDuringAuthorization))));
    await runJobs(rt, late + 60_000);
    await runJobs(rt, late + 600_000);
    const racedView = await rt.run(getOrder(user("cust-1"), first.order.id));
    t.same([racedView.workflow.status, racedView.workflow.paymentState], ["cancelled", "voided"], "cancelled, its authorization voided");
    t.equal(rt.gateway.effects.authorize, 1, "the lookup job authorized once");

    // The deadline cancels first; the void job releases the quote's authorization by its request.
    const fenced = await quoteFor(rt, "cust-2", fixture);
    rt.gateway.failNext("authorize");
    const second = await rt.run(placeOrder(user("cust-2"), { quoteId: fenced.id, paymentMethod: "pm_card_visa" }));
    const late2 = second.workflow.acceptDeadline.getTime() + 1000;
    await rt.run(at(late2)(expireAcceptance(second.order.id)));
    await runJobs(rt, late2 + 60_000);
    await runJobs(rt, late2 + 600_000);
    const fencedView = await rt.run(getOrder(user("cust-2"), second.order.id));
    t.same([fencedView.workflow.status, fencedView.workflow.paymentState], ["cancelled", "voided"], "cancelled and voided without a payment id");

    t.same(rt.gateway.payments().filter((p) => p.status === "requires_capture"), [], "no authorization stays held");
  }),
);
