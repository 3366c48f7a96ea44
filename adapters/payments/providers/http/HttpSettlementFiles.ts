/** The provider's daily settlement files fetched over HTTP (the ReconciliationSettlementFiles port). */
import { Effect } from "effect";
import type { ReconciliationSettlementFiles } from "../../../../ports/payments/ReconciliationSettings.js";
import { makeProviderRequest, outcomeUnknown, type HttpProviderOptions } from "./HttpProviderClient.js";

/** Settlement files GET from `<baseUrl>/v1/settlements/<day>` (text/csv); anything but 200 fails, so the job retries. */
export const makeHttpSettlementFiles = (options: HttpProviderOptions): ReconciliationSettlementFiles => {
  const request = makeProviderRequest(options);
  return {
    fetch: (day) =>
      request("settlement_file", "GET", `/v1/settlements/${encodeURIComponent(day)}`).pipe(
        Effect.flatMap((answer) =>
          answer.status === 200
            ? Effect.succeed(answer.text)
            : Effect.fail(outcomeUnknown("settlement_file", `The payment provider answered ${answer.status} for the settlement file.`)),
        ),
      ),
  };
};
