/** Identifier generation port: server-generated, time-ordered UUID v7 (docs/conventions.md). */
import { Context, Effect } from "effect";

export interface Ids {
  /** A fresh UUID v7, lowercase, hyphenated. */
  readonly next: Effect.Effect<string>;
}
export const Ids = Context.GenericTag<Ids>("domainkit/Ids");
