/**
 * The payment module's CLI commands (`domainkit merchant ...`, `domainkit settlement ...`,
 * `domainkit payments-minimize-inbox`): the CLI dispatches to them by name and runs them on the
 * host runtime; their usage lines join the CLI's help text.
 */
import { Effect, Either } from "effect";
import { createMerchant } from "../../core/payments/Merchants.js";
import { reconcileSettlementDay } from "../../core/payments/SettlementReconciliation.js";
import { minimizeProviderEventInbox } from "../../core/payments/MinimizeStoredProviderEvents.js";
import { toWire } from "../../core/kernel/Wire.js";
import { ReconciliationException } from "../../core/payments/model/ReconciliationException.js";
import { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { CommandUsageError, type ModuleCommand } from "../ModuleDefinition.js";

const usageError = (message: string) => Either.left(new CommandUsageError({ message }));

const positiveInteger = (name: string, value: string | boolean | undefined): Either.Either<number, CommandUsageError> => {
  const n = value === undefined ? 100 : Number(value);
  return Number.isInteger(n) && n > 0 ? Either.right(n) : usageError(`--${name} must be a positive integer`);
};

const positiveLimit = (value: string | boolean | undefined) => positiveInteger("limit", value);

// Rows per transaction of the inbox minimization: bounded, so no run holds a long transaction.
const maxMinimizeBatch = 1000;

const calendarDay = (value: string | boolean | undefined): Either.Either<string, CommandUsageError> => {
  const day = typeof value === "string" ? value : "";
  const parsed = new Date(`${day}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== day) {
    return usageError("--day YYYY-MM-DD (a calendar date) is required");
  }
  return Either.right(day);
};

const json = (value: unknown, pretty = false) => ({ stdout: `${JSON.stringify(value, null, pretty ? 2 : undefined)}\n` });

const merchantCommand = {
  name: "merchant",
  usage: `  merchant create --name <name> --scopes <scope,...>
                                 create a payments merchant and print {merchant_id, api_key}
                                 (the key is shown once; scopes: payments:write,refunds:write,ledger:read)`,
  options: { name: { type: "string" }, scopes: { type: "string" } },
  prepare: ({ positionals, values }) => {
    if (positionals[0] !== "create") return usageError("usage: merchant create --name <name> --scopes <scope,...>");
    const name = values.name;
    if (typeof name !== "string" || name.trim() === "") return usageError("--name is required");
    const scopes = (typeof values.scopes === "string" ? values.scopes : "payments:write,refunds:write,ledger:read")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    return Either.right(
      createMerchant({ name, scopes, actor: "system:cli" }).pipe(Effect.map((created) => json({ merchant_id: created.merchant.id, api_key: created.apiKey }))),
    );
  },
} satisfies ModuleCommand<unknown>;

const settlementUsage = "usage: settlement reconcile --day YYYY-MM-DD | settlement exceptions [--status open|resolved]";

const settlementCommand = {
  name: "settlement",
  usage: `  settlement reconcile --day YYYY-MM-DD
                                 reconcile the provider's settlement file of that UTC day
                                 (idempotent) and print {day, rows, mismatches, mismatches_opened}
  settlement exceptions [--status open|resolved] [--limit n]
                                 list reconciliation exceptions of every merchant, newest first (JSON)`,
  options: { day: { type: "string" }, status: { type: "string" }, limit: { type: "string" } },
  prepare: ({ positionals, values }) => {
    if (positionals[0] === "reconcile") {
      return Either.map(calendarDay(values.day), (day) =>
        reconcileSettlementDay(day).pipe(
          Effect.map((summary) => json({ day: summary.day, rows: summary.rows, mismatches: summary.mismatches, mismatches_opened: summary.opened })),
        ),
      );
    }
    if (positionals[0] === "exceptions") {
      const status = values.status;
      if (status !== undefined && status !== "open" && status !== "resolved") return usageError("--status must be open or resolved");
      return Either.map(positiveLimit(values.limit), (limit) =>
        Effect.flatMap(ReconciliationRepository, (exceptions) => exceptions.listAllExceptions({ ...(status !== undefined ? { status } : {}), limit })).pipe(
          Effect.map((listed) => json({ data: listed.map((e) => toWire(ReconciliationException, e)) }, true)),
        ),
      );
    }
    return usageError(settlementUsage);
  },
} satisfies ModuleCommand<unknown>;

/**
 * Rewrites inbox rows stored with the provider's whole payload to what the core reads, through
 * the configured provider adapter's decoder, `--batch` rows per transaction (once: the database
 * refuses a second rewrite). Prints {minimized, undecodable, remaining}; an undecodable row is
 * left whole.
 */
const minimizeInboxCommand = {
  name: "payments-minimize-inbox",
  usage: `  payments-minimize-inbox [--batch n]
                                 rewrite provider inbox rows stored whole to what the core reads,
                                 n rows per transaction (1-${maxMinimizeBatch}, default 100); prints {minimized, undecodable, remaining}`,
  options: { batch: { type: "string" } },
  prepare: ({ positionals, values }) => {
    if (positionals.length > 0) return usageError("usage: payments-minimize-inbox [--batch n]");
    return Either.flatMap(positiveInteger("batch", values.batch), (batch) =>
      batch > maxMinimizeBatch
        ? usageError(`--batch must be at most ${maxMinimizeBatch}`)
        : Either.right(minimizeProviderEventInbox({ batch }).pipe(Effect.map((counts) => json(counts)))),
    );
  },
} satisfies ModuleCommand<unknown>;

/** The payment module's commands. */
export const paymentsCommands = [merchantCommand, settlementCommand, minimizeInboxCommand];
