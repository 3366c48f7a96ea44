/** Typed errors of workspace exports. */
import { Data } from "effect";

/** The export has no result to download yet, or failed (409 export_not_ready / export_failed). */
export class ExportNotReady extends Data.TaggedError("ExportNotReady")<{ readonly failed: boolean; readonly detail?: string }> {
  readonly category = "conflict" as const;
  get code(): string {
    return this.failed ? "export_failed" : "export_not_ready";
  }
}
