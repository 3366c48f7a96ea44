/**
 * Grant checks: whether an object store grant may still be used, asked when it is used. A grant
 * is a cached authorization decision (spec, Authentication 4: "trusted only for a very short
 * session epoch"); a module that issues one can name what it was issued under — a `GrantCondition`
 * — and answer later whether that still holds (the caller's access to the node under the ACL
 * epoch it carried, the upload session still open). A store that serves its grants itself (the
 * local blob store) signs the condition into the grant and asks this port before it moves a byte.
 * A store that presigns (S3) cannot ask: its grant's short life is the bound. With no check bound
 * for a condition's issuer, the grant is served as its signature and expiry allow.
 */
import { Context, type Effect } from "effect";
import type { DomainErrorShape } from "../core/kernel/Errors.js";

/** What a grant was issued under: the module that answers for it and the claim it reads back. */
export interface GrantCondition {
  /** The issuing module's name (the `issuer` of its GrantCheck), e.g. "files". */
  readonly issuer: string;
  /** Small and JSON-serializable: it is signed into the grant (readable by its holder, never editable). */
  readonly claim: Readonly<Record<string, string | number>>;
}

/**
 * Why a grant may no longer be used: a domain error (its `code` and `category` give the
 * problem+json answer), e.g. 403 `grant_revoked`, 409 `upload_not_open`.
 */
export type GrantRefusal = DomainErrorShape;

/** One module's check of the conditions it issued. */
export interface GrantCheck {
  readonly issuer: string;
  /** Succeeds when a grant issued under `claim` may still be used, else fails with the refusal. */
  readonly holds: (claim: GrantCondition["claim"]) => Effect.Effect<void, GrantRefusal>;
}

/** The checks of every mounted module, by issuer. */
export interface GrantChecks {
  readonly forIssuer: (issuer: string) => GrantCheck | undefined;
}
export const GrantChecks = Context.GenericTag<GrantChecks>("domainkit/GrantChecks");
