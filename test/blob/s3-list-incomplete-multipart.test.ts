/**
 * The S3 adapter's listing of unfinished multipart uploads (ports/ObjectStore.ts
 * `MultipartUploads.listIncomplete`, S3 ListMultipartUploads): against a fake S3 endpoint that
 * answers the listing in pages, the adapter sends the prefix, the page size and the caller's key
 * and upload id markers, answers the uploads begun before the time and the next markers while the
 * listing is truncated; on s3rver, which does not implement the listing, it answers none.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import t from "tap";
import { Effect } from "effect";
import { makeS3ObjectStore } from "../../adapters/s3/S3ObjectStore.js";
import { startS3Server } from "../support/s3Server.js";

interface Held {
  readonly key: string;
  readonly uploadId: string;
  readonly initiated: string;
}

const credentials = { accessKeyId: "test-access-key", secretAccessKey: "test-secret-key-0123456789" };

/** A fake S3 bucket `b` that holds `uploads` and answers ListMultipartUploads like S3 (markers, max-uploads, truncation). */
const fakeS3 = async (t: { teardown: (fn: () => unknown) => void }, uploads: ReadonlyArray<Held>) => {
  const requests: Array<URLSearchParams> = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    if (req.method !== "GET" || url.pathname.replace(/\/$/, "") !== "/b" || !url.searchParams.has("uploads")) {
      res.writeHead(400).end();
      return;
    }
    requests.push(url.searchParams);
    const prefix = url.searchParams.get("prefix") ?? "";
    const keyMarker = url.searchParams.get("key-marker");
    const idMarker = url.searchParams.get("upload-id-marker");
    const max = Number(url.searchParams.get("max-uploads") ?? "1000");
    const sorted = [...uploads].filter((u) => u.key.startsWith(prefix)).sort((a, b) => (a.key === b.key ? (a.uploadId < b.uploadId ? -1 : 1) : a.key < b.key ? -1 : 1));
    const after = sorted.filter((u) => keyMarker === null || u.key > keyMarker || (u.key === keyMarker && idMarker !== null && u.uploadId > idMarker));
    const page = after.slice(0, max);
    const truncated = after.length > max;
    const last = page[page.length - 1];
    const body =
      `<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
      `<Bucket>b</Bucket><Prefix>${prefix}</Prefix><MaxUploads>${max}</MaxUploads><IsTruncated>${truncated}</IsTruncated>` +
      (truncated && last !== undefined ? `<NextKeyMarker>${last.key}</NextKeyMarker><NextUploadIdMarker>${last.uploadId}</NextUploadIdMarker>` : "") +
      page.map((u) => `<Upload><Key>${u.key}</Key><UploadId>${u.uploadId}</UploadId><Initiated>${u.initiated}</Initiated><StorageClass>STANDARD</StorageClass></Upload>`).join("") +
      `</ListMultipartUploadsResult>`;
    res.writeHead(200, { "Content-Type": "application/xml" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const store = makeS3ObjectStore({ endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bucket: "b", region: "us-east-1", credentials, forcePathStyle: true });
  t.teardown(() => store.close());
  return { store, requests };
};

t.test("the S3 adapter lists unfinished multipart uploads page by page with S3's markers, only those begun before the time", async (t) => {
  const { store, requests } = await fakeS3(t, [
    { key: "files/ws1/uploads/s1/object", uploadId: "u-1", initiated: "2026-01-01T00:00:00.000Z" },
    { key: "files/ws1/uploads/s2/object", uploadId: "u-2", initiated: "2026-01-05T00:00:00.000Z" },
    { key: "files/ws1/uploads/s2/object", uploadId: "u-3", initiated: "2026-01-01T12:00:00.000Z" },
    { key: "files/ws2/uploads/s4/object", uploadId: "u-4", initiated: "2026-01-02T00:00:00.000Z" },
    { key: "projects/ws1/attachments/x", uploadId: "u-5", initiated: "2026-01-01T00:00:00.000Z" },
  ]);
  const startedBefore = new Date("2026-01-03T00:00:00.000Z");
  const first = await Effect.runPromise(store.multipart.listIncomplete({ prefix: "files/", startedBefore, after: null, limit: 2 }));
  t.same(first, { uploads: [{ key: "files/ws1/uploads/s1/object", uploadId: "u-1", initiatedAt: new Date("2026-01-01T00:00:00.000Z") }], next: { key: "files/ws1/uploads/s2/object", uploadId: "u-2" } }, "a page of two: the old one, and where to go on");
  const second = await Effect.runPromise(store.multipart.listIncomplete({ prefix: "files/", startedBefore, after: first.next, limit: 2 }));
  t.same(second.uploads.map((u) => u.uploadId), ["u-3", "u-4"], "the next page starts after the key and upload id markers");
  t.equal(second.next, null, "the last page");
  t.same([requests[0]?.get("prefix"), requests[0]?.get("max-uploads"), requests[0]?.get("key-marker")], ["files/", "2", null], "prefix and page size sent, no marker on the first page");
  t.same([requests[1]?.get("key-marker"), requests[1]?.get("upload-id-marker")], ["files/ws1/uploads/s2/object", "u-2"], "both markers on the next");
});

t.test("on a store that does not implement the listing (s3rver) the adapter lists nothing", async (t) => {
  const s3 = await startS3Server(t);
  const store = makeS3ObjectStore({ endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }, forcePathStyle: true });
  t.teardown(() => store.close());
  await Effect.runPromise(store.multipart.begin({ key: "files/ws1/uploads/s1/object", contentType: "text/plain" }));
  t.same(await Effect.runPromise(store.multipart.listIncomplete({ prefix: "files/", startedBefore: new Date(Date.now() + 60_000), after: null, limit: 10 })), { uploads: [], next: null });
});
