/**
 * Routing of fulfillment task events to the operators' channels, so that an operator hears what
 * their HTTP task list shows (their own tasks and the unassigned ones), never another operator's
 * tasks: a task held by someone goes to its holder's own channel (`shop-fulfillment:<store id>:<user id>`),
 * an unassigned one to the store's pool (`shop-fulfillment:<store id>`), which every warehouse
 * operator and owner of the store may follow. Read in the module's realtime consumer's
 * transaction, once per event:
 * - FulfillmentTaskStatusChanged: the task's holder as read then (a done task keeps the holder it
 *   closed with), or, unassigned, the pool;
 * - FulfillmentTaskAssigned: the assignee it names, or the pool when released;
 * - FulfillmentTaskLeftList: the operator whose list the task left, or the pool when it left the
 *   unassigned ones.
 * A holder is told only while a current warehouse operator or owner of the store. An event about an
 * unassigned task is one message whatever the number of operators (before: one per operator).
 */
import { Effect, Option, Schema } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { StoresRepository } from "../../ports/commerce/StoresRepository.js";
import { fulfillmentChannel, fulfillmentPoolChannel } from "./ChannelAccess.js";
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

/** `userId` if they are a warehouse operator or owner of the store now. */
const ifOperator = (storeId: string, userId: string) =>
  Effect.map(Effect.flatMap(StoresRepository, (stores) => stores.rolesOf(storeId, userId)), (roles) => (roles.some(isOperatorRole) ? [userId] : []));

/** The channels told: `holder`'s own when the task has one (while an operator), else the store's pool. */
const toHolderOrPool = (storeId: string, holder: string | null): Effect.Effect<ReadonlyArray<string>, never, StoresRepository> =>
  holder === null
    ? Effect.succeed([fulfillmentPoolChannel(storeId)])
    : Effect.map(ifOperator(storeId, holder), (users) => users.map((userId) => fulfillmentChannel(storeId, userId)));

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
      return task === null ? [] : yield* toHolderOrPool(storeId, task.assigneeId);
    }
    if (event.type === FulfillmentTaskAssigned.type) {
      const data = Option.getOrNull(moveOf(event.data));
      return data === null ? [] : yield* toHolderOrPool(storeId, data.assignee_id);
    }
    if (event.type === FulfillmentTaskLeftList.type) {
      const data = Option.getOrNull(leftOf(event.data));
      return data === null ? [] : yield* toHolderOrPool(storeId, data.operator_id);
    }
    return [];
  });
