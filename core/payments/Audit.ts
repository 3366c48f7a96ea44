/** Appends one immutable audit record (spec rule 10): every command with its actor and reason. */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Ids } from "../../ports/Ids.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";

/** What a command records; id and time are filled in here. */
export interface AuditInput {
  readonly merchantId: string | null;
  readonly actor: string;
  readonly action: string;
  readonly subjectType: string;
  readonly subjectId: string;
  readonly reason: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

/** Records `input` in the audit log (inside the command's transaction). */
export const audit = (input: AuditInput): Effect.Effect<void, never, PaymentsRepository | Ids> =>
  Effect.gen(function* () {
    const repo = yield* PaymentsRepository;
    const id = yield* (yield* Ids).next;
    const createdAt = yield* now;
    yield* repo.appendAudit({ ...input, id, data: input.data ?? {}, createdAt });
  });
