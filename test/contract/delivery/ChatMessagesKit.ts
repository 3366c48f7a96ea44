/**
 * Contract kit for ChatMessages: a delivery's messages are listed oldest first (by their
 * time-ordered ids), its own only, in keyset pages (`afterId` is the last id of the previous page,
 * `limit` bounds a page); `sentSince` keeps those sent at or after it and `courierSenderId` keeps
 * the customer's and that courier's, both before the page is cut; retention deletes the messages of
 * deliveries delivered or cancelled before the cutoff, nothing else, and answers how many; support's
 * reads are recorded (one row each) and do not keep the messages from the retention.
 */
import { Effect } from "effect";
import type { ChatMessage, ChatSenderRole } from "../../../core/delivery/model/ChatMessage.js";
import type { Delivery } from "../../../core/delivery/model/Delivery.js";
import { ChatMessageId, type DeliveryId } from "../../../core/delivery/model/Ids.js";
import { ChatMessages } from "../../../ports/delivery/ChatMessages.js";
import { DispatchRepository } from "../../../ports/delivery/DispatchRepository.js";
import type { OrdersRepository } from "../../../ports/delivery/OrdersRepository.js";
import type { RestaurantsRepository } from "../../../ports/delivery/RestaurantsRepository.js";
import { at, runCases, type KitCase, type Run, type SuiteOptions } from "../Kit.js";
import { courierRecord, seedDelivery, uid } from "./fixtures.js";

/** The ports this kit needs (deliveries are written through the dispatch repository, their orders through theirs). */
export type ChatMessagesKitPorts = ChatMessages | DispatchRepository | OrdersRepository | RestaurantsRepository;

const chat = <A>(f: (r: ChatMessages) => Effect.Effect<A>) => Effect.flatMap(ChatMessages, f);
const ids = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((row) => row.id);
const msg = (n: number) => uid("msg", n);

/** The customer of delivery `n`'s order (seedOrder's `uid("cus", n)`). */
const customerOf = (n: number) => uid("cus", n);
/** Courier users: courierRecord(n).userId. */
const courierUser = (n: number) => courierRecord(n).userId;

/** Message `n` on `deliveryId`, sent `secondsAfterT0` after T0 by `senderId` in `role`. */
const message = (n: number, deliveryId: DeliveryId, role: ChatSenderRole, senderId: string, secondsAfterT0 = n): ChatMessage => ({
  id: ChatMessageId.make(msg(n)),
  deliveryId,
  senderRole: role,
  senderId,
  body: `message ${n}: door 3, ring twice`,
  sentAt: at(secondsAfterT0 * 1000),
});

/** Courier 1 and delivery `n` of order `n`, assigned to that courier unless `overrides` say otherwise. */
const seedChatDelivery = async (run: Run<ChatMessagesKitPorts>, n: number, overrides: Partial<Delivery> = {}) => {
  await run(
    Effect.flatMap(DispatchRepository, (d) =>
      Effect.flatMap(d.findCourier(courierRecord(1).id), (found) => (found === null ? d.insertCourier(courierRecord(1)) : Effect.void)),
    ),
  );
  const { delivery } = await run(seedDelivery(n, { status: "assigned", courierId: courierRecord(1).id, ...overrides }));
  return delivery.id;
};

const insertAll = (list: ReadonlyArray<ChatMessage>) => chat((c) => Effect.forEach(list, (m) => c.insert(m), { discard: true }));

/** The cases of the chat messages kit. */
export const chatMessagesCases: ReadonlyArray<KitCase<ChatMessagesKitPorts>> = [
  {
    name: "chat: a delivery's messages oldest first by id, read back as written; another delivery's never among them; an unknown delivery has none",
    run: async (t, run) => {
      const d1 = await seedChatDelivery(run, 1);
      const d2 = await seedChatDelivery(run, 2);
      await run(insertAll([message(3, d1, "customer", customerOf(1)), message(1, d1, "customer", customerOf(1)), message(4, d2, "customer", customerOf(2)), message(2, d1, "courier", courierUser(1))]));
      const mine = await run(chat((c) => c.list({ deliveryId: d1, afterId: null, limit: 10 })));
      t.same(ids(mine), [msg(1), msg(2), msg(3)], "oldest first, only this delivery's");
      t.same(mine[1], message(2, d1, "courier", courierUser(1)), "read back as written");
      t.same(ids(await run(chat((c) => c.list({ deliveryId: d2, afterId: null, limit: 10 })))), [msg(4)]);
      t.same(await run(chat((c) => c.list({ deliveryId: uid("dlv", 9), afterId: null, limit: 10 }))), [], "an unknown delivery");
    },
  },
  {
    name: "chat: keyset pages: `afterId` answers only the messages after that id, at most `limit`, and the pages join up to the whole list",
    run: async (t, run) => {
      const d1 = await seedChatDelivery(run, 1);
      const d2 = await seedChatDelivery(run, 2);
      await run(insertAll([1, 2, 3, 4, 5].map((n) => message(n, d1, n % 2 === 0 ? "courier" : "customer", n % 2 === 0 ? courierUser(1) : customerOf(1)))));
      await run(insertAll([message(6, d2, "customer", customerOf(2))]));
      const page = (afterId: string | null) => run(chat((c) => c.list({ deliveryId: d1, afterId, limit: 2 })));
      t.same(ids(await page(null)), [msg(1), msg(2)], "the first page: at most `limit`");
      t.same(ids(await page(msg(2))), [msg(3), msg(4)], "after the last id of the previous page, that id excluded");
      t.same(ids(await page(msg(4))), [msg(5)], "the last page is short; another delivery's later message is not on it");
      t.same(ids(await page(msg(5))), [], "nothing after the last message");
      t.same(ids(await run(chat((c) => c.list({ deliveryId: d1, afterId: null, limit: 1 })))), [msg(1)], "a limit of one");
    },
  },
  {
    name: "chat: with `sentSince`, only the messages sent at or after it",
    run: async (t, run) => {
      const d1 = await seedChatDelivery(run, 1);
      await run(insertAll([message(1, d1, "customer", customerOf(1), 10), message(2, d1, "courier", courierUser(1), 20), message(3, d1, "customer", customerOf(1), 30)]));
      const since = (sentSince: Date | null, afterId: string | null = null) => run(chat((c) => c.list({ deliveryId: d1, afterId, limit: 10, sentSince })));
      t.same(ids(await since(at(20_000))), [msg(2), msg(3)], "a message sent exactly at `sentSince` is included");
      t.same(ids(await since(at(20_001))), [msg(3)]);
      t.same(ids(await since(at(20_000), msg(2))), [msg(3)], "with `afterId` too");
      t.same(ids(await since(null)), [msg(1), msg(2), msg(3)], "null: every message");
      t.same(ids(await since(at(31_000))), []);
    },
  },
  {
    name: "chat: with `courierSenderId`, the customer's messages and that courier's only (never another courier's), filtered before the page is cut",
    run: async (t, run) => {
      const d1 = await seedChatDelivery(run, 1);
      await run(
        insertAll([
          message(1, d1, "customer", customerOf(1)),
          message(2, d1, "courier", courierUser(1)),
          message(3, d1, "customer", customerOf(1)),
          message(4, d1, "courier", courierUser(2)),
          message(5, d1, "courier", courierUser(1)),
          message(6, d1, "customer", customerOf(1)),
        ]),
      );
      const of = (courierSenderId: string | null, options: { readonly limit?: number; readonly sentSince?: Date; readonly afterId?: string } = {}) =>
        run(chat((c) => c.list({ deliveryId: d1, afterId: options.afterId ?? null, limit: options.limit ?? 10, sentSince: options.sentSince ?? null, courierSenderId })));
      t.same(ids(await of(courierUser(2))), [msg(1), msg(3), msg(4), msg(6)], "the new courier: the customer's and their own");
      t.same(ids(await of(courierUser(1))), [msg(1), msg(2), msg(3), msg(5), msg(6)], "the previous courier's view is their own");
      t.same(ids(await of(courierUser(2), { limit: 2 })), [msg(1), msg(3)], "a full page of what the reader may see");
      t.same(ids(await of(courierUser(2), { limit: 2, afterId: msg(3) })), [msg(4), msg(6)], "and the next one");
      t.same(ids(await of(courierUser(2), { sentSince: at(4000) })), [msg(4), msg(6)], "with `sentSince`: from the assignment on");
      t.same(ids(await of(null)), [msg(1), msg(2), msg(3), msg(4), msg(5), msg(6)], "null: the whole conversation (the customer's view)");
    },
  },
  {
    name: "chat: retention deletes the messages of deliveries delivered or cancelled before the cutoff, nothing else, and answers how many",
    run: async (t, run) => {
      const cutoff = at(200_000);
      const delivered = await seedChatDelivery(run, 1, { status: "delivered", updatedAt: at(100_000) });
      const cancelled = await seedChatDelivery(run, 2, { status: "cancelled", courierId: null, updatedAt: at(100_000) });
      const endedLater = await seedChatDelivery(run, 3, { status: "delivered", updatedAt: at(300_000) });
      const endedAtCutoff = await seedChatDelivery(run, 4, { status: "delivered", updatedAt: cutoff });
      const active = await seedChatDelivery(run, 5, { status: "picked_up", updatedAt: at(50_000) });
      await run(
        insertAll([
          message(1, delivered, "customer", customerOf(1)),
          message(2, delivered, "courier", courierUser(1)),
          message(3, cancelled, "customer", customerOf(2)),
          message(4, endedLater, "customer", customerOf(3)),
          message(5, endedAtCutoff, "customer", customerOf(4)),
          message(6, active, "customer", customerOf(5)),
        ]),
      );
      t.equal(await run(chat((c) => c.deleteEndedBefore(cutoff))), 3, "the delivered and the cancelled delivery's messages");
      const left = (deliveryId: DeliveryId) => run(chat((c) => c.list({ deliveryId, afterId: null, limit: 10 }))).then(ids);
      t.same(await left(delivered), []);
      t.same(await left(cancelled), []);
      t.same(await left(endedLater), [msg(4)], "ended after the cutoff: kept");
      t.same(await left(endedAtCutoff), [msg(5)], "ended exactly at the cutoff: kept");
      t.same(await left(active), [msg(6)], "an active delivery's messages are kept however old");
      t.equal(await run(chat((c) => c.deleteEndedBefore(cutoff))), 0, "nothing left to delete");
    },
  },
  {
    name: "chat: support's reads are recorded, one per read, and the retention still deletes the messages they read",
    run: async (t, run) => {
      const delivered = await seedChatDelivery(run, 1, { status: "delivered", updatedAt: at(100_000) });
      await run(insertAll([message(1, delivered, "customer", customerOf(1)), message(2, delivered, "courier", courierUser(1))]));
      for (const n of [1, 2]) await run(chat((c) => c.recordSupportRead({ id: uid("cra", n), deliveryId: delivered, viewerId: "dispatcher-1", at: at(150_000 + n) })));
      t.equal(await run(chat((c) => c.deleteEndedBefore(at(200_000)))), 2, "the read messages are deleted all the same");
      t.same(await run(chat((c) => c.list({ deliveryId: delivered, afterId: null, limit: 10 }))), []);
    },
  },
];

/** Runs the chat messages kit. */
export const chatMessagesSuite = (options: SuiteOptions<ChatMessagesKitPorts>): Promise<unknown> => runCases(options, chatMessagesCases);
