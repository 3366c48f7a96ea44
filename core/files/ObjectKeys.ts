/** Where file storage keeps bytes in the object store: under `files/<workspace>/`. */

/** The object of one part of an upload session. */
export const partKey = (workspaceId: string, sessionId: string, partNumber: number): string =>
  `files/${workspaceId}/uploads/${sessionId}/part-${partNumber}`;

/** The object a multi-part session's parts are assembled into (keyed by session: a retry writes the same bytes). */
export const assembledKey = (workspaceId: string, sessionId: string): string => `files/${workspaceId}/uploads/${sessionId}/object`;
