/**
 * Step-up authentication for sensitive support actions (spec: Authentication 6): the caller's
 * token must carry an `auth_time` (OpenID Connect) within DELIVERY_STEP_UP_SECONDS of now, else
 * 403 step_up_required with the maximum age. A sign-in time more than a minute in the future is
 * refused too (clock skew beyond that is a forged or broken token).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import type { Principal } from "../../ports/Principal.js";
import { DeliverySettings } from "../../ports/delivery/DeliverySettings.js";
import { StepUpRequired } from "./Errors.js";

/** Succeeds when the caller signed in recently enough for `action` (e.g. "a reassignment"). */
export const requireStepUp = (principal: Principal, action: string): Effect.Effect<void, StepUpRequired, DeliverySettings> =>
  Effect.gen(function* () {
    const { stepUpMaxAgeSeconds } = yield* DeliverySettings;
    const authTime = principal.kind === "user" ? principal.authTime : undefined;
    const nowSeconds = (yield* now).getTime() / 1000;
    if (authTime === undefined || nowSeconds - authTime > stepUpMaxAgeSeconds || authTime > nowSeconds + 60) {
      return yield* Effect.fail(
        new StepUpRequired({ maxAgeSeconds: stepUpMaxAgeSeconds, detail: `Sign in again: ${action} needs a sign-in within the last ${stepUpMaxAgeSeconds} seconds.` }),
      );
    }
  });
