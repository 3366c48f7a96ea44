/**
 * The Thumbnailer over sharp (libvips). Only raster formats we accept are decoded: the declared
 * content type must be one of them AND sharp's own detection of the bytes must agree, so a file
 * declared `image/png` that is really SVG, TIFF or HEIF is "unsupported", never rendered.
 * `limitInputPixels` refuses decompression bombs from the header before any pixel is decoded,
 * `failOn: "error"` refuses corrupt or truncated data, `rotate()` applies EXIF orientation, and
 * the output is a WebP whose longest side is at most `maxDimension` (never enlarged).
 *
 * sharp (and libvips) is loaded at the first thumbnail, not when the module is: every process that
 * composes a host would otherwise pay for it at start (docs/decisions.md, "Optional SDKs load on
 * first use").
 */
import { Effect } from "effect";
import type Sharp from "sharp";
import { ThumbnailInputRejected, type ThumbnailResult, type Thumbnailer } from "../../ports/Thumbnailer.js";
import { withSpan } from "../../core/kernel/Span.js";

/** Options of the sharp thumbnailer. */
export interface SharpThumbnailerOptions {
  /** Longest side of a thumbnail in pixels (default 256). */
  readonly maxDimension?: number;
  /** Largest input accepted, in pixels (width x height; default 40 megapixels). */
  readonly maxInputPixels?: number;
}

/** Declared content types and the sharp format each must be detected as. */
const acceptedFormats: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/webp": "webp",
  "image/gif": "gif",
};

/** Sharp's message when the pixel limit refuses an input (stable across 0.3x releases). */
const pixelLimitMessage = /pixel limit/i;

const messageOf = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause));

/** sharp, loaded once by the first thumbnail of the process. */
let sharpLoaded: Promise<typeof Sharp> | undefined;
const loadSharp = (): Promise<typeof Sharp> => (sharpLoaded ??= import("sharp").then((m) => m.default));

/** Builds the sharp thumbnailer. */
export const makeSharpThumbnailer = (options: SharpThumbnailerOptions = {}): Thumbnailer => {
  const maxDimension = options.maxDimension ?? 256;
  const maxInputPixels = options.maxInputPixels ?? 40_000_000;
  const open = async (bytes: Uint8Array) =>
    // First frame only (animated GIF/WebP), pixel limit from the header, corrupt data is an error.
    (await loadSharp())(bytes, { limitInputPixels: maxInputPixels, failOn: "error", animated: false, pages: 1 });
  const rejected = (cause: unknown) =>
    new ThumbnailInputRejected({
      reason: pixelLimitMessage.test(messageOf(cause)) ? "too_many_pixels" : "corrupt",
      detail: messageOf(cause).slice(0, 200),
    });
  return {
    maxDimension,
    thumbnail: ({ bytes, contentType }) =>
      Effect.gen(function* () {
        const declared = acceptedFormats[contentType.toLowerCase().split(";")[0]!.trim()];
        if (declared === undefined) return { _tag: "Unsupported", reason: `${contentType} is not a supported image type` } satisfies ThumbnailResult;
        const metadata = yield* Effect.tryPromise({ try: async () => (await open(bytes)).metadata(), catch: rejected });
        if (metadata.format !== declared) {
          return { _tag: "Unsupported", reason: `the bytes are ${metadata.format ?? "not an image"}, not ${declared}` } satisfies ThumbnailResult;
        }
        // metadata() reads only the header; the pixel limit is enforced again when decoding.
        const { data, info } = yield* Effect.tryPromise({
          try: async () =>
            (await open(bytes))
              .rotate()
              .resize({ width: maxDimension, height: maxDimension, fit: "inside", withoutEnlargement: true })
              .webp({ quality: 80 })
              .toBuffer({ resolveWithObject: true }),
          catch: rejected,
        });
        return {
          _tag: "Thumbnail",
          thumbnail: { bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), contentType: "image/webp", width: info.width, height: info.height },
        } satisfies ThumbnailResult;
      }).pipe(withSpan("SharpThumbnailer.thumbnail")),
  };
};
