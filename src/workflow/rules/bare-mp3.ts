/**
 * A file that opens on an MP3 frame (MPEG audio Layer III, no ID3 tag), recognised without
 * file-type, the sniffer deflow loads for any other file: loading it and running its few
 * hundred signature checks costs a start of `deflow validate` over a folder of clips more than
 * the rest of the validation. file-type finds such a file to be MP3 as its last resort, after
 * every other signature; the few of those that look past the first bytes (and so could also
 * match a file that opens on a frame) are checked here first, and any that might match leaves
 * the file to file-type.
 */

/** What file-type reports for an MP3 file. */
export const MP3 = { ext: 'mp3', mime: 'audio/mpeg' } as const;

/** How much of the head file-type looks at for the signatures below (its buffer is zero past the file's end). */
const LOOKED_AT = 512;

/** Signatures file-type checks at a fixed offset past the start, whatever the first bytes: offset and bytes. */
const FURTHER_SIGNATURES: readonly (readonly [number, string | readonly number[]])[] = [
  [2, [0x27, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]], // shp
  [4, 'free'], // mov
  [4, 'mdat'],
  [4, 'moov'],
  [4, 'wide'],
  [4, 'ftyp'], // mp4 and its kin
  [7, '**ACE'], // ace
  [34, 'LP'], // eot
  [36, 'acsp'], // icc
  [44, 'SCRM'], // s3m
  [60, 'BOOKMOBI'], // mobi
  [128, 'DICM'], // dcm
  [257, 'ustar'], // tar
];

/** Whether `head` (a file's first bytes) opens on an MP3 frame that file-type would report as MP3 and nothing else. */
export function isBareMp3(head: Uint8Array): boolean {
  if (head.length < 4) return false;
  const [b0, b1, b2] = head as unknown as [number, number, number];
  // The frame sync (11 bits), layer III; a version, bitrate and sample rate that exist.
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0 || (b1 & 0x06) !== 0x02) return false;
  if ((b1 & 0x18) === 0x08 || b2 >> 4 === 0 || b2 >> 4 === 0x0f || ((b2 >> 2) & 0x03) === 0x03) return false;
  const bytes = new Uint8Array(LOOKED_AT);
  bytes.set(head.subarray(0, LOOKED_AT));
  const at = (offset: number, expected: string | readonly number[]): boolean => {
    for (let i = 0; i < expected.length; i++) {
      const byte = typeof expected === 'string' ? expected.charCodeAt(i) : expected[i];
      if (bytes[offset + i] !== byte) return false;
    }
    return true;
  };
  if (FURTHER_SIGNATURES.some(([offset, expected]) => at(offset, expected))) return false;
  // A transport stream with 4-byte packet headers: 0x47 at 4 and 196.
  if (bytes[4] === 0x47 && bytes[196] === 0x47) return false;
  // A tar header of zeros at 257 whose checksum field (at 148) holds a number.
  if (at(257, [0, 0, 0, 0, 0, 0]) && bytes[148] !== 0) return false;
  return true;
}
