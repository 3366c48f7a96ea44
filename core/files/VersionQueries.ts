/** `GET /v1/nodes/:id/versions` (keyset, newest first): a viewer of the file reads its version history. */
import { Effect, Schema } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import type { Forbidden, InvalidCursor, NotFound } from "../kernel/Errors.js";
import { pageFrom, type Page } from "../kernel/Page.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import { requireAccess } from "./Access.js";
import { NotAFile } from "./Errors.js";
import type { FileVersion } from "./model/FileVersion.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** The key of a versions page: `[number]`. */
export const VersionCursorKey = Schema.Tuple(Schema.Int);

/** One page of a file's versions. */
export const listVersions = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly cursor: string | null;
  readonly limit: number;
}): Effect.Effect<Page<FileVersion>, NotFound | Forbidden | InvalidCursor | NotAFile, FilesServices> =>
  Effect.gen(function* () {
    const access = yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "view");
    if (access.node.kind !== "file") return yield* Effect.fail(new NotAFile({ nodeId: access.node.id }));
    const after = input.cursor === null ? null : (yield* decodeCursor(VersionCursorKey, input.cursor))[0];
    const rows = yield* (yield* VersionsRepository).list(input.workspaceId, input.nodeId, after, input.limit + 1);
    return pageFrom(rows, input.limit, (v) => [v.number]);
  }).pipe(withSpan("files.listVersions"));
