/**
 * Transition tables (docs/adding-a-module.md, Core): a machine is a table of (state, trigger) ->
 * next state; a trigger the table does not list for a state is an IllegalTransition, never a
 * silent no-op.
 */
import { Effect } from "effect";
import { IllegalTransition } from "./Errors.js";

/** A table of `state -> trigger -> next state`. */
export type TransitionTable<S extends string, T extends string> = { readonly [K in S]: Partial<Record<T, S>> };

/** The next state of `from` under `trigger`, or IllegalTransition. */
export const transition =
  <S extends string, T extends string>(machine: string, table: TransitionTable<S, T>) =>
  (from: S, trigger: T): Effect.Effect<S, IllegalTransition> => {
    const next = table[from][trigger];
    return next === undefined ? Effect.fail(new IllegalTransition({ machine, from, trigger, detail: `${machine}: cannot ${trigger} when ${from}` })) : Effect.succeed(next);
  };

/** The states `trigger` may start from (for conditional updates: `WHERE status IN (...)`). */
export const statesAllowing = <S extends string, T extends string>(table: TransitionTable<S, T>, trigger: T): ReadonlyArray<S> =>
  (Object.keys(table) as S[]).filter((s) => table[s][trigger] !== undefined);
