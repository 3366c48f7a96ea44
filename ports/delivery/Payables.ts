/** Participant payables grouped into payout batches (dl_payables, append-only; component keys unique). */
import { Context, type Effect } from "effect";
import type { Payable } from "../../core/delivery/model/Payable.js";

export interface Payables {
  /**
   * Records payables; one whose component key is already recorded is skipped (a redelivered
   * settlement records nothing twice). Answers how many were new.
   */
  readonly record: (payables: ReadonlyArray<Payable>) => Effect.Effect<number>;
  /** An order's payables, by component key. */
  readonly ofOrder: (orderId: string) => Effect.Effect<ReadonlyArray<Payable>>;
  /** Audits one operator's replay of a dead settlement job (dl_settlement_replays, append-only). */
  readonly recordReplay: (replay: {
    readonly id: string;
    readonly jobId: string;
    readonly orderId: string | null;
    readonly actorId: string;
    readonly reason: string;
    readonly at: Date;
  }) => Effect.Effect<void>;
}
export const Payables = Context.GenericTag<Payables>("domainkit/delivery/Payables");
