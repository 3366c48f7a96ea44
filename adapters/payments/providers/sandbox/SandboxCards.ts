/**
 * The sandbox's test cards: the card numbers its tokenization endpoint accepts and the
 * behaviour (a fixed `pm_card_*` token the in-process sandbox understands) each one maps to.
 * Only these numbers are accepted: like a real provider's test mode, any other number, even a
 * well-formed one, is refused, so a real card can never be sent to the sandbox by mistake.
 * Validation never echoes the number or the CVC back.
 */
import { sandboxTokens } from "./SandboxProvider.js";

/** Test card number -> behaviour token. */
export const sandboxTestCards: Readonly<Record<string, string>> = {
  "4242424242424242": sandboxTokens.visa,
  "4000000000000002": sandboxTokens.declined,
  "4000002500003155": sandboxTokens.authenticationRequired,
  "4000000000000119": sandboxTokens.timeoutAfter,
  "4000000000000127": sandboxTokens.timeoutBefore,
};

/** The card as posted to the tokenization endpoint. */
export interface SandboxCardInput {
  readonly number: string;
  readonly exp_month: number;
  readonly exp_year: number;
  readonly cvc: string;
}

/** Why a card was refused (a decline-like code, never the card data). */
export type SandboxCardRejection = "invalid_number" | "invalid_expiry" | "invalid_cvc" | "expired_card" | "unknown_test_card";

const luhnValid = (digits: string): boolean => {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
};

/** The behaviour token of `card`, or why it is refused; `now` decides expiry. */
export const tokenBehaviourOf = (card: unknown, now: Date): { readonly behaviour: string } | { readonly rejected: SandboxCardRejection } => {
  const c = (card ?? {}) as Partial<Record<keyof SandboxCardInput, unknown>>;
  const number = typeof c.number === "string" ? c.number.replace(/[\s-]/g, "") : "";
  if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) return { rejected: "invalid_number" };
  const month = c.exp_month;
  const year = c.exp_year;
  if (typeof month !== "number" || !Number.isInteger(month) || month < 1 || month > 12) return { rejected: "invalid_expiry" };
  if (typeof year !== "number" || !Number.isInteger(year) || year < 2000 || year > 2100) return { rejected: "invalid_expiry" };
  if (typeof c.cvc !== "string" || !/^\d{3,4}$/.test(c.cvc)) return { rejected: "invalid_cvc" };
  // A card is valid through the last day of its expiry month.
  if (year * 12 + month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1) return { rejected: "expired_card" };
  const behaviour = sandboxTestCards[number];
  return behaviour === undefined ? { rejected: "unknown_test_card" } : { behaviour };
};
