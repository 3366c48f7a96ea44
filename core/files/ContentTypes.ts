/**
 * The content type of a file made on the server (an extracted archive entry), from its name's
 * extension; `application/octet-stream` for anything else. Downloads of quarantined content are
 * never served, and the declared type never decides what a scan does.
 */
const byExtension: Readonly<Record<string, string>> = {
  txt: "text/plain",
  csv: "text/csv",
  md: "text/markdown",
  json: "application/json",
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  zip: "application/zip",
};

/** The content type for `name`. */
export const contentTypeOf = (name: string): string => {
  const dot = name.lastIndexOf(".");
  return (dot > 0 ? byExtension[name.slice(dot + 1).toLowerCase()] : undefined) ?? "application/octet-stream";
};
