/**
 * Thumbnail port (spec: background work "attachment scan and thumbnail"; file storage "thumbnail
 * and preview"). Given an object's bytes and declared content type, answers a small image or
 * "unsupported" for anything that is not a supported image. Input is untrusted: decoding must be
 * bounded (a pixel limit refuses decompression bombs) and garbage is a typed failure, never a throw.
 */
import { Context, Data, type Effect } from "effect";

/** A produced thumbnail: encoded bytes and what they are. */
export interface Thumbnail {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly width: number;
  readonly height: number;
}

/** What the thumbnailer made of the input. */
export type ThumbnailResult =
  | { readonly _tag: "Thumbnail"; readonly thumbnail: Thumbnail }
  /** Not an image the thumbnailer decodes (declared type or detected format); not an error. */
  | { readonly _tag: "Unsupported"; readonly reason: string };

/**
 * The input was refused: `corrupt` (undecodable or truncated image data) or `too_many_pixels`
 * (its declared dimensions exceed the pixel limit, so it was never decoded).
 */
export class ThumbnailInputRejected extends Data.TaggedError("ThumbnailInputRejected")<{
  readonly reason: "corrupt" | "too_many_pixels";
  readonly detail?: string;
}> {
  readonly code = "thumbnail_input_rejected";
  readonly category = "unprocessable" as const;
  constructor(args: { readonly reason: "corrupt" | "too_many_pixels"; readonly detail?: string }) {
    super(args);
    // What the job runner records as the attempt's error.
    this.message = args.detail === undefined ? args.reason : `${args.reason}: ${args.detail}`;
  }
}

/** The thumbnailer. */
export interface Thumbnailer {
  /** The longest side, in pixels, of every thumbnail this thumbnailer makes. */
  readonly maxDimension: number;
  /** Makes a thumbnail of `bytes` (declared as `contentType`) no larger than `maxDimension` on either side. */
  readonly thumbnail: (input: { readonly bytes: Uint8Array; readonly contentType: string }) => Effect.Effect<ThumbnailResult, ThumbnailInputRejected>;
}
export const Thumbnailer = Context.GenericTag<Thumbnailer>("domainkit/Thumbnailer");
