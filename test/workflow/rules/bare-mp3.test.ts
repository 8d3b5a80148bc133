import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { fileTypeFromBuffer } from 'file-type/core';
import { describe, expect, it } from 'vitest';
import { makeMp3 } from '../../../src/emulator/media/index.js';
import { isBareMp3 } from '../../../src/workflow/rules/bare-mp3.js';

const root = new URL('../../../', import.meta.url).pathname;

/** A frame header: sync, MPEG 1 or 2 or 2.5, layer III, a real bitrate and sample rate. */
const frameHeader = fc
  .record({ version: fc.constantFrom(0, 2, 3), protection: fc.integer({ min: 0, max: 1 }), bitrate: fc.integer({ min: 1, max: 14 }), rate: fc.integer({ min: 0, max: 2 }), low: fc.integer({ min: 0, max: 3 }) })
  .map(({ version, protection, bitrate, rate, low }) => [0xff, 0xe0 | (version << 3) | 0x02 | protection, (bitrate << 4) | (rate << 2) | low]);

/** A head that opens on a frame: the header, then any bytes (a file's first 4100 at most). */
const headOnFrame = fc.tuple(frameHeader, fc.uint8Array({ minLength: 1, maxLength: 4097 })).map(([header, rest]) => Buffer.concat([Buffer.from(header), rest]));

/** A frame's head with `bytes` written at `offset` (the head made long enough). */
function planted(offset: number, bytes: string | readonly number[], length = 600): Buffer {
  const head = Buffer.alloc(length);
  makeMp3(1).copy(head, 0, 0, 4);
  (typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes)).copy(head, offset);
  return head;
}

describe('a bare MP3 frame is found without file-type, as file-type finds it', () => {
  it("the emulator's MP3s (frames only) are bare MP3s, and file-type says mp3 of each", async () => {
    for (const seconds of [0.05, 1, 20, 57, 120]) {
      const head = makeMp3(seconds).subarray(0, 4100);
      expect(isBareMp3(head), `${seconds} s`).toBe(true);
      expect(await fileTypeFromBuffer(head)).toEqual({ ext: 'mp3', mime: 'audio/mpeg' });
    }
  });

  it('any head that opens on a frame and is taken for a bare MP3 is mp3 to file-type too (1,500 random heads)', async () => {
    let taken = 0;
    await fc.assert(
      fc.asyncProperty(headOnFrame, async (head) => {
        if (!isBareMp3(head)) return;
        taken++;
        expect(await fileTypeFromBuffer(head)).toEqual({ ext: 'mp3', mime: 'audio/mpeg' });
      }),
      { numRuns: 1500, seed: 29 },
    );
    expect(taken).toBeGreaterThan(1400);
  });

  it('a frame whose further bytes hold another signature file-type checks first is left to file-type, which names another format', async () => {
    const tar = planted(257, [0, 0, 0, 0, 0, 0], 512);
    let sum = 8 * 0x20;
    for (let i = 0; i < 512; i++) if (i < 148 || i >= 156) sum += tar[i]!;
    Buffer.from(`${sum.toString(8).padStart(6, '0')}\0`, 'latin1').copy(tar, 148);
    const ts = planted(4, [0x47]);
    ts[196] = 0x47;
    const cases: [string, Buffer][] = [
      ['mp4 (ftyp at 4)', planted(4, 'ftypisom')],
      ['mov (moov at 4)', planted(4, 'moov')],
      ['icc (acsp at 36)', planted(36, 'acsp')],
      ['s3m (SCRM at 44)', planted(44, 'SCRM')],
      ['mobi (BOOKMOBI at 60)', planted(60, 'BOOKMOBI')],
      ['dcm (DICM at 128)', planted(128, 'DICM')],
      ['tar (ustar at 257)', planted(257, 'ustar\0')],
      ['tar (a zero header with its checksum)', tar],
      ['mts (0x47 at 4 and 196)', ts],
      ['ace (**ACE at 7, ** at 12)', planted(7, '**ACE**')],
    ];
    for (const [name, head] of cases) {
      expect(isBareMp3(head), name).toBe(false);
      expect((await fileTypeFromBuffer(head))?.ext, name).not.toBe('mp3');
    }
  });

  it('no other MPEG audio, no ID3 tag, no short head: AAC (ADTS), layer II, an ID3-tagged MP3, a reserved version or rate, 3 bytes', async () => {
    const demoClip = await readFile(`${root}workflows/media/clips/hello.mp3`);
    expect(demoClip.subarray(0, 3).toString('latin1')).toBe('ID3');
    for (const head of [Buffer.from([0xff, 0xf1, 0x50, 0x80]), Buffer.from([0xff, 0xfd, 0x90, 0x00]), demoClip, Buffer.from([0xff, 0xeb, 0x90, 0]), Buffer.from([0xff, 0xfb, 0x9c, 0]), Buffer.from([0xff, 0xfb, 0x90])]) {
      expect(isBareMp3(head), head.subarray(0, 4).toString('hex')).toBe(false);
    }
  });
});
