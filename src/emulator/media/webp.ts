/**
 * A solid-colour lossless WebP (VP8L) of any size. With one-symbol prefix codes every pixel
 * takes zero bits, so the file is a few dozen bytes whatever its size. It exists for
 * `results_alt_formats.webp`.
 */

class BitWriter {
  private readonly bytes: number[] = [];
  private acc = 0;
  private count = 0;

  /** Appends `n` bits of `value`, least significant first (VP8L bit order). */
  write(value: number, n: number): void {
    for (let i = 0; i < n; i++) {
      this.acc |= ((value >>> i) & 1) << this.count;
      if (++this.count === 8) {
        this.bytes.push(this.acc);
        this.acc = 0;
        this.count = 0;
      }
    }
  }

  finish(): Buffer {
    if (this.count > 0) this.bytes.push(this.acc);
    return Buffer.from(this.bytes);
  }
}

/** A WebP of the given size filled with one ARGB colour. */
export function makeWebp(width: number, height: number, rgb: readonly [number, number, number] = [128, 128, 128]): Buffer {
  const w = Math.min(16384, Math.max(1, Math.round(width)));
  const h = Math.min(16384, Math.max(1, Math.round(height)));
  const bits = new BitWriter();
  bits.write(0x2f, 8);
  bits.write(w - 1, 14);
  bits.write(h - 1, 14);
  bits.write(0, 1); // alpha_is_used
  bits.write(0, 3); // version
  bits.write(0, 1); // no transform
  bits.write(0, 1); // no colour cache
  bits.write(0, 1); // no meta prefix codes
  // Green, red, blue, alpha, distance: each a "simple" code with a single 8-bit symbol.
  for (const symbol of [rgb[1], rgb[0], rgb[2], 255, 0]) {
    bits.write(1, 1); // simple code
    bits.write(0, 1); // one symbol
    bits.write(1, 1); // 8-bit symbol
    bits.write(symbol & 0xff, 8);
  }
  const vp8l = bits.finish();
  const padded = vp8l.length % 2 === 1 ? Buffer.concat([vp8l, Buffer.alloc(1)]) : vp8l;
  const head = Buffer.alloc(20);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(12 + padded.length, 4);
  head.write('WEBP', 8, 'latin1');
  head.write('VP8L', 12, 'latin1');
  head.writeUInt32LE(vp8l.length, 16);
  return Buffer.concat([head, padded]);
}
