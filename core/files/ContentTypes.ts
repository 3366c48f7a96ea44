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

// RFC 9110 §8.3.1: `type "/" subtype *( OWS ";" OWS parameter )`, parameter `token "=" ( token / quoted-string )`.
const token = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const quoted = '"(?:[\\t\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\t\\x20-\\x7e])*"';
const mediaType = new RegExp(`^${token}/${token}(?:[ \\t]*;[ \\t]*${token}=(?:${token}|${quoted}))*$`);

/** Whether `value` is a media type a Content-Type header carries as it is (no CR, LF or other control or non-ASCII character). */
export const isMediaType = (value: string): boolean => value.length <= 255 && mediaType.test(value);
