/** Audit exports of the file storage module. */
import { Context, type Effect } from "effect";
import type { AuditExport } from "../../core/files/model/AuditExport.js";

export interface AuditExportsRepository {
  /** Stores a new (pending) export. */
  readonly insert: (audit: AuditExport) => Effect.Effect<void>;
  /** The export of the workspace, or null. */
  readonly find: (workspaceId: string, id: string) => Effect.Effect<AuditExport | null>;
  /** Stores the finished export if it is still pending; false otherwise. */
  readonly finish: (audit: AuditExport) => Effect.Effect<boolean>;
  /** Records that the done export's object removal is scheduled for `removalAt`, once; false if it already was. */
  readonly markObjectRemoval: (workspaceId: string, id: string, removalAt: Date) => Effect.Effect<boolean>;
  /** Done exports of every workspace completed before `before` whose object removal was never scheduled, oldest first, at most `limit`. */
  readonly withoutObjectRemoval: (before: Date, limit: number) => Effect.Effect<ReadonlyArray<AuditExport>>;
}
export const AuditExportsRepository = Context.GenericTag<AuditExportsRepository>("domainkit/files/AuditExportsRepository");
