/** The `Content-Disposition` of a download, shared by every object store adapter that serves bytes. */

/** RFC 6266 `attachment` disposition with an ASCII fallback and the UTF-8 name. */
export const attachmentDisposition = (filename: string): string => {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
};
