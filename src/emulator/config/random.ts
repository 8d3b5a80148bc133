/**
 * Seeded pseudo-random numbers. Every random choice of the emulator (job failures, jitter,
 * faults, generated keys) comes from one of these, so a config with the same `seed` replays
 * the same run.
 */

/** A source of deterministic numbers in [0, 1). */
export type RandomSource = () => number;

/** A sfc32 generator seeded from `seed` and a stream name (independent streams per use). */
export function createRandom(seed: number, stream = ''): RandomSource {
  let a = 0x9e3779b9 ^ (seed | 0);
  let b = 0x243f6a88 ^ hashString(stream);
  let c = 0xb7e15162 ^ Math.floor(seed / 0x1_0000_0000);
  let d = 1;
  const next = (): number => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4_294_967_296;
  };
  // The first outputs of sfc32 are poorly mixed; discard them.
  for (let i = 0; i < 15; i++) next();
  return next;
}

/** `length` lowercase hex characters drawn from `random`. */
export function randomHex(random: RandomSource, length: number): string {
  let out = '';
  while (out.length < length) out += Math.floor(random() * 16).toString(16);
  return out;
}

function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
