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
}
export const AuditExportsRepository = Context.GenericTag<AuditExportsRepository>("domainkit/files/AuditExportsRepository");
