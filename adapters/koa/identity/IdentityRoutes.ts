/**
 * Routes of the identity module: the caller revokes every token it holds (sign out everywhere).
 * The reference server's JWTs carry the user's epoch; bumping it rejects all older tokens at
 * once and drops the user's live realtime subscriptions.
 */
import { Effect, Schema } from "effect";
import { revokeSessions } from "../../../core/identity/RevokeSessions.js";
import { Forbidden } from "../../../core/kernel/Errors.js";
import { defineRoute } from "../Route.js";

/** Body of the revocation answer: the epoch fresh tokens must carry. */
export const SessionsRevoked = Schema.Struct({ user_id: Schema.String, epoch: Schema.Int });

/** POST /v1/sessions/revoke — revokes every token of the caller. */
export const revokeSessionsRoute = defineRoute({
  method: "POST",
  path: "/v1/sessions/revoke",
  operationId: "revokeSessions",
  summary: "Revoke every token of the caller",
  description: "Advances the caller's token epoch: every token issued before stops working at once, on HTTP and realtime.",
  tags: ["identity"],
  auth: "required",
  responses: { 200: SessionsRevoked },
  problems: [401, 403],
  handler: ({ principal }) =>
    principal.kind !== "user"
      ? Effect.fail(new Forbidden({ detail: "Only a user can revoke its sessions." }))
      : revokeSessions(principal.userId).pipe(
          Effect.map((epoch) => ({ status: 200, body: { user_id: principal.userId, epoch } })),
        ),
});

/** Every route of the identity module. */
export const identityRoutes = [revokeSessionsRoute];
