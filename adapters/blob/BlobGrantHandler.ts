/**
 * The HTTP handler of the local blob store, mounted by the host on its own path (default
 * `/v1/blobs/:grant_token`), outside the application routes: `PUT` uploads the bytes a grant
 * binds, `GET` downloads the object a grant names (one `Range: bytes=` range answers 206, so an
 * interrupted download resumes). The grant is the only credential (no bearer
 * token), refusals are problem+json through the one error mapper, and the parameter's name
 * makes the access log mask the grant like any other token.
 *
 * A grant issued under a condition (GrantChecks.ts) is used only once its issuer, asked through
 * the host's GrantChecks port, says the condition still holds: before a byte of an upload is
 * read, before a byte of a download is sent. A host with no GrantChecks, or no check of that
 * issuer, serves it as its signature and expiry allow.
 */
import { createReadStream } from "node:fs";
import type Router from "@koa/router";
import { Cause, Effect, Exit, Option } from "effect";
import type { Context } from "koa";
import { respondWithError } from "../koa/ErrorHandling.js";
import { hostOf, type HostServices } from "../koa/EffectHandler.js";
import { BlobNotFound, SizeMismatch, type GrantClaims } from "./BlobGrant.js";
import { attachmentDisposition } from "./ContentDisposition.js";
import { isLocalBlobStore, type LocalBlobStore } from "./LocalBlobStore.js";
import { GrantChecks } from "../../ports/GrantChecks.js";
import type { ObjectStore } from "../../ports/ObjectStore.js";

const fail = (ctx: Context, error: unknown): void => respondWithError(ctx, error, ctx.state.domainkitHost === undefined ? undefined : hostOf(ctx).logger);

/**
 * Why the grant's condition no longer holds, or null when it holds or nothing answers for it.
 * A check that could not run (a defect) is answered as the error it is (500): a grant is never
 * honoured on a check that did not happen.
 */
const conditionRefusal = async (ctx: Context, claims: GrantClaims): Promise<unknown> => {
  const condition = claims.c;
  const host = ctx.state.domainkitHost as HostServices | undefined;
  if (condition === undefined || host === undefined) return null;
  const exit = await host.runtime.runPromiseExit(
    Effect.flatMap(Effect.serviceOption(GrantChecks), (checks) => {
      const check = Option.isSome(checks) ? checks.value.forIssuer(condition.issuer) : undefined;
      return check === undefined ? Effect.void : check.holds(condition.claim);
    }),
  );
  if (Exit.isSuccess(exit)) return null;
  return Option.getOrElse(Cause.failureOption(exit.cause), () => Cause.squash(exit.cause));
};


/** PUT: receives exactly the granted bytes. */
const upload = (store: LocalBlobStore) => async (ctx: Context): Promise<void> => {
  const claims = store.verify(String(ctx.params.grant_token ?? ""), "PUT");
  if (claims instanceof Error) return fail(ctx, claims);
  const declared = ctx.get("Content-Length");
  if (declared !== "" && Number(declared) !== claims.s) {
    // Refused before reading a byte; the connection closes so the unread body is not parsed as a request.
    ctx.set("Connection", "close");
    const tooLarge = Number(declared) > claims.s!;
    return fail(ctx, new SizeMismatch({ tooLarge, detail: `The grant allows exactly ${claims.s} bytes, not ${declared}.` }));
  }
  const refusal = await conditionRefusal(ctx, claims);
  if (refusal !== null) {
    ctx.set("Connection", "close"); // the body is left unread, as above
    return fail(ctx, refusal);
  }
  // Asked again once the bytes arrived: the condition may have stopped holding while they streamed
  // (an upload session settled meanwhile); then they are not kept.
  const beforeKeeping = async (): Promise<Error | null> => {
    const late = await conditionRefusal(ctx, claims);
    return late === null ? null : late instanceof Error ? late : new Error(String(late));
  };
  const outcome = await store.receive(claims, ctx.req, ctx.get("Content-Type") || undefined, { beforeKeeping });
  if (outcome instanceof Error) {
    ctx.set("Connection", "close");
    return fail(ctx, outcome);
  }
  ctx.status = 201;
  // An ETag as object stores answer a PUT (the client reports it for the part; here, the SHA-256).
  ctx.set("ETag", `"${outcome.sha256}"`);
  ctx.body = { key: outcome.key, size: outcome.size, sha256: outcome.sha256 };
};

/**
 * The one `bytes=start-end` (or `bytes=-suffix`) range of a `Range` header within `size` (RFC
 * 9110 §14): null when there is none to honour (absent, several ranges, another unit: the whole
 * object is sent), "unsatisfiable" when it lies outside the object.
 */
export const byteRange = (header: string, size: number): { readonly start: number; readonly end: number } | null | "unsatisfiable" => {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null || (match[1] === "" && match[2] === "")) return null;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    return suffix === 0 || size === 0 ? "unsatisfiable" : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  return start >= size || start > end ? "unsatisfiable" : { start, end };
};

/** GET: streams the granted object, or the one range asked for. */
const download = (store: LocalBlobStore) => async (ctx: Context): Promise<void> => {
  const claims = store.verify(String(ctx.params.grant_token ?? ""), "GET");
  if (claims instanceof Error) return fail(ctx, claims);
  const refusal = await conditionRefusal(ctx, claims);
  if (refusal !== null) return fail(ctx, refusal);
  const file = await store.fileOf(claims.k);
  if (file === null) return fail(ctx, new BlobNotFound({ detail: "The object is no longer stored." }));
  ctx.set("Accept-Ranges", "bytes");
  const range = ctx.get("Range") === "" ? null : byteRange(ctx.get("Range"), file.size);
  if (range === "unsatisfiable") {
    ctx.status = 416;
    ctx.set("Content-Range", `bytes */${file.size}`);
    return;
  }
  ctx.status = range === null ? 200 : 206;
  ctx.set("Content-Length", String(range === null ? file.size : range.end - range.start + 1));
  if (range !== null) ctx.set("Content-Range", `bytes ${range.start}-${range.end}/${file.size}`);
  ctx.set("Content-Disposition", attachmentDisposition(claims.f ?? "download"));
  ctx.set("X-Content-Type-Options", "nosniff");
  ctx.set("Cache-Control", "private, no-store");
  ctx.body = range === null ? createReadStream(file.path) : createReadStream(file.path, { start: range.start, end: range.end });
  // Set after the body: Koa would otherwise pick octet-stream itself (same here, but explicit).
  ctx.type = claims.t;
};

/**
 * Mounts the grant handler on `router` at `<store.mountPath>/:grant_token` (PUT and GET) for the
 * local store; another store (S3) serves its grants itself, so nothing is mounted for it.
 */
export const mountBlobGrantHandler = (router: Router, store: ObjectStore): void => {
  if (!isLocalBlobStore(store)) return;
  router.put(`${store.mountPath}/:grant_token`, upload(store));
  router.get(`${store.mountPath}/:grant_token`, download(store));
};
