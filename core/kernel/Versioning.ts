/**
 * Optimistic versioning (docs/conventions.md, Optimistic concurrency). A versioned resource carries
 * an integer `version` that every accepted change advances by one; an update names the version
 * it was based on and is refused when that is stale, answering with the current resource so
 * the client can merge or retry.
 */
import { Effect } from "effect";
import { NotFound, PreconditionRequired, VersionMismatch } from "./Errors.js";

/** Anything that carries an optimistic-concurrency version. */
export interface Versioned {
  readonly version: number;
}

/** The version a newly created resource starts at. */
export const initialVersion = 1;

/**
 * Succeeds with `current` when `expected` equals its version; fails PreconditionRequired when no
 * version was given and VersionMismatch carrying `current` (the 412 answer) when it is stale.
 */
export const expectVersion = <S extends Versioned>(
  current: S,
  expected: number | undefined,
): Effect.Effect<S, PreconditionRequired | VersionMismatch> =>
  expected === undefined
    ? Effect.fail(new PreconditionRequired({ detail: "this update requires If-Match with the expected version" }))
    : expected === current.version
      ? Effect.succeed(current)
      : Effect.fail(versionMismatch(current, expected));

/** The version after one more accepted change. */
export const advance = (version: number): number => version + 1;

/** A copy of `resource` with its version advanced by one. */
export const advanced = <S extends Versioned>(resource: S): S => ({ ...resource, version: advance(resource.version) });

/** The 412 "current state" answer: a VersionMismatch that carries the resource as it is now. */
export const versionMismatch = (current: Versioned, expected?: number): VersionMismatch =>
  new VersionMismatch({
    current,
    detail:
      expected === undefined
        ? `the resource is at version ${current.version}`
        : `expected version ${expected} but the resource is at version ${current.version}`,
  });

/**
 * Checks `expected`, then applies `change` and advances the version: the in-memory form of
 * `UPDATE ... SET version = version + 1 WHERE version = $expected`.
 */
export const updateVersioned = <S extends Versioned, E, R>(
  current: S,
  expected: number | undefined,
  change: (current: S) => Effect.Effect<S, E, R>,
): Effect.Effect<S, PreconditionRequired | VersionMismatch | E, R> =>
  Effect.flatMap(expectVersion(current, expected), change).pipe(Effect.map(advanced));

/**
 * After a conditional UPDATE matched no row: reloads the resource and answers 412 with it, or
 * 404 when it is gone. Repositories call this so the answer is built one way everywhere.
 */
export const staleWrite = <S extends Versioned, E, R>(
  resource: string,
  loadCurrent: Effect.Effect<S | undefined, E, R>,
  expected?: number,
): Effect.Effect<never, VersionMismatch | NotFound | E, R> =>
  Effect.flatMap(
    loadCurrent,
    (current): Effect.Effect<never, VersionMismatch | NotFound> =>
      current === undefined ? Effect.fail(new NotFound({ resource })) : Effect.fail(versionMismatch(current, expected)),
  );
