/**
 * The ports a host binds, each identified in the inversify container by its Effect tag's key,
 * so a host can rebind any one of them (`container.rebind(IdempotencyStore.key)`) before the
 * runtime is built.
 */
import { Context } from "effect";
import { Ids } from "../ports/Ids.js";
import { Transactions } from "../ports/Transactions.js";
import { UserEpochs } from "../ports/UserEpochs.js";
import { Outbox, OutboxRelayStore } from "../ports/Outbox.js";
import { Inbox } from "../ports/Inbox.js";
import { Jobs, JobQueue } from "../ports/Jobs.js";
import { IdempotencyStore } from "../ports/IdempotencyStore.js";
import { ChannelAuthorizers, ChannelLog, RealtimeBus } from "../ports/Realtime.js";
import { WorkSignals } from "../ports/WorkSignals.js";

/** Every shared port tag the reference composition provides. */
export const sharedPortTags = [
  Ids,
  Transactions,
  UserEpochs,
  Outbox,
  OutboxRelayStore,
  Inbox,
  Jobs,
  JobQueue,
  IdempotencyStore,
  ChannelLog,
  WorkSignals,
  RealtimeBus,
  ChannelAuthorizers,
] as const;

/** The services the shared ports stand for. */
export type SharedPorts =
  | Ids
  | Transactions
  | UserEpochs
  | Outbox
  | OutboxRelayStore
  | Inbox
  | Jobs
  | JobQueue
  | IdempotencyStore
  | ChannelLog
  | WorkSignals
  | RealtimeBus
  | ChannelAuthorizers;

/** Any Effect tag; the container identifies its binding by `tag.key`. */
export type AnyTag = Context.Tag<any, any>;
