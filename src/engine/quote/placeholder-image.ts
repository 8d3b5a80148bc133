/**
 * A blank image of a given size, for asking a price twin that takes only the image itself
 * (upscale, background removal, OCR, edit) what an image an upstream step will produce costs:
 * those twins price by pixels, and the size is what the workflow fixes. A grey 8-bit PNG: a
 * 2048×2048 one compresses to a few kilobytes. Sent as a stream, never written to disk.
 */
import { Readable } from 'node:stream';
import { encodePng } from '../../common/index.js';
import type { ImageSize } from './quote-estimate.js';

/** A grey PNG of `size` (whole pixels, at least 1×1). */
export function placeholderPng(size: ImageSize): Buffer {
  const width = Math.max(1, Math.round(size.width));
  const height = Math.max(1, Math.round(size.height));
  // Each row: filter byte 0, then `width` grey samples.
  const raw = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) raw[y * (width + 1)] = 0;
  return encodePng({ width, height, colour: 'grey', rows: raw });
}

/** The placeholder as a request field value (a stream the client can open again on a retry). */
export function placeholderImageField(size: ImageSize): { stream: () => Readable; size: number; filename: string; contentType: string } {
  const bytes = placeholderPng(size);
  return { stream: () => Readable.from([bytes]), size: bytes.length, filename: `placeholder-${size.width}x${size.height}.png`, contentType: 'image/png' };
}

/** How a placeholder shows in a request's identity and in the quote cache. */
export function placeholderShown(size: ImageSize): { placeholder_png: string } {
  return { placeholder_png: `${Math.round(size.width)}x${Math.round(size.height)}` };
}
