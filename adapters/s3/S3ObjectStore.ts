/**
 * The ObjectStore on an S3-compatible service (AWS S3, MinIO, Garage; s3rver in tests) through
 * the AWS SDK v3. Grants are presigned URLs: an upload grant signs the key, PUT, the exact
 * Content-Length, the content type and the SHA-256 as `x-amz-checksum-sha256` (S3 refuses bytes
 * that do not hash to it); a download grant signs GET with the response content type and
 * disposition (`Range` works as on any GET). Native multipart: CreateMultipartUpload, a presigned
 * UploadPart per part (bound to its Content-Length), CompleteMultipartUpload — the parts are
 * assembled by the store, never read through the server. ListMultipartUploads (one page per
 * call, after the caller's key and upload id markers) finds the uploads nothing completed or
 * aborted; a store without it (s3rver: NotImplemented) lists none.
 *
 * A grant's `condition` (ports/GrantChecks.ts) is not checked here: a presigned URL goes to S3,
 * which cannot ask the module, so a download grant stays usable for its short life after access
 * is lost (its life is the bound). A part grant needs none: S3 refuses UploadPart for a multipart
 * upload that was completed or aborted (NoSuchUpload), which is what settling a session does.
 *
 * SHA-256 of a stored object (`stat`): the full-object `ChecksumSHA256` the store verified at
 * upload when it has one (single PUTs of our grants and of `put`), otherwise — a multipart
 * object (S3 keeps only a checksum of part checksums) or a store that keeps no checksums — the
 * adapter streams the object once and hashes it. The client's word is never taken.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { Effect, Stream } from "effect";
import { MultipartRejected, type MultipartUploads, type ObjectGrant, type ObjectStore, type StoredObject } from "../../ports/ObjectStore.js";
import { attachmentDisposition } from "../blob/ContentDisposition.js";

/** Where the store is and how to reach it. */
export interface S3ObjectStoreOptions {
  /** The service endpoint, e.g. `https://s3.eu-west-1.amazonaws.com` or `http://127.0.0.1:9000` (MinIO). */
  readonly endpoint: string;
  readonly bucket: string;
  /** Signing region (us-east-1 unless the service says otherwise). */
  readonly region: string;
  /** Static credentials; when omitted the SDK's default chain (environment, instance role) applies. */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** Path-style addressing (`endpoint/bucket/key`), which MinIO, Garage and s3rver need. */
  readonly forcePathStyle: boolean;
  /** The clock of grant expiry; Date.now by default. */
  readonly now?: () => number;
}

/** The S3 store: the ObjectStore port with native multipart, and how to release its connections. */
export interface S3ObjectStore extends ObjectStore {
  readonly multipart: MultipartUploads;
  /**
   * Whether the bucket exists (HeadBucket): false only when the service answers 404, true when it
   * answers 2xx or 403 (credentials without s3:ListBucket on a bucket that is there), null when it
   * cannot tell (unreachable, 5 s without an answer, any other error).
   */
  readonly bucketExists: () => Promise<boolean | null>;
  readonly close: () => void;
}

/** Presigned URLs live at most a week (SigV4's limit) and at least a second. */
const presignSeconds = (ttlMs: number): number => Math.min(604_800, Math.max(1, Math.ceil(ttlMs / 1000)));

const hexToBase64 = (hex: string): string => Buffer.from(hex, "hex").toString("base64");

/** A full-object SHA-256 checksum as lowercase hex; null for a composite one (`<base64>-<parts>`) or none. */
const fullObjectSha256 = (checksum: string | undefined): string | null => {
  if (checksum === undefined || checksum.includes("-")) return null;
  const bytes = Buffer.from(checksum, "base64");
  return bytes.length === 32 ? bytes.toString("hex") : null;
};

const isMissing = (error: unknown): boolean =>
  error instanceof S3ServiceException && (error.name === "NotFound" || error.name === "NoSuchKey" || error.$metadata.httpStatusCode === 404);

/** Errors of CompleteMultipartUpload that say the parts are wrong, not that the store failed. */
const rejectedPartErrors = new Set(["InvalidPart", "InvalidPartOrder", "EntityTooSmall", "NoSuchUpload", "MalformedXML"]);

/** The bytes of a GetObject body as chunks (a Node stream under Node). */
const chunksOf = (body: unknown): AsyncIterable<Uint8Array> => {
  if (body !== null && typeof body === "object" && Symbol.asyncIterator in body) return body as AsyncIterable<Uint8Array>;
  throw new Error("the S3 response has no readable body");
};

/** Builds the S3 store. */
export const makeS3ObjectStore = (options: S3ObjectStoreOptions): S3ObjectStore => {
  const now = options.now ?? Date.now;
  const Bucket = options.bucket;
  const client = new S3Client({
    endpoint: options.endpoint,
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    ...(options.credentials !== undefined ? { credentials: { ...options.credentials } } : {}),
    // No default CRC32 checksums: they would end up in presigned URLs the client cannot satisfy,
    // and not every S3-compatible service knows them. Our checksums are explicit (SHA-256).
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  const send = <A>(run: () => Promise<A>): Effect.Effect<A> => Effect.promise(run);

  /** HeadObject, or null when the key holds nothing. */
  const head = async (key: string) => {
    try {
      return await client.send(new HeadObjectCommand({ Bucket, Key: key, ChecksumMode: "ENABLED" }));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  };

  /** The object's body, or null when the key holds nothing. */
  const body = async (key: string): Promise<AsyncIterable<Uint8Array> | null> => {
    try {
      return chunksOf((await client.send(new GetObjectCommand({ Bucket, Key: key }))).Body);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  };

  const statOf = async (key: string): Promise<StoredObject | null> => {
    const found = await head(key);
    if (found === null) return null;
    const verified = fullObjectSha256(found.ChecksumSHA256);
    if (verified !== null) return { key, size: Number(found.ContentLength ?? 0), sha256: verified };
    // No full-object checksum: hash the bytes once, counting them as well.
    const chunks = await body(key);
    if (chunks === null) return null;
    const hash = createHash("sha256");
    let size = 0;
    for await (const chunk of chunks) {
      size += chunk.byteLength;
      hash.update(chunk);
    }
    return { key, size, sha256: hash.digest("hex") };
  };

  /** Presigning options: the headers `signed` are part of the signature, sent by the client as headers. */
  const presigning = (ttlMs: number, signed: ReadonlyArray<string>) => ({
    expiresIn: presignSeconds(ttlMs),
    signableHeaders: new Set(signed),
    // Signed as headers, not hoisted into the query: the client must send them and S3 checks them.
    unhoistableHeaders: new Set(["x-amz-checksum-sha256"]),
  });

  /** A grant of `url` presigned for `ttlMs` from `issuedAt`. */
  const grantOf = (url: string, issuedAt: number, ttlMs: number, method: "PUT" | "GET", headers: Record<string, string>): ObjectGrant => ({
    url,
    method,
    headers,
    expiresAt: new Date(issuedAt + presignSeconds(ttlMs) * 1000),
  });

  const multipart: MultipartUploads = {
    begin: (req) =>
      send(async () => {
        const created = await client.send(new CreateMultipartUploadCommand({ Bucket, Key: req.key, ContentType: req.contentType }));
        if (created.UploadId === undefined) throw new Error("the store answered no upload id");
        return created.UploadId;
      }),
    grantPart: (req) =>
      send(async () => {
        const issuedAt = now();
        const command = new UploadPartCommand({ Bucket, Key: req.key, UploadId: req.uploadId, PartNumber: req.partNumber, ContentLength: req.size });
        return grantOf(await getSignedUrl(client, command, presigning(req.ttlMs, ["content-length"])), issuedAt, req.ttlMs, "PUT", {});
      }),
    complete: (req) =>
      Effect.tryPromise({
        try: async () => {
          const parts = [...req.parts].sort((a, b) => a.partNumber - b.partNumber).map((p) => ({ PartNumber: p.partNumber, ETag: p.etag }));
          try {
            await client.send(new CompleteMultipartUploadCommand({ Bucket, Key: req.key, UploadId: req.uploadId, MultipartUpload: { Parts: parts } }));
          } catch (error) {
            // Completed already (a retry after a lost response, or a concurrent complete): the upload is
            // gone (S3: NoSuchUpload; s3rver: 500) and its object is there. Otherwise the refusal stands.
            if ((await head(req.key)) === null) throw error;
          }
          const stored = await statOf(req.key);
          if (stored === null) throw new Error(`the completed object ${req.key} is not stored`);
          return stored;
        },
        catch: (error) => error,
      }).pipe(
        Effect.catchAll((error) =>
          error instanceof S3ServiceException && rejectedPartErrors.has(error.name)
            ? Effect.fail(new MultipartRejected({ detail: `${error.name}: ${error.message}` }))
            : Effect.die(error),
        ),
      ),
    abort: (req) =>
      Effect.promise(async () => {
        try {
          await client.send(new AbortMultipartUploadCommand({ Bucket, Key: req.key, UploadId: req.uploadId }));
        } catch (error) {
          // Already gone, or a store without AbortMultipartUpload (s3rver: 405): nothing more it can delete
          // here (a bucket lifecycle rule for incomplete multipart uploads cleans those up).
          if (!(error instanceof S3ServiceException)) throw error;
        }
      }),
    listIncomplete: (req) =>
      Effect.promise(async () => {
        try {
          const page = await client.send(
            new ListMultipartUploadsCommand({
              Bucket,
              Prefix: req.prefix,
              MaxUploads: Math.min(1000, Math.max(1, req.limit)),
              ...(req.after === null ? {} : { KeyMarker: req.after.key }),
              ...(req.after === null || req.after.uploadId === "" ? {} : { UploadIdMarker: req.after.uploadId }),
            }),
          );
          const uploads = (page.Uploads ?? []).flatMap((u) =>
            // An upload without its start time is of unknown age: never listed as old.
            u.Key !== undefined && u.UploadId !== undefined && u.Initiated !== undefined && u.Initiated.getTime() < req.startedBefore.getTime()
              ? [{ key: u.Key, uploadId: u.UploadId, initiatedAt: u.Initiated }]
              : [],
          );
          const next =
            page.IsTruncated === true && page.NextKeyMarker !== undefined && page.NextKeyMarker !== ""
              ? { key: page.NextKeyMarker, uploadId: page.NextUploadIdMarker ?? "" }
              : null;
          return { uploads, next };
        } catch (error) {
          // A store without the listing: nothing it can say (its lifecycle rule cleans up).
          if (error instanceof S3ServiceException && (error.name === "NotImplemented" || error.$metadata.httpStatusCode === 501)) return { uploads: [], next: null };
          throw error;
        }
      }),
  };

  return {
    multipart,
    grantUpload: (req) =>
      send(async () => {
        const issuedAt = now();
        const checksum = hexToBase64(req.sha256);
        const command = new PutObjectCommand({ Bucket, Key: req.key, ContentLength: req.size, ContentType: req.contentType, ChecksumSHA256: checksum });
        const url = await getSignedUrl(client, command, presigning(req.ttlMs, ["content-length", "content-type", "x-amz-checksum-sha256"]));
        return grantOf(url, issuedAt, req.ttlMs, "PUT", { "Content-Type": req.contentType, "x-amz-checksum-sha256": checksum });
      }),
    grantDownload: (req) =>
      send(async () => {
        const issuedAt = now();
        const command = new GetObjectCommand({
          Bucket,
          Key: req.key,
          ResponseContentType: req.contentType,
          ResponseContentDisposition: attachmentDisposition(req.filename),
          ResponseCacheControl: "private, no-store",
        });
        return grantOf(await getSignedUrl(client, command, presigning(req.ttlMs, [])), issuedAt, req.ttlMs, "GET", {});
      }),
    stat: (key) => send(() => statOf(key)),
    read: (key) =>
      send(() => body(key)).pipe(Effect.map((chunks) => (chunks === null ? null : Stream.fromAsyncIterable(chunks, (e) => e).pipe(Stream.orDie)))),
    put: (key, content) =>
      send(async () => {
        // Spooled to a temp file while hashing, so the PUT carries its length and SHA-256 (S3 verifies it).
        const dir = await mkdtemp(path.join(tmpdir(), "domainkit-s3-"));
        const file = path.join(dir, randomBytes(6).toString("hex"));
        try {
          const handle = await open(file, "wx");
          const hash = createHash("sha256");
          let size = 0;
          try {
            for await (const chunk of Stream.toAsyncIterable(content)) {
              size += chunk.byteLength;
              hash.update(chunk);
              await handle.write(chunk);
            }
          } finally {
            await handle.close();
          }
          const sha256 = hash.digest("hex");
          await client.send(new PutObjectCommand({ Bucket, Key: key, Body: createReadStream(file), ContentLength: size, ChecksumSHA256: hexToBase64(sha256) }));
          return { key, size, sha256 };
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }),
    remove: (key) =>
      send(async () => {
        const existed = (await head(key)) !== null;
        await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
        return existed;
      }),
    bucketExists: () =>
      client.send(new HeadBucketCommand({ Bucket }), { abortSignal: AbortSignal.timeout(5_000) }).then(
        () => true,
        (error: unknown) => {
          if (!(error instanceof S3ServiceException)) return null;
          if (error.name === "NotFound" || error.name === "NoSuchBucket" || error.$metadata.httpStatusCode === 404) return false;
          return error.$metadata.httpStatusCode === 403 ? true : null;
        },
      ),
    close: () => client.destroy(),
  };
};
