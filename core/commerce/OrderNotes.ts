/**
 * Free text on an order kept where guest retention can clear it (spec, E-commerce: "guest data
 * has retention"; docs/decisions.md: free text on a guest order is personal data of the guest's
 * order, the audit fact stays). The timeline is append-only, so it holds no free text: a
 * cancellation's reason (a shopper's or support's), a staff reason of a return stage or refund
 * request, and a fulfillment task's assignment or release reason are notes the entry refers to
 * (`note_id`); a return's own reason stays on the return (the `return.authorized` entry names the
 * return). Reading the timeline puts each text back as the entry's `reason` — null once
 * retention cleared it.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Ids } from "../../ports/Ids.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import type { Order, OrderTimelineEntry } from "./model/Order.js";
import { OrderNoteId } from "./model/Ids.js";

/** A new note's id, to name in a timeline entry before the note is kept. */
export const newNoteId = Effect.flatMap(Ids, (ids) => Effect.map(ids.next, (id) => OrderNoteId.make(id)));

/** Keeps `text` as the order's note `id` (in the caller's transaction). */
export const keepNote = (order: Pick<Order, "id" | "storeId">, id: OrderNoteId, text: string) =>
  Effect.gen(function* () {
    yield* (yield* OrdersRepository).insertNote({ id, storeId: order.storeId, orderId: order.id, body: text, createdAt: yield* now, clearedAt: null });
  });

/** Keeps `text` as a new note of the order (in the caller's transaction); answers the timeline detail that refers to it. */
export const reasonNote = (order: Pick<Order, "id" | "storeId">, text: string) =>
  Effect.gen(function* () {
    const id = yield* newNoteId;
    yield* keepNote(order, id, text);
    return { note_id: id };
  });

const detailOf = (entry: OrderTimelineEntry): Readonly<Record<string, unknown>> =>
  typeof entry.detail === "object" && entry.detail !== null ? (entry.detail as Record<string, unknown>) : {};

/** Timeline entries of the order (a page) with each free text put back as its entry's `reason` (null once cleared). */
export const withOrderTexts = (orderId: string, timeline: ReadonlyArray<OrderTimelineEntry>) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const referring = timeline.filter((e) => {
      const d = detailOf(e);
      return typeof d.note_id === "string" || (e.kind === "return.authorized" && !("reason" in d));
    });
    if (referring.length === 0) return timeline;
    // Only the notes and returns these entries name: a page reads at most its own length of each.
    const noteIds = referring.flatMap((e) => {
      const noteId = detailOf(e).note_id;
      return typeof noteId === "string" ? [noteId] : [];
    });
    const returnIds = referring.flatMap((e) => (typeof detailOf(e).note_id === "string" ? [] : [String(detailOf(e).return_id)]));
    const notes = new Map((yield* orders.notesNamed(orderId, noteIds)).map((n) => [n.id as string, n.body]));
    const reasons = new Map((yield* orders.returnsNamed(orderId, returnIds)).map((r) => [r.id as string, r.reason]));
    return timeline.map((e): OrderTimelineEntry => {
      if (!referring.includes(e)) return e;
      const d = detailOf(e);
      const reason = typeof d.note_id === "string" ? notes.get(d.note_id) : reasons.get(String(d.return_id));
      return { ...e, detail: { ...d, reason: reason ?? null } };
    });
  });
