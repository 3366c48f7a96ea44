/**
 * Routing of fulfillment task events to the operators' own channels
 * (`shop-fulfillment:<store id>:<user id>`), so that an operator hears what their HTTP task list
 * shows: their own tasks and the unassigned ones, never another operator's. Read in the module's
 * realtime consumer's transaction, once per event:
 * - FulfillmentTaskStatusChanged: the task's holder as read then (a done task keeps the holder it
 *   closed with), or, unassigned, every current operator of the store;
 * - FulfillmentTaskAssigned: the assignee it names, or every operator when released;
 * - FulfillmentTaskLeftList: the operator whose list the task left, or every operator when it left
 *   the unassigned ones.
 * Only current warehouse operators and owners of the store are told (owners hold every role).
 */
import { Effect, Option, Schema } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { StoresRepository } from "../../ports/commerce/StoresRepository.js";
import { fulfillmentChannel } from "./ChannelAccess.js";
import { FulfillmentTaskAssigned, FulfillmentTaskLeftList, FulfillmentTaskStatusChanged } from "./Events.js";
import type { StaffRoleName } from "./model/StaffRole.js";

/** The inbox name of the consumer that routes task events to the operators' channels. */
export const fulfillmentChannelsConsumerName = "commerce.realtime";

const taskEventTypes = new Set<string>([FulfillmentTaskAssigned.type, FulfillmentTaskStatusChanged.type, FulfillmentTaskLeftList.type]);

/** Whether the event is a task event the operators' channels carry. */
export const isFulfillmentTaskEvent = (event: EventEnvelope): boolean => taskEventTypes.has(event.type);

/** The roles that operate fulfillment (owners hold every role). */
const operatorRoles: ReadonlyArray<StaffRoleName> = ["owner", "warehouse_operator"];

const isOperatorRole = (role: StaffRoleName): boolean => operatorRoles.includes(role);

/** Users read per statement. */
const operatorsPage = 200;

/** The store's current warehouse operators and owners: each role's holders, in pages, nobody else's rows. */
const operatorsOf = (storeId: string) =>
  Effect.gen(function* () {
    const stores = yield* StoresRepository;
    const operators = new Set<string>();
    for (const role of operatorRoles) {
      let afterUserId: string | undefined;
      for (;;) {
        const page = yield* stores.holdersOfRole({ storeId, role, afterUserId, limit: operatorsPage });
        for (const userId of page) operators.add(userId);
        if (page.length < operatorsPage) break;
        afterUserId = page[page.length - 1];
      }
    }
    return [...operators];
  });

/** `userId` if they are a warehouse operator or owner of the store now. */
const ifOperator = (storeId: string, userId: string) =>
  Effect.map(Effect.flatMap(StoresRepository, (stores) => stores.rolesOf(storeId, userId)), (roles) => (roles.some(isOperatorRole) ? [userId] : []));

/** The operators told: `holder`'s channel when the task has one, else every operator's. */
const toHolderOrEveryOperator = (storeId: string, holder: string | null) =>
  Effect.map(holder === null ? operatorsOf(storeId) : ifOperator(storeId, holder), (users) => users.map((userId) => fulfillmentChannel(storeId, userId)));

const statusOf = Schema.decodeUnknownOption(FulfillmentTaskStatusChanged.data);
const moveOf = Schema.decodeUnknownOption(FulfillmentTaskAssigned.data);
const leftOf = Schema.decodeUnknownOption(FulfillmentTaskLeftList.data);

/** The operators' channels of one task event; none for other events. */
export const fulfillmentOperatorChannels = (event: EventEnvelope): Effect.Effect<ReadonlyArray<string>, never, OrdersRepository | StoresRepository> =>
  Effect.gen(function* () {
    const storeId = event.tenant_id;
    if (event.type === FulfillmentTaskStatusChanged.type) {
      const data = Option.getOrNull(statusOf(event.data));
      const task = data === null ? null : yield* (yield* OrdersRepository).findFulfillmentTask(data.task_id);
      return task === null ? [] : yield* toHolderOrEveryOperator(storeId, task.assigneeId);
    }
    if (event.type === FulfillmentTaskAssigned.type) {
      const data = Option.getOrNull(moveOf(event.data));
      return data === null ? [] : yield* toHolderOrEveryOperator(storeId, data.assignee_id);
    }
    if (event.type === FulfillmentTaskLeftList.type) {
      const data = Option.getOrNull(leftOf(event.data));
      return data === null ? [] : yield* toHolderOrEveryOperator(storeId, data.operator_id);
    }
    return [];
  });
