/**
 * Issue rule 5 (second half): ShipmentDispatched consumers dead-letter after bounded retries and
 * operators can replay them. The outbox relay hands ShipmentDispatched to the customer-mail
 * consumer, which schedules the tracking mail as a durable job; while the mail transport fails,
 * the job runner retries it with backoff and dead-letters it at its attempt bound (nothing is
 * sent, nothing retried after); the operator's replay puts it back and the next pass sends the
 * one tracking message. SQLite and Postgres.
 */
import t from "tap";
import { listDeadJobs, replayJob, runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { commerceConsumers } from "../../core/commerce/Consumers.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { commerceJobs } from "../../core/commerce/Jobs.js";
import { customerMailJob } from "../../core/commerce/Notifications.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import type { CommerceServices } from "../../core/commerce/Services.js";
import { cartWith, checkoutInput, commerceRuntime, customer, forEachCommerceDialect, seedStore } from "./support.js";

const day = 24 * 60 * 60_000;

t.test("ShipmentDispatched consumers dead-letter after bounded retries and operators can replay them", (t) =>
  forEachCommerceDialect(t, "shipment mail dead letters", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c);
    const shopper = customer();
    const placed = await c.run(placeOrder(shopper, checkoutInput((await cartWith(c, shopper, store.id, variant.id, 1)).id)));
    await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: "JD0042" }));

    // The relay delivers the order's events (placed, confirmed, dispatched) to the module's consumers.
    const relayed = await c.host(0, relayOnce<CommerceServices>(commerceConsumers, { workerId: "relay-test" }));
    t.equal(relayed.dead + relayed.retried, 0, "scheduling the mail never fails the delivery");
    const mailJobs = await db.db.selectFrom("jobs").select(["id"]).where("kind", "=", customerMailJob.kind).execute();
    t.equal(mailJobs.length, 2, "a receipt job and a tracking job");

    c.mail.failing = true;
    // Each pass a day later, past any backoff: the runner tries until the attempt bound.
    for (let pass = 1; pass <= 20; pass++) {
      const result = await c.host(pass * day, runJobsOnce(commerceJobs, { workerId: "jobs-test", concurrency: 1 }));
      if (result.claimed === 0) break;
    }
    const after = await db.db.selectFrom("jobs").select(["status", "attempts", "max_attempts"]).where("kind", "=", customerMailJob.kind).execute();
    t.same(after.map((job) => job.status), ["dead", "dead"], "both mails end dead-lettered");
    t.same(after.map((job) => Number(job.attempts)), after.map((job) => Number(job.max_attempts)), "after exactly their bounded attempts");
    t.equal(c.mail.sent.length, 0, "nothing was sent while the transport failed");
    t.same((await c.host(30 * day, runJobsOnce(commerceJobs, { workerId: "jobs-test" }))).claimed, 0, "a dead job is not tried again");

    const dead = (await c.host(30 * day, listDeadJobs())).filter((job) => job.kind === customerMailJob.kind);
    t.equal(dead.length, 2, "the operator sees both in the dead letters");
    const tracking = dead.find((job) => JSON.stringify(job.payload).includes("JD0042"));
    t.ok(tracking, "one is the ShipmentDispatched mail");

    c.mail.failing = false;
    t.ok(await c.host(30 * day, replayJob(tracking!.id)), "the operator replays it");
    t.notOk(await c.host(30 * day, replayJob(tracking!.id)), "a replayed job is no longer dead");
    const rerun = await c.host(30 * day + 1000, runJobsOnce(commerceJobs, { workerId: "jobs-test" }));
    t.equal(rerun.done, 1, "the replayed job runs");
    t.equal(c.mail.sent.length, 1, "and sends the tracking mail once");
    t.match(c.mail.sent[0]!.text, /JD0042/);
  }),
);
