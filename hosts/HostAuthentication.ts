/**
 * The reference server's authentication: one `Authorization: Bearer` header, several credential
 * kinds. A module may contribute a bearer authenticator for its own credentials (payments: merchant
 * API keys); a token no module claims is verified as a user JWT.
 */
import { Cause, Exit } from "effect";
import type { Middleware } from "koa";
import { bearerToken, jwtAuthentication, type TokenVerifier } from "../adapters/koa/Authentication.js";
import type { ModuleDefinition } from "./ModuleDefinition.js";
import type { HostServices } from "./PortBindings.js";
import { epochLookup, type DomainRuntime } from "./Runtime.js";

/** Bearer authentication for every module of a host, JWT for users by default. */
export const hostAuthentication = <P>(options: {
  /** How user JWTs are verified: the HS256 secret, or a whole verification (public key, issuer, audience). */
  readonly jwtSecret: TokenVerifier;
  readonly runtime: DomainRuntime<P>;
  readonly modules: ReadonlyArray<ModuleDefinition<never, HostServices<P>>>;
}): Middleware => {
  const jwt = jwtAuthentication({ secret: options.jwtSecret, userEpochs: epochLookup(options.runtime) });
  const authenticators = options.modules.flatMap((m) => m.bearerAuthenticators ?? []);
  if (authenticators.length === 0) return jwt;
  return async (ctx, next) => {
    const token = bearerToken(ctx);
    const claimed = token === undefined ? undefined : authenticators.find((a) => a.matches(token));
    if (token === undefined || claimed === undefined) return jwt(ctx, next);
    const exit = await options.runtime.runPromiseExit(claimed.authenticate(token));
    // A typed failure (Unauthorized) is thrown as itself so the one error mapper answers it.
    if (Exit.isFailure(exit)) throw Cause.squash(exit.cause);
    ctx.state.principal = exit.value;
    await next();
  };
};
