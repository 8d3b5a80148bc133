/**
 * The one PNG writer: the emulator's generated pictures and the quote's placeholder images
 * are both made of it. It takes the image's rows already filtered (each row a filter byte,
 * then its samples) and adds the signature, the header, the compressed data and the end.
 */
// node:zlib is loaded when a PNG is first written (process.getBuiltinModule): a start that
// writes none compiles none of it.
const zlib = (): typeof import('node:zlib') => process.getBuiltinModule('node:zlib');

/** PNG colour types used here: grey, RGB, RGBA (8 bits per sample). */
export type PngColour = 'grey' | 'rgb' | 'rgba';

const COLOUR_TYPE: Record<PngColour, number> = { grey: 0, rgb: 2, rgba: 6 };

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib().crc32(data, zlib().crc32(head.subarray(4))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A PNG of `width`×`height` 8-bit pixels of `colour`, from `rows`: `height` rows of one filter
 * byte and `width × channels` samples. `level` is zlib's compression level (default 6).
 */
export function encodePng(options: { readonly width: number; readonly height: number; readonly colour: PngColour; readonly rows: Buffer; readonly level?: number }): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(options.width, 0);
  header.writeUInt32BE(options.height, 4);
  header[8] = 8; // bit depth
  header[9] = COLOUR_TYPE[options.colour];
  const data = options.level === undefined ? zlib().deflateSync(options.rows) : zlib().deflateSync(options.rows, { level: options.level });
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', data), chunk('IEND', Buffer.alloc(0))]);
}
