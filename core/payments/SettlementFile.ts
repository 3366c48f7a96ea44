/**
 * The provider's daily settlement file: CSV with a header line and one row per settled capture
 * or refund, named by our stable reference. Parsing is strict (known header, plain identifier
 * fields, integer amounts): a file we cannot read fails instead of reconciling half of it.
 */
import { Effect } from "effect";
import { SettlementFileInvalid } from "./Errors.js";

/** The columns, in order. */
export const settlementColumns = ["type", "reference", "provider_payment_id", "amount_minor", "currency", "status", "settled_at"] as const;

/** One settled object as the provider reports it. */
export interface SettlementRow {
  readonly type: "payment" | "refund";
  readonly reference: string;
  readonly providerPaymentId: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly status: string;
  readonly settledAt: string;
}

const field = /^[A-Za-z0-9_:.\-]*$/;

/** Formats rows as a settlement file. */
export const formatSettlementFile = (rows: ReadonlyArray<SettlementRow>): string =>
  [
    settlementColumns.join(","),
    ...rows.map((r) => [r.type, r.reference, r.providerPaymentId, String(r.amountMinor), r.currency, r.status, r.settledAt].join(",")),
  ].join("\n") + "\n";

/** Parses a settlement file; SettlementFileInvalid names the first bad line. */
export const parseSettlementFile = (text: string): Effect.Effect<ReadonlyArray<SettlementRow>, SettlementFileInvalid> =>
  Effect.suspend(() => {
    const lines = text.split(/\r?\n/).filter((line) => line.length > 0);
    const bad = (line: number, why: string) => Effect.fail(new SettlementFileInvalid({ detail: `line ${line}: ${why}` }));
    if (lines[0] !== settlementColumns.join(",")) return bad(1, "unexpected header");
    const rows: SettlementRow[] = [];
    for (const [index, line] of lines.slice(1).entries()) {
      const cells = line.split(",");
      if (cells.length !== settlementColumns.length || !cells.every((c) => field.test(c))) return bad(index + 2, "malformed row");
      const [type, reference, providerPaymentId, amount, currency, status, settledAt] = cells as [string, string, string, string, string, string, string];
      if (type !== "payment" && type !== "refund") return bad(index + 2, "type must be payment or refund");
      if (!/^-?\d{1,15}$/.test(amount) || reference.length === 0) return bad(index + 2, "bad amount or reference");
      rows.push({ type, reference, providerPaymentId, amountMinor: Number(amount), currency, status, settledAt });
    }
    return Effect.succeed(rows);
  });
