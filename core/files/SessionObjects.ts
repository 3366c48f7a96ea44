/**
 * The store side of a settled upload session: every object it may have left, its part objects
 * or its native multipart upload, and an assembled object.
 */
import { Effect } from "effect";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import type { UploadSession } from "./model/UploadSession.js";
import { assembledKey } from "./ObjectKeys.js";

/**
 * Deletes every object a session may have left: its part objects, or its native multipart upload
 * (aborted in the store; where the store cannot abort, a bucket lifecycle rule removes it), and
 * an assembled object.
 */
export const removeSessionObjects = (session: UploadSession): Effect.Effect<void, never, UploadsRepository | ObjectStore> =>
  Effect.gen(function* () {
    const store = yield* ObjectStore;
    const key = assembledKey(session.workspaceId, session.id);
    if (session.storeUploadId !== null) {
      if (store.multipart !== undefined) yield* store.multipart.abort({ key, uploadId: session.storeUploadId });
    } else {
      const parts = yield* (yield* UploadsRepository).parts(session.workspaceId, session.id);
      yield* Effect.forEach(parts, (p) => store.remove(p.objectKey), { discard: true });
    }
    yield* store.remove(key);
  });
