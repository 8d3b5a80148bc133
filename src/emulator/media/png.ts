import { encodePng } from '../../common/index.js';

/** Options of {@link makePng}. */
export interface PngOptions {
  readonly width: number;
  readonly height: number;
  /** Varies the colours, so different jobs give different pictures. @default 0 */
  readonly seed?: number;
  /** Write RGBA with a transparent border (background removal results). @default false */
  readonly alpha?: boolean;
}

/** A real PNG of the given size: a diagonal gradient whose colours follow `seed`. */
export function makePng(options: PngOptions): Buffer {
  const width = Math.max(1, Math.round(options.width));
  const height = Math.max(1, Math.round(options.height));
  const seed = options.seed ?? 0;
  const channels = options.alpha ? 4 : 3;
  const stride = width * channels + 1;
  const raw = Buffer.alloc(stride * height);
  const [r0, g0, b0] = [seed & 0xff, (seed >>> 8) & 0xff, (seed >>> 16) & 0xff];
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    const gy = Math.floor((y * 255) / height);
    for (let x = 0; x < width; x++) {
      const gx = Math.floor((x * 255) / width);
      const at = row + 1 + x * channels;
      raw[at] = (r0 + gx) & 0xff;
      raw[at + 1] = (g0 + gy) & 0xff;
      raw[at + 2] = (b0 + ((gx + gy) >> 1)) & 0xff;
      if (channels === 4) {
        const edge = Math.min(x, y, width - 1 - x, height - 1 - y);
        raw[at + 3] = edge < Math.min(width, height) / 8 ? 0 : 255;
      }
    }
  }
  return encodePng({ width, height, colour: channels === 4 ? 'rgba' : 'rgb', rows: raw, level: 1 });
}
