/**
 * Silent FLAC: 16-bit mono at the given sample rate. A STREAMINFO block carries the exact
 * sample count (so parsers read the duration), then one frame per 4096 samples, each holding
 * a single CONSTANT subframe of value 0 (silence), with the header CRC-8 and frame CRC-16
 * that decoders check. About 10 bytes per frame.
 */

const BLOCK = 4096;
/** Block-size code of 4096 samples (256 × 2^(12-8)). */
const BLOCK_CODE_4096 = 0b1100;
/** Block-size code "16-bit (size - 1) follows the frame number" (the shorter last frame). */
const BLOCK_CODE_16BIT = 0b0111;

/** A silent FLAC of `seconds` seconds (at least one sample). */
export function makeFlac(seconds: number, sampleRate = 16_000): Buffer {
  const rate = Math.max(1, Math.min(655_350, Math.round(sampleRate)));
  const total = Math.max(1, Math.round(seconds * rate));
  const frames: Buffer[] = [];
  for (let n = 0, done = 0; done < total; n++, done += BLOCK) frames.push(frame(n, Math.min(BLOCK, total - done)));
  return Buffer.concat([Buffer.from('fLaC', 'latin1'), streamInfo(rate, total), ...frames]);
}

function streamInfo(rate: number, total: number): Buffer {
  const out = Buffer.alloc(4 + 34);
  out[0] = 0x80; // last metadata block, type 0 (STREAMINFO)
  out.writeUIntBE(34, 1, 3); // its length
  out.writeUInt16BE(BLOCK, 4); // min block size (the last, shorter block does not count)
  out.writeUInt16BE(BLOCK, 6); // max block size
  // 8..13: min and max frame size, 0 = unknown.
  // 20 bits sample rate, 3 bits channels - 1 (0: mono), 5 bits bits-per-sample - 1 (15), 36 bits total samples.
  const high = total > 0xffff_ffff ? Math.floor(total / 2 ** 32) & 0xf : 0;
  out.writeUInt32BE(((rate << 12) | (0 << 9) | (15 << 4) | high) >>> 0, 14);
  out.writeUInt32BE(total >>> 0, 18);
  // 22..37: MD5 of the audio, 0 = not computed.
  return out;
}

function frame(index: number, samples: number): Buffer {
  const last = samples !== BLOCK;
  const header = [0xff, 0xf8, ((last ? BLOCK_CODE_16BIT : BLOCK_CODE_4096) << 4) | 0b0000, 0b0000_100_0, ...utf8Number(index)];
  if (last) header.push(((samples - 1) >> 8) & 0xff, (samples - 1) & 0xff);
  header.push(crc8(header));
  // Subframe: padding bit, type 000000 (CONSTANT), no wasted bits; then the 16-bit sample 0.
  const body = [...header, 0x00, 0x00, 0x00];
  const crc = crc16(body);
  return Buffer.from([...body, crc >> 8, crc & 0xff]);
}

/** A frame number in FLAC's UTF-8-like coding. */
function utf8Number(value: number): number[] {
  if (value < 0x80) return [value];
  const bytes: number[] = [];
  let rest = value;
  let room = 0x3f; // payload bits left in the lead byte shrink as continuation bytes are added
  while (rest > room >> 1) {
    bytes.unshift(0x80 | (rest & 0x3f));
    rest = Math.floor(rest / 64);
    room >>= 1;
  }
  const lead = (0xff << (7 - bytes.length)) & 0xff;
  return [lead | rest, ...bytes];
}

function crc8(bytes: readonly number[]): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

function crc16(bytes: readonly number[]): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
