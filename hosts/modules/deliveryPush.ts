/**
 * The development push adapter of the delivery module: every push becomes one log line
 * (recipient, kind, title and the ids it carries), so a developer sees what a device would
 * receive. A host with a real push service binds its own PushNotifier (`pushNotifier` option).
 */
import { Effect } from "effect";
import type { PushNotifier } from "../../ports/delivery/PushNotifier.js";

/** Logs each push at info level (annotated `push_id`, `recipient`, `kind`). */
export const makeDevelopmentPushNotifier = (): PushNotifier => ({
  send: (push) =>
    Effect.logInfo(`push to ${push.recipientUserId}: ${push.title} — ${push.body}`).pipe(
      Effect.annotateLogs({ push_id: push.id, recipient: push.recipientUserId, kind: push.kind, ...push.data }),
    ),
});
