/**
 * Type detection (spec, What the service does: "Background work: scan and type detection";
 * Events: UploadFinalized goes "to scanner and type detector"). The scan reads every version's
 * bytes anyway; it hands their head to `detectContentType`, which answers the type the bytes
 * have from a small signature table (magic numbers, and the WHATWG MIME sniffing patterns for
 * HTML and XML), else `text/plain` for bytes with no binary control characters, else
 * `application/octet-stream`. The declared type is kept as the client said it; `servedContentType`
 * decides what a download may be served as: the declared type only where the bytes agree with it.
 */

/** How many leading bytes detection looks at. */
export const detectionHeadBytes = 1024;

/** The type of content that matched no signature and holds no binary bytes. */
const plainText = "text/plain";
/** The type of content nothing recognizes. */
export const opaqueContentType = "application/octet-stream";

/** Binary signatures: the bytes at `offset` (null matches any byte). */
const signatures: ReadonlyArray<{ readonly type: string; readonly offset: number; readonly bytes: ReadonlyArray<number | null> }> = [
  { type: "image/png", offset: 0, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: "image/jpeg", offset: 0, bytes: [0xff, 0xd8, 0xff] },
  { type: "image/gif", offset: 0, bytes: [0x47, 0x49, 0x46, 0x38, 0x37, 0x61] },
  { type: "image/gif", offset: 0, bytes: [0x47, 0x49, 0x46, 0x38, 0x39, 0x61] },
  { type: "image/webp", offset: 0, bytes: [0x52, 0x49, 0x46, 0x46, null, null, null, null, 0x57, 0x45, 0x42, 0x50] },
  { type: "image/bmp", offset: 0, bytes: [0x42, 0x4d] },
  { type: "application/pdf", offset: 0, bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { type: "application/zip", offset: 0, bytes: [0x50, 0x4b, 0x03, 0x04] },
  { type: "application/zip", offset: 0, bytes: [0x50, 0x4b, 0x05, 0x06] },
  { type: "application/gzip", offset: 0, bytes: [0x1f, 0x8b, 0x08] },
  { type: "video/mp4", offset: 4, bytes: [0x66, 0x74, 0x79, 0x70] },
];

/** WHATWG "text/html" sniffing patterns: a tag name after `<`, then a space or `>` (case-insensitive). */
const htmlTags = ["!doctype html", "html", "head", "script", "iframe", "h1", "div", "font", "table", "a", "style", "title", "b", "body", "br", "p"];

/** Types a browser renders as active content: never served unless the bytes are exactly that. */
const activeTypes = new Set(["text/html", "application/xhtml+xml", "image/svg+xml", "text/xml", "application/xml", "text/javascript", "application/javascript"]);

/** Every type the signature table (and the markup sniffing) can recognize. */
const recognizableTypes = new Set([...signatures.map((s) => s.type), "text/html", "text/xml", "image/svg+xml"]);

const matchesAt = (head: Uint8Array, offset: number, bytes: ReadonlyArray<number | null>): boolean =>
  head.length >= offset + bytes.length && bytes.every((b, i) => b === null || head[offset + i] === b);

/** The markup type of text that opens with HTML, XML or SVG (after a BOM and whitespace), or null. */
const markupType = (head: Uint8Array): string | null => {
  let start = matchesAt(head, 0, [0xef, 0xbb, 0xbf]) ? 3 : 0;
  while (start < head.length && [0x09, 0x0a, 0x0c, 0x0d, 0x20].includes(head[start]!)) start += 1;
  const text = new TextDecoder("latin1").decode(head.subarray(start, start + 64)).toLowerCase();
  if (text.startsWith("<!--")) return "text/html";
  if (text.startsWith("<?xml")) return /<svg[\s>]/.test(new TextDecoder("latin1").decode(head).toLowerCase()) ? "image/svg+xml" : "text/xml";
  if (/^<svg[\s>]/.test(text)) return "image/svg+xml";
  for (const tag of htmlTags) {
    if (text.startsWith(`<${tag}`)) {
      const next = text.charCodeAt(tag.length + 1);
      if (next === 0x20 || next === 0x3e || next === 0x09 || next === 0x0a || next === 0x0d || next === 0x0c) return "text/html";
    }
  }
  return null;
};

/** WHATWG "binary data byte": a control character text never holds. */
const isBinaryByte = (b: number): boolean => b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);

/** The type `head` (the first bytes of an object, up to `detectionHeadBytes`) has. */
export const detectContentType = (head: Uint8Array): string => {
  for (const signature of signatures) if (matchesAt(head, signature.offset, signature.bytes)) return signature.type;
  const markup = markupType(head);
  if (markup !== null) return markup;
  return head.some(isBinaryByte) ? opaqueContentType : plainText;
};

/** The media type of a Content-Type value: lowercase, without parameters. */
const mediaTypeOf = (contentType: string): string => contentType.split(";")[0]!.trim().toLowerCase();

/** Declared types stored in a zip container (office documents, EPUB, JAR) agree with a detected zip. */
const isZipContainer = (declared: string): boolean =>
  declared.endsWith("+zip") ||
  declared.startsWith("application/vnd.openxmlformats-officedocument.") ||
  declared.startsWith("application/vnd.oasis.opendocument.") ||
  declared === "application/java-archive";

/** Whether bytes detected as `detected` may be served as `declared` (a media type). */
const agrees = (declared: string, detected: string): boolean => {
  if (declared === detected) return true;
  if (detected === "application/zip") return isZipContainer(declared);
  // Text and unrecognized bytes keep a declared type the table could not have recognized, unless it is active content.
  if (detected === plainText || detected === opaqueContentType) {
    if (activeTypes.has(declared) || recognizableTypes.has(declared)) return false;
    return detected === plainText ? declared.startsWith("text/") || declared === "application/json" || declared.endsWith("+json") || declared === "application/octet-stream" : !declared.startsWith("text/");
  }
  return false;
};

/**
 * What a version is served as: its declared type where the detected one agrees with it, else
 * `application/octet-stream` (so HTML declared as a PNG is neither an image nor a page). A version
 * not yet detected (stored before detection existed) keeps its declared type.
 */
export const servedContentType = (declared: string, detected: string | null): string =>
  detected === null || agrees(mediaTypeOf(declared), detected) ? declared : opaqueContentType;
