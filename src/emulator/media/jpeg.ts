/**
 * A flat mid-grey baseline JPEG of any size. Every 8×8 block is coded as "DC difference 0"
 * (standard luminance DC table, code 00) then "end of block" (a one-symbol AC table, code 0):
 * 3 bits a block, so even a 1024² picture is about 6 KB. It exists for
 * `results_alt_formats.jpg`.
 */

const DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_VALUES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
// A one-symbol AC table: the only symbol is EOB (0x00), coded "0".
const AC_BITS = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const AC_VALUES = [0];

function segment(marker: number, body: number[]): number[] {
  const len = body.length + 2;
  return [0xff, marker, len >> 8, len & 0xff, ...body];
}

/** Entropy-coded data for `blocks` blocks of "DC category 0 (code 00), EOB (code 0)". */
function blockBits(blocks: number): Buffer {
  const bits = blocks * 3;
  const out = Buffer.alloc(Math.ceil(bits / 8));
  // Each block is 0b000; padding with 1-bits as the standard asks.
  const tail = bits % 8;
  if (tail !== 0) out[out.length - 1] = 0xff >> tail;
  return out;
}

/** A grey JPEG of the given size (greyscale, one component). */
export function makeJpeg(width: number, height: number): Buffer {
  const w = Math.max(1, Math.round(width));
  const h = Math.max(1, Math.round(height));
  const blocks = Math.ceil(w / 8) * Math.ceil(h / 8);
  const head = [
    0xff, 0xd8,
    ...segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...segment(0xdb, [0, ...new Array<number>(64).fill(1)]),
    ...segment(0xc0, [8, h >> 8, h & 0xff, w >> 8, w & 0xff, 1, 1, 0x11, 0]),
    ...segment(0xc4, [0x00, ...DC_BITS, ...DC_VALUES]),
    ...segment(0xc4, [0x10, ...AC_BITS, ...AC_VALUES]),
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]),
  ];
  return Buffer.concat([Buffer.from(head), blockBits(blocks), Buffer.from([0xff, 0xd9])]);
}
