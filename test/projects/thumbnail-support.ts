/**
 * Image fixtures of the thumbnail tests (a real PNG, a pixel bomb, garbage); the host is the
 * files test host (test/blob/filesHost.ts), which binds the sharp Thumbnailer.
 */
import { deflateSync } from "node:zlib";
import sharp from "sharp";

/** A real PNG of `width` x `height` (a gradient-free solid colour is enough to decode). */
export const pngOf = (width: number, height: number): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } }).png().toBuffer();

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes: Uint8Array): number => {
  let c = 0xffffffff;
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const pngChunk = (type: string, data: Buffer): Buffer => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/**
 * A decompression bomb: a few hundred bytes of valid PNG whose header claims `side` x `side`
 * pixels (10^10 for the default), which a decoder without a pixel limit would try to allocate.
 */
export const pixelBombPng = (side = 100_000): Buffer => {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(Buffer.alloc(64))),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
};

/** Bytes that start like a PNG and then are garbage (corrupt image data). */
export const corruptPng = async (): Promise<Buffer> => {
  const good = await pngOf(64, 64);
  const bad = Buffer.from(good);
  for (let i = 40; i < bad.length - 12; i++) bad[i] = bad[i]! ^ 0x5a;
  return bad;
};
