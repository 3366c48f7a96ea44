/** Risk signals of an intent read from `payment_attempts`, `payment_disputes` and `payment_refunds`. */
import { Effect } from "effect";
import { sql } from "kysely";
import type { RiskSignals } from "../../../ports/payments/RiskSignals.js";
import { withSpan } from "../../../core/kernel/Span.js";
import { compiledOnce, runStatement, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Decline codes listed at most per intent. */
const maxDeclineCodes = 20;

/** Builds the RiskSignals port over `db`. */
export const makeSqlRiskSignals = (db: SqlDatabase): RiskSignals => {
  const counts = compiledOnce<{ intentId: string }>((ex, p) =>
    ex
      .selectNoFrom([
        ex.selectFrom("payment_attempts").select((eb) => eb.fn.countAll().as("n")).where("intent_id", "=", p("intentId")).as("attempts"),
        ex
          .selectFrom("payment_attempts")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("intent_id", "=", p("intentId"))
          .where("status", "=", sql.lit("declined"))
          .as("declined_attempts"),
        ex
          .selectFrom("payment_attempts")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("intent_id", "=", p("intentId"))
          .where("status", "=", sql.lit("unknown"))
          .as("unknown_outcomes"),
        ex.selectFrom("payment_disputes").select((eb) => eb.fn.countAll().as("n")).where("payment_intent_id", "=", p("intentId")).as("disputes"),
        ex
          .selectFrom("payment_disputes")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("payment_intent_id", "=", p("intentId"))
          .where("status", "=", sql.lit("lost"))
          .as("lost_disputes"),
        ex.selectFrom("payment_refunds").select((eb) => eb.fn.countAll().as("n")).where("intent_id", "=", p("intentId")).as("refunds"),
      ]),
  );
  const declineCodes = compiledOnce<{ intentId: string }>((ex, p) =>
    ex
      .selectFrom("payment_attempts")
      .select("decline_code")
      .distinct()
      .where("intent_id", "=", p("intentId"))
      .where("decline_code", "is not", null)
      .orderBy("decline_code")
      .limit(sql.lit(maxDeclineCodes)),
  );
  return {
    ofIntent: (intentId) =>
      Effect.all([runStatement(db, counts, { intentId }), runStatement(db, declineCodes, { intentId })]).pipe(
        Effect.map(([{ rows: [row] }, codes]) => ({
          attempts: toNumber(row?.attempts ?? 0),
          declinedAttempts: toNumber(row?.declined_attempts ?? 0),
          unknownOutcomes: toNumber(row?.unknown_outcomes ?? 0),
          declineCodes: codes.rows.map((r) => String(r.decline_code)),
          disputes: toNumber(row?.disputes ?? 0),
          lostDisputes: toNumber(row?.lost_disputes ?? 0),
          refunds: toNumber(row?.refunds ?? 0),
        })),
        withSpan("RiskSignals.ofIntent"),
      ),
  };
};
