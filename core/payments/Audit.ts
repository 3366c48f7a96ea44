/** Appends one immutable audit record (spec rule 10): every command with its actor and reason. */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Ids } from "../../ports/Ids.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import type { AuditRecord } from "./model/AuditRecord.js";
import { AuditRecordId } from "./model/Ids.js";

/** What a command records; id and time are filled in here, `data` defaults to `{}`. */
export type AuditInput = Omit<AuditRecord, "id" | "createdAt" | "data"> & { readonly data?: AuditRecord["data"] };

/** Records `input` in the audit log (inside the command's transaction). */
export const audit = (input: AuditInput): Effect.Effect<void, never, PaymentsRepository | Ids> =>
  Effect.gen(function* () {
    const repo = yield* PaymentsRepository;
    const id = AuditRecordId.make(yield* (yield* Ids).next);
    const createdAt = yield* now;
    yield* repo.appendAudit({ ...input, id, data: input.data ?? {}, createdAt });
  });
