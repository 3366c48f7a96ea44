/**
 * Optimistic concurrency over HTTP (docs/conventions.md): versioned resources answer with
 * `ETag: "<version>"`; updates send `If-Match` with that version (a bare number or a weak
 * validator is accepted too). A resource whose cached answer also depends on something else (a
 * file node's metadata on its drive's ACL epoch) answers `"<version>.<qualifier>"`; sent back in
 * `If-Match`, its version is what the update is conditional on. A missing `If-Match` where one is
 * required answers 428.
 */
import { PreconditionRequired } from "../../core/kernel/Errors.js";
import { InvalidIfMatch } from "./HttpErrors.js";

/** The ETag header value of a version: `"3"`. */
export const etag = (version: number): string => `"${version}"`;

/**
 * The ETag of an answer that also depends on something besides the version (at most 15 digits,
 * so `parseIfMatch` reads the version back): `"<version>.<qualifier>"`, weak `W/"…"` when the
 * qualifier is a digest of the answer rather than a version of what it depends on.
 */
export const qualifiedEtag = (version: number, qualifier: number, options: { readonly weak?: boolean } = {}): string =>
  `${options.weak === true ? "W/" : ""}"${version}.${qualifier}"`;

const versionTag = /^(?:W\/)?"(\d{1,15})(?:\.\d{1,15})?"$|^(\d{1,15})$/;

/**
 * The version in an `If-Match` header (`"3"`, `3`, `W/"3"` or `"3.7"`), or undefined when the header is
 * absent. Anything else (a list, `*`, garbage) throws `InvalidIfMatch` (400 invalid_if_match).
 */
export const parseIfMatch = (header: string | undefined): number | undefined => {
  if (header === undefined || header.trim() === "") return undefined;
  const match = versionTag.exec(header.trim());
  const digits = match?.[1] ?? match?.[2];
  if (digits === undefined) throw new InvalidIfMatch({});
  return Number(digits);
};

/** Like `parseIfMatch`, but a missing header throws `PreconditionRequired` (428). */
export const requireIfMatch = (header: string | undefined): number => {
  const version = parseIfMatch(header);
  if (version === undefined) throw new PreconditionRequired({});
  return version;
};
