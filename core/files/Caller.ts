/**
 * The files core acts for users: a route's principal must be a user (merchant keys and payment
 * client secrets have no drive). Another kind of caller learns nothing: 404.
 */
import { Effect } from "effect";
import { NotFound } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";

/** The calling user's id, or NotFound for any other kind of principal. */
export const callerId = (principal: Principal): Effect.Effect<string, NotFound> =>
  principal.kind === "user" ? Effect.succeed(principal.userId) : Effect.fail(new NotFound({ resource: "node" }));
