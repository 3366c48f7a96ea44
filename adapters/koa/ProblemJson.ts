/**
 * The wire format of every error answer: RFC 9457 problem details with a stable `code`
 * (docs/conventions.md, Errors), and the one function that writes it to a Koa response.
 */
import { STATUS_CODES } from "node:http";
import type { Context } from "koa";
import type { FieldError } from "../../core/kernel/Errors.js";

/** The media type of every error body. */
export const problemContentType = "application/problem+json";

/** An RFC 9457 problem body; `errors`, `current` and `diff` appear only for their errors. */
export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: string;
  readonly errors?: ReadonlyArray<FieldError>;
  readonly current?: unknown;
  readonly diff?: unknown;
  readonly [extension: string]: unknown;
}

/** A rendered error: status, problem body and the headers that belong to it (Retry-After, ...). */
export interface ProblemResponse {
  readonly status: number;
  readonly body: ProblemBody;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The problem `type` URI of a code. A URN rather than an http URL: it is stable and unique
 * without promising a page that nobody hosts.
 */
export const problemType = (code: string): string => `urn:domainkit:problem:${code}`;

/** The standard reason phrase of a status, used as the problem `title`. */
export const problemTitle = (status: number): string => STATUS_CODES[status] ?? "Error";

/** Builds a problem body from its parts. */
export const makeProblem = (
  status: number,
  code: string,
  detail: string,
  extensions: Readonly<Record<string, unknown>> = {},
): ProblemBody => ({
  // Extensions first so they can never overwrite the standard members.
  ...extensions,
  type: problemType(code),
  title: problemTitle(status),
  status,
  detail,
  code,
});

/** Writes a problem to the response with `Content-Type: application/problem+json`. */
export const renderProblem = (ctx: Context, problem: ProblemResponse): void => {
  ctx.status = problem.status;
  for (const [name, value] of Object.entries(problem.headers)) ctx.set(name, value);
  // Assigning an object makes Koa pick application/json, so the type is set after the body.
  ctx.body = problem.body;
  ctx.type = problemContentType;
};
