/**
 * Authentication at the websocket upgrade: the token comes from `Authorization: Bearer` or, for
 * browsers that cannot set headers on a websocket, `?access_token=`. A refusal is a plain HTTP
 * 401 with a problem+json body, written before any websocket exists. Tokens are never logged.
 */
import type { IncomingMessage } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { Principal } from "../../ports/Principal.js";

/**
 * A verified principal, with the epoch its token carried (users only) for revocation checks, and
 * when the token expires (ms since 1970): the connection closes then.
 */
export type AuthenticatedPrincipal = Principal & { readonly epoch?: number; readonly expiresAtMs?: number };

/**
 * Verifies a token; resolves null (or throws `Unauthorized`, whose code is kept) for a token
 * that is invalid, expired, revoked or badly signed. Without an `epoch` on the principal, the
 * user's epoch at connect time is taken: the token was just accepted, so it is not older.
 */
export type Authenticate = (token: string) => Promise<AuthenticatedPrincipal | null>;

/** The bearer token of an upgrade request, or null when it carries none. */
export const tokenFrom = (request: IncomingMessage, url: URL): string | null => {
  const header = request.headers.authorization;
  if (typeof header === "string") {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match?.[1]) return match[1];
  }
  const query = url.searchParams.get("access_token");
  return query !== null && query.length > 0 ? query : null;
};

/** Answers the upgrade request with an HTTP error and a problem+json body, then closes the socket. */
export const rejectUpgrade = (socket: Duplex, status: number, code: string, detail: string, retryAfterSeconds?: number): void => {
  if (socket.destroyed) return;
  const title = STATUS_CODES[status] ?? "Error";
  const body = JSON.stringify({ type: `urn:domainkit:problem:${code}`, title, status, detail, code });
  const headers = [
    `HTTP/1.1 ${status} ${title}`,
    "Content-Type: application/problem+json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    ...(status === 401 ? ['WWW-Authenticate: Bearer realm="domainkit"'] : []),
    ...(retryAfterSeconds !== undefined ? [`Retry-After: ${retryAfterSeconds}`] : []),
  ];
  socket.end(`${headers.join("\r\n")}\r\n\r\n${body}`);
};
