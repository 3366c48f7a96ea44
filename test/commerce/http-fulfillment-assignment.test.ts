/**
 * Spec (Authentication 2: "Warehouse operator (assigned fulfillment tasks and stock
 * adjustments)"). A warehouse operator takes an open task (409 fulfillment_task_taken when another
 * operator holds it), lists the tasks assigned to them and the unassigned ones still to take, in
 * keyset pages, and dispatches only an order whose task is theirs (403 otherwise); the store owner
 * assigns or releases a task with a reason, written on the order's timeline; owners keep
 * dispatching any order. SQLite and Postgres.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, eventually, freshKey, startCommerceServer } from "./http-support.js";

type Task = { id: string; order_id: string; status: string; assignee_id: string | null };

t.test("warehouse operators see their assigned fulfillment tasks and the unassigned ones, take one at a time, and dispatch only their own", (t) =>
  forEachDialectConfig(t, "fulfillment assignment", async (t, _config, dialect) => {
    const { call, user, setupStore, cartWith } = await startCommerceServer(t, dialect);
    const { owner, storeId, locationId, variantId } = await setupStore({ stock: 10 });
    const ada = await user();
    const bob = await user();
    const stranger = await user();
    for (const op of [ada, bob]) {
      t.equal((await call("POST", `/v1/stores/${storeId}/staff`, { token: owner.token, body: { user_id: op.id, role: "warehouse_operator" } })).status, 201);
    }
    const buyer = await user();
    const orderIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const placed = await call("POST", "/v1/orders", { token: buyer.token, key: freshKey(), body: checkoutBody(await cartWith(buyer, storeId, variantId, 1)) });
      orderIds.push(String(placed.body.id));
    }
    const all = await eventually(
      () => call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: owner.token }),
      (a) => (a.body.data as unknown[] | undefined)?.length === 3,
    );
    const tasks = all.body.data as Task[];
    const taskOf = (orderId: string) => tasks.find((task) => task.order_id === orderId)!;
    const [first, second, third] = orderIds.map(taskOf) as [Task, Task, Task];
    t.same(tasks.map((task) => task.assignee_id), [null, null, null], "a new task is unassigned");

    // Paged with the kernel cursor, oldest first; unassigned tasks are listed for taking.
    const page1 = await call("GET", `/v1/stores/${storeId}/fulfillment-tasks?limit=2`, { token: ada.token });
    t.equal(page1.status, 200);
    t.same((page1.body.data as Task[]).map((task) => task.id), tasks.slice(0, 2).map((task) => task.id));
    t.type(page1.body.next_cursor, "string");
    const page2 = await call("GET", `/v1/stores/${storeId}/fulfillment-tasks?limit=2&cursor=${encodeURIComponent(String(page1.body.next_cursor))}`, { token: ada.token });
    t.same((page2.body.data as Task[]).map((task) => task.id), [tasks[2]!.id], "the cursor continues after the last row");
    t.equal(page2.body.next_cursor, null);
    t.match(await call("GET", `/v1/stores/${storeId}/fulfillment-tasks?cursor=garbage`, { token: ada.token }), { status: 400, body: { code: "invalid_cursor" } });

    const dispatch = (token: string, orderId: string, tracking: string) =>
      call("POST", `/v1/orders/${orderId}/shipments`, { token, body: { location_id: locationId, carrier: "DHL", tracking_number: tracking } });
    t.match(await dispatch(ada.token, first.order_id, "T-1"), { status: 403, body: { code: "fulfillment_task_not_assigned" } }, "an unassigned order is not dispatched by an operator");

    // Take: one holder; the holder taking again is answered the same task.
    t.match(await call("POST", `/v1/fulfillment-tasks/${first.id}/take`, { token: ada.token }), { status: 200, body: { id: first.id, assignee_id: ada.id } });
    t.match(await call("POST", `/v1/fulfillment-tasks/${first.id}/take`, { token: bob.token }), { status: 409, body: { code: "fulfillment_task_taken" } });
    t.match(await call("POST", `/v1/fulfillment-tasks/${first.id}/take`, { token: ada.token }), { status: 200, body: { assignee_id: ada.id } });
    t.match(await call("POST", `/v1/fulfillment-tasks/${first.id}/take`, { token: stranger.token }), { status: 404 }, "a non-staff user learns nothing");
    t.match(await call("POST", `/v1/fulfillment-tasks/unknown-task/take`, { token: ada.token }), { status: 404 });

    // Bob no longer sees Ada's task; Ada sees hers and the unassigned ones.
    const listed = async (token: string) => ((await call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token })).body.data as Task[]).map((task) => task.id);
    t.same(await listed(bob.token), [second.id, third.id], "another operator's task is not listed");
    t.same(await listed(ada.token), [first.id, second.id, third.id]);

    // The owner assigns and releases with a reason (audited on the order's timeline); operators may not.
    t.match(await call("POST", `/v1/fulfillment-tasks/${second.id}/assign`, { token: owner.token, body: { user_id: bob.id } }), { status: 422 }, "a reason is required");
    t.match(await call("POST", `/v1/fulfillment-tasks/${second.id}/assign`, { token: owner.token, body: { user_id: bob.id, reason: " " } }), { status: 422 });
    t.match(await call("POST", `/v1/fulfillment-tasks/${second.id}/assign`, { token: owner.token, body: { user_id: stranger.id, reason: "cover" } }), {
      status: 422,
      body: { code: "validation_failed" },
    }, "only a warehouse operator of the store is assigned");
    t.match(await call("POST", `/v1/fulfillment-tasks/${second.id}/assign`, { token: ada.token, body: { user_id: ada.id, reason: "mine" } }), { status: 403 });
    t.match(await call("POST", `/v1/fulfillment-tasks/${second.id}/assign`, { token: owner.token, body: { user_id: bob.id, reason: "bob packs mugs" } }), {
      status: 200,
      body: { id: second.id, assignee_id: bob.id },
    });
    t.same(await listed(ada.token), [first.id, third.id]);
    t.match(await call("POST", `/v1/fulfillment-tasks/${first.id}/release`, { token: bob.token, body: { reason: "x" } }), { status: 403 });
    t.match(await call("POST", `/v1/fulfillment-tasks/${first.id}/release`, { token: owner.token, body: {} }), { status: 422 });
    t.match(await call("POST", `/v1/fulfillment-tasks/${first.id}/release`, { token: owner.token, body: { reason: "ada is off sick" } }), {
      status: 200,
      body: { id: first.id, assignee_id: null },
    });
    const timeline = (await call("GET", `/v1/orders/${first.order_id}`, { token: owner.token })).body.timeline as Array<{ kind: string; actor_id: string; detail: Record<string, unknown> }>;
    t.match(
      timeline.filter((e) => e.kind.startsWith("fulfillment.")),
      [
        { kind: "fulfillment.taken", actor_id: `staff:${ada.id}`, detail: { task_id: first.id, assignee_id: ada.id } },
        { kind: "fulfillment.released", actor_id: `staff:${owner.id}`, detail: { task_id: first.id, previous_assignee_id: ada.id, reason: "ada is off sick" } },
      ],
      "taking, assigning and releasing are on the order's timeline",
    );

    // Dispatch: the assignee may; another operator may not; the owner dispatches any order.
    t.match(await dispatch(ada.token, second.order_id, "T-2"), { status: 403, body: { code: "fulfillment_task_not_assigned" } });
    t.match(await dispatch(bob.token, second.order_id, "T-2"), { status: 201 });
    t.match(await call("POST", `/v1/fulfillment-tasks/${second.id}/take`, { token: ada.token }), { status: 409, body: { code: "fulfillment_task_closed" } }, "a done task is not taken");
    t.match(await dispatch(owner.token, third.order_id, "T-3"), { status: 201 }, "owners keep dispatching");
    t.same(await listed(bob.token), [first.id], "done tasks leave the list");
  }),
);
