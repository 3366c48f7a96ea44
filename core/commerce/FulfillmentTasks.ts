/**
 * The fulfillment side of OrderConfirmed (spec, Events: fulfillment keeps an event receipt with
 * a unique constraint so task creation is idempotent on redelivery). The consumer decodes the
 * envelope with the module's event union, records its receipt and creates the order's task in
 * one transaction: a redelivered event (same id) and a second event about the same order
 * (the task is unique per order) both change nothing; nor does one that arrives after the order's
 * cancellation was requested or it shipped (a cancellation request closes the order's task).
 *
 * Tasks are assigned (spec, Authentication 2: "Warehouse operator (assigned fulfillment tasks
 * ...)"): a warehouse operator takes an open unassigned task (a conditional update: of racing
 * takes exactly one wins, the others answer 409 fulfillment_task_taken); the store owner assigns
 * it to a warehouse operator or releases it, with a reason (a note of the order: OrderNotes.ts). Each move is written on the order's
 * timeline and published (FulfillmentTaskAssigned, after a trimmed FulfillmentTaskLeftList for the
 * list it left, through the outbox in the same transaction) on the owners' channel and the operators'
 * own channels (FulfillmentChannels.ts), so the assignee and the other operators learn it at once. An
 * operator lists the open tasks assigned to them and the unassigned ones (to take), never another
 * operator's; the owner lists every open task. Lists are keyset pages by id.
 */
import { Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { decodeCursor } from "../kernel/Cursor.js";
import { Forbidden, NotFound, ValidationFailed } from "../kernel/Errors.js";
import { IdCursorKey, pageFrom } from "../kernel/Page.js";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { StoresRepository } from "../../ports/commerce/StoresRepository.js";
import { requireStaffRole } from "./Access.js";
import { FulfillmentTaskClosed, FulfillmentTaskTaken } from "./Errors.js";
import { CommerceEvent, FulfillmentTaskAssigned, FulfillmentTaskLeftList } from "./Events.js";
import type { FulfillmentTask } from "./model/FulfillmentTask.js";
import type { StaffRoleName } from "./model/StaffRole.js";
import { fulfillmentSystemActor, publishTaskStatus } from "./FulfillmentTaskStatus.js";
import { reasonNote } from "./OrderNotes.js";
import { recordTimeline } from "./OrderRecords.js";
import { withSpan } from "../kernel/Span.js";
import { FulfillmentTaskId, StoreId } from "./model/Ids.js";

/** The consumer's stable name (its receipts are keyed by it). */
export const fulfillmentConsumerName = "commerce.fulfillment-tasks";

const decode = Schema.decodeUnknown(CommerceEvent);

/** Applies one delivered envelope; answers whether a task was created by this delivery. */
export const createFulfillmentTask = (envelope: EventEnvelope) =>
  Effect.gen(function* () {
    const event = yield* decode(envelope).pipe(Effect.orDie);
    if (event.type !== "OrderConfirmed") return false;
    const orders = yield* OrdersRepository;
    const id = FulfillmentTaskId.make(yield* (yield* Ids).next);
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const at = yield* now;
        if (!(yield* orders.receiveEvent(fulfillmentConsumerName, event.id, at))) return false;
        // Under the order's lock (cancellation and dispatch take it): an order whose cancellation
        // was requested, or that has shipped, before this delivery has nothing left to fulfil.
        yield* orders.lockOrder(event.data.order_id);
        if ((yield* orders.findOrder(event.data.order_id))?.status !== "confirmed") return false;
        const task = { id, storeId: StoreId.make(event.tenant_id), orderId: event.data.order_id, status: "open", assigneeId: null, assignedAt: null, createdAt: at } as const;
        if (!(yield* orders.insertFulfillmentTask(task))) return false;
        yield* publishTaskStatus(task, "open");
        return true;
      }),
    );
  }).pipe(withSpan("commerce.createFulfillmentTask"));

/**
 * Query: a page of the store's open fulfillment tasks, oldest first. A warehouse operator sees the
 * tasks assigned to them and the unassigned ones (to take); the owner sees every open task.
 */
export const listFulfillmentTasks = (userId: string, storeId: StoreId, input: { readonly cursor: string | null; readonly limit: number }) =>
  Effect.gen(function* () {
    yield* requireStaffRole(storeId, userId, "warehouse_operator");
    const owner = (yield* (yield* StoresRepository).rolesOf(storeId, userId)).includes("owner");
    const afterId = input.cursor === null ? null : (yield* decodeCursor(IdCursorKey, input.cursor))[0];
    const rows = yield* (yield* OrdersRepository).fulfillmentTasks(storeId, {
      status: "open",
      ...(owner ? {} : { availableTo: userId }),
      afterId,
      limit: input.limit + 1,
    });
    return pageFrom(rows, input.limit, (task) => [task.id]);
  }).pipe(withSpan("commerce.listFulfillmentTasks"));

/**
 * The task and the caller's roles in its store: NotFound when the task is unknown or the caller
 * holds no role there (they learn nothing), Forbidden without `role` (owners hold every role).
 */
const loadTaskAs = (userId: string, taskId: FulfillmentTaskId, role: "warehouse_operator" | "owner") =>
  Effect.gen(function* () {
    const task = yield* (yield* OrdersRepository).findFulfillmentTask(taskId);
    if (task === null) return yield* Effect.fail(new NotFound({ resource: "fulfillment_task" }));
    const roles = yield* (yield* StoresRepository).rolesOf(task.storeId, userId);
    if (roles.length === 0) return yield* Effect.fail(new NotFound({ resource: "fulfillment_task" }));
    if (!roles.includes(role) && !roles.includes("owner")) return yield* Effect.fail(new Forbidden({ detail: `The ${role} role is required.` }));
    return task;
  });

/** Whether roles let their holder work fulfillment tasks (owners hold every role). */
const isOperator = (roles: ReadonlyArray<StaffRoleName>): boolean => roles.includes("warehouse_operator") || roles.includes("owner");

/** NotFound without any role in the store, Forbidden without the warehouse role, as {@link loadTaskAs}. */
const requireOperator = (roles: ReadonlyArray<StaffRoleName>) =>
  roles.length === 0
    ? Effect.fail(new NotFound({ resource: "fulfillment_task" }))
    : isOperator(roles)
      ? Effect.void
      : Effect.fail(new Forbidden({ detail: "The warehouse_operator role is required." }));

/** Why a conditional move of `task` matched nothing, read again: done, or held by someone else. */
const refused = (task: FulfillmentTask | null, taskId: FulfillmentTaskId) =>
  task === null || task.status !== "open" ? new FulfillmentTaskClosed({ taskId }) : new FulfillmentTaskTaken({ taskId });

/**
 * Publishes that `task` is now held by `assigneeId` (null: released), in the caller's transaction,
 * after the trimmed FulfillmentTaskLeftList for the list it left: the unassigned ones when it had no
 * holder (`previousAssigneeId` null) and now has one, or its previous holder's when moved to another.
 * A release leaves nobody's list (the previous holder sees it among the unassigned ones).
 * The envelopes' aggregate is the order (the module's events are the order's), at its version.
 */
const publishTaskMove = (task: FulfillmentTask, previousAssigneeId: string | null, assigneeId: string | null, actorId: string) =>
  Effect.gen(function* () {
    const order = yield* (yield* OrdersRepository).findOrder(task.orderId);
    const envelope = { tenant_id: task.storeId, aggregate_id: task.orderId, aggregate_version: order?.version ?? 0 };
    const left =
      assigneeId === null
        ? []
        : [yield* FulfillmentTaskLeftList.make({ ...envelope, actor_id: fulfillmentSystemActor, data: { task_id: task.id, operator_id: previousAssigneeId } })];
    const moved = yield* FulfillmentTaskAssigned.make({
      ...envelope,
      actor_id: actorId,
      data: { task_id: task.id, order_id: task.orderId, assignee_id: assigneeId },
    });
    yield* (yield* Outbox).append([...left, moved]);
  });

/**
 * Command: a warehouse operator takes an open, unassigned task. Taking one's own task again answers
 * it unchanged; a task another operator holds is 409 fulfillment_task_taken (the losers of a race
 * too: the move is one conditional update from "unassigned"), a done one 409 fulfillment_task_closed.
 */
export const takeFulfillmentTask = (userId: string, taskId: FulfillmentTaskId) =>
  Effect.gen(function* () {
    const task = yield* loadTaskAs(userId, taskId, "warehouse_operator");
    if (task.status !== "open") return yield* Effect.fail(new FulfillmentTaskClosed({ taskId }));
    if (task.assigneeId === userId) return task;
    if (task.assigneeId !== null) return yield* Effect.fail(new FulfillmentTaskTaken({ taskId }));
    const orders = yield* OrdersRepository;
    const stores = yield* StoresRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // The operator's roles again, held: a revocation racing this take either waits for it (and
        // then releases the task it took) or is seen here.
        yield* requireOperator(yield* stores.holdRolesOf(task.storeId, userId));
        const moved = yield* orders.moveFulfillmentTaskAssignee(taskId, null, userId, yield* now);
        if (moved === null) {
          const current = yield* orders.findFulfillmentTask(taskId);
          if (current?.status === "open" && current.assigneeId === userId) return current;
          return yield* Effect.fail(refused(current, taskId));
        }
        yield* recordTimeline({ id: task.orderId, storeId: task.storeId }, "fulfillment.taken", `staff:${userId}`, { task_id: taskId, assignee_id: userId });
        yield* publishTaskMove(moved, null, userId, `staff:${userId}`);
        return moved;
      }),
    );
  }).pipe(withSpan("commerce.takeFulfillmentTask"));

/**
 * Command: the store owner assigns an open task to a warehouse operator of the store (`assigneeId`)
 * or releases it (null), with a reason, written on the order's timeline with the assignee it had.
 * Under the order's lock, so a dispatch (which takes it) sees the assignment before or after.
 */
export const assignFulfillmentTask = (
  userId: string,
  taskId: FulfillmentTaskId,
  input: { readonly assigneeId: string | null; readonly reason: string },
) =>
  Effect.gen(function* () {
    const task = yield* loadTaskAs(userId, taskId, "owner");
    const reason = input.reason.trim();
    if (reason.length === 0 || input.reason.length > 1000) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "1 to 1000 characters: staff actions need a reason" }] }));
    }
    if (input.assigneeId !== null) {
      const roles = yield* (yield* StoresRepository).rolesOf(task.storeId, input.assigneeId);
      if (!roles.includes("warehouse_operator") && !roles.includes("owner")) {
        return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "user_id", message: "must be a warehouse operator of the store" }] }));
      }
    }
    const orders = yield* OrdersRepository;
    const stores = yield* StoresRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // The assignee's roles again, held before the order's lock (a revocation deletes the role
        // row, then locks orders to release tasks): a racing revocation waits or is seen.
        if (input.assigneeId !== null && !isOperator(yield* stores.holdRolesOf(task.storeId, input.assigneeId))) {
          return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "user_id", message: "must be a warehouse operator of the store" }] }));
        }
        yield* orders.lockOrder(task.orderId);
        const current = yield* orders.findFulfillmentTask(taskId);
        if (current === null || current.status !== "open") return yield* Effect.fail(new FulfillmentTaskClosed({ taskId }));
        if (current.assigneeId === input.assigneeId) return current;
        const moved = yield* orders.moveFulfillmentTaskAssignee(taskId, current.assigneeId, input.assigneeId, yield* now);
        // Only a take can move it meanwhile (it does not take the order's lock): the owner asks again.
        if (moved === null) return yield* Effect.fail(refused(yield* orders.findFulfillmentTask(taskId), taskId));
        yield* recordTimeline(
          { id: task.orderId, storeId: task.storeId },
          input.assigneeId === null ? "fulfillment.released" : "fulfillment.assigned",
          `staff:${userId}`,
          { task_id: taskId, assignee_id: input.assigneeId, previous_assignee_id: current.assigneeId, ...(yield* reasonNote({ id: task.orderId, storeId: task.storeId }, reason)) },
        );
        yield* publishTaskMove(moved, current.assigneeId, input.assigneeId, `staff:${userId}`);
        return moved;
      }),
    );
  }).pipe(withSpan("commerce.assignFulfillmentTask"));

/**
 * Releases every open task of the store assigned to `userId` (who is losing the warehouse role),
 * as the owner's release does: each under its order's lock, written on the order's timeline as
 * `fulfillment.released` with the previous assignee and `reason`, and published as
 * FulfillmentTaskAssigned with assignee null. Call inside the revocation's transaction; answers
 * how many tasks were released.
 */
export const releaseTasksOf = (storeId: StoreId, userId: string, actorId: string, reason: string) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    let released = 0;
    let afterId: string | null = null;
    for (;;) {
      const page: ReadonlyArray<FulfillmentTask> = yield* orders.fulfillmentTasks(storeId, { status: "open", assignedTo: userId, afterId, limit: 100 });
      for (const task of page) {
        yield* orders.lockOrder(task.orderId);
        const moved = yield* orders.moveFulfillmentTaskAssignee(task.id, userId, null, yield* now);
        // Done meanwhile (dispatched, cancellation requested): nothing left to release.
        if (moved === null) continue;
        yield* recordTimeline({ id: task.orderId, storeId: task.storeId }, "fulfillment.released", actorId, {
          task_id: task.id,
          assignee_id: null,
          previous_assignee_id: userId,
          ...(yield* reasonNote({ id: task.orderId, storeId: task.storeId }, reason)),
        });
        yield* publishTaskMove(moved, userId, null, actorId);
        released += 1;
      }
      if (page.length < 100) return released;
      afterId = page[page.length - 1]!.id;
    }
  }).pipe(withSpan("commerce.releaseTasksOf"));
