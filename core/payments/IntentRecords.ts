/** Loading and saving intents the same way in every command: owned, locked, version-checked. */
import { Effect } from "effect";
import { Conflict, type NotFound } from "../kernel/Errors.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { ownedBy, type MerchantCaller } from "./MerchantAccess.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";

/** The caller's intent, locked for the rest of the transaction when `forUpdate`. */
export const loadOwnedIntent = (
  caller: MerchantCaller,
  intentId: string,
  forUpdate: boolean,
): Effect.Effect<PaymentIntent, NotFound, PaymentsRepository> =>
  Effect.flatMap(PaymentsRepository, (repo) => repo.findIntent(intentId, { forUpdate })).pipe(
    Effect.flatMap((found) => ownedBy(caller, "payment_intent", found)),
  );

/** Any intent by id, locked; for the second phase of a command that already checked ownership. */
export const reloadIntent = (intentId: string): Effect.Effect<PaymentIntent, never, PaymentsRepository> =>
  Effect.flatMap(PaymentsRepository, (repo) => repo.findIntent(intentId, { forUpdate: true })).pipe(
    Effect.flatMap((found) => (found === null ? Effect.dieMessage(`payment intent ${intentId} vanished`) : Effect.succeed(found))),
  );

/**
 * Saves `changes` over `intent` with the next version. The row is locked (or the database
 * serialized), so a moved version means a bug or a writer that skipped the lock: a 409.
 */
export const saveIntent = (
  intent: PaymentIntent,
  changes: Partial<PaymentIntent>,
  updatedAt: Date,
): Effect.Effect<PaymentIntent, Conflict, PaymentsRepository> =>
  Effect.gen(function* () {
    const repo = yield* PaymentsRepository;
    const next: PaymentIntent = { ...intent, ...changes, version: intent.version + 1, updatedAt };
    const saved = yield* repo.updateIntent(next, intent.version);
    if (!saved) return yield* Effect.fail(new Conflict({ code: "concurrent_update", detail: "The payment intent changed concurrently; retry." }));
    return next;
  });
