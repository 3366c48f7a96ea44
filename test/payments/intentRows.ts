/**
 * A `payment_intents` row as the SQL adapter stores it, for tests that write the table directly
 * to prove what the database itself refuses (constraints and triggers): by default merchant-a's
 * succeeded intent of 1,000 EUR, captured in full by automatic capture; `fields` overrides columns.
 */
export const intentRow = (id: string, fields: Readonly<Record<string, unknown>> = {}) => {
  const at = new Date().toISOString();
  return {
    id,
    merchant_id: "merchant-a",
    amount_minor: 1000,
    currency: "EUR",
    capture_method: "automatic",
    status: "succeeded",
    amount_capturable_minor: 0,
    amount_captured_minor: 1000,
    amount_refunded_minor: 0,
    payment_method: "pm_card_visa",
    provider_payment_id: "sbx_pay_1",
    attempt_count: 1,
    last_decline_code: null,
    version: 1,
    created_at: at,
    updated_at: at,
    ...fields,
  };
};
