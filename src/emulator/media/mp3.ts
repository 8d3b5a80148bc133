/**
 * Silent MP3: MPEG-1 Layer III frames at 32 kbit/s, 48 kHz, mono. Each frame is 96 bytes
 * and lasts 24 ms (1152 samples); its side information is all zero, which decodes to
 * silence. Constant bit rate, so parsers derive the duration from the size.
 */

const FRAME_BYTES = 96;
const FRAME_SECONDS = 1152 / 48_000;

const FRAME = ((): Buffer => {
  const frame = Buffer.alloc(FRAME_BYTES);
  // Sync, MPEG-1, Layer III, no CRC | 32 kbit/s, 48 kHz, no padding | mono.
  frame.set([0xff, 0xfb, 0x14, 0xc0], 0);
  return frame;
})();

/** A silent MP3 of about `seconds` seconds (rounded to whole 24 ms frames, at least one). */
export function makeMp3(seconds: number): Buffer {
  const frames = Math.max(1, Math.round(seconds / FRAME_SECONDS));
  const out = Buffer.alloc(frames * FRAME_BYTES);
  for (let i = 0; i < frames; i++) FRAME.copy(out, i * FRAME_BYTES);
  return out;
}
