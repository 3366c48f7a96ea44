/** The kernel index re-exports every core, so `domainkit/kernel` is one import for all of them. */
import t from "tap";
import * as Kernel from "../../core/kernel/index.js";

t.test("the kernel index exports every core's public API", async (t) => {
  const expected = [
    "NotFound", "VersionMismatch", "InvalidCursor", "isDomainError", // Errors
    "EventEnvelope", "makeEvent", "isNewerThan", // EventEnvelope
    "Money", "Currency", "add", "subtract", "negate", "sum", "makeMoney", "InvalidAmount", // Money
    "expectVersion", "advance", "versionMismatch", "staleWrite", // Versioning
    "initialQuota", "reserve", "commit", "release", "QuotaExceeded", "ReservationAlreadySettled", // QuotaReservation
    "LedgerTransaction", "validateTransaction", "reversalOf", "post", "balances", "emptyLedger",
    "UnbalancedTransaction", "DuplicateLedgerSource", "AlreadyReversed", // Ledger
    "claim", "claimIn", "makeElection", "ClaimTaken", // WinnerElection
    "runIdempotent", "decide", "validateIdempotencyKey", "defaultIdempotencyPolicy", // Idempotency
    "encodeCursor", "decodeCursor", // Cursor
  ];
  const exported = Kernel as unknown as Record<string, unknown>;
  for (const name of expected) t.ok(exported[name] !== undefined, name);
  const codes = [
    new Kernel.QuotaExceeded({ limit: 1, used: 1, reserved: 0, requested: 1 }),
    new Kernel.ReservationAlreadySettled({ id: "r", state: "released" }),
    new Kernel.UnbalancedTransaction({ source: "s" }),
    new Kernel.DuplicateLedgerSource({ source: "s" }),
    new Kernel.AlreadyReversed({ source: "s", reversedBy: "r" }),
    new Kernel.ClaimTaken({ winner: "w" }),
    new Kernel.InvalidAmount({ amount: 1.5 }),
  ].map((e) => [e.code, e.category, Kernel.isDomainError(e)]);
  t.same(codes, [
    ["quota_exceeded", "unprocessable", true],
    ["reservation_settled", "conflict", true],
    ["unbalanced_transaction", "unprocessable", true],
    ["duplicate_ledger_source", "conflict", true],
    ["already_reversed", "conflict", true],
    ["already_claimed", "conflict", true],
    ["invalid_amount", "unprocessable", true],
  ]);
});
