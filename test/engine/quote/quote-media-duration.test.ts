import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeMp3, makeMp4, makePng, makeWav } from '../../../src/emulator/media/index.js';
import { createDurationReader, readMediaDuration } from '../../../src/engine/quote/media-duration.js';
import { useTempDir } from './quote-fixtures.js';

describe('media durations read locally', () => {
  it('reads MP3, WAV and MP4 (with and without audio) lengths', async () => {
    const dir = await useTempDir();
    const files: [string, Buffer, number][] = [
      ['a.mp3', makeMp3(12), 12],
      ['b.wav', makeWav(3), 3],
      ['c.mp4', makeMp4({ seconds: 9, width: 32, height: 32, audio: true }), 9],
      ['d.mp4', makeMp4({ seconds: 21, width: 32, height: 32 }), 21],
    ];
    for (const [name, bytes, seconds] of files) {
      await writeFile(join(dir, name), bytes);
      expect(await readMediaDuration(join(dir, name)), name).toBeCloseTo(seconds, 1);
    }
  });

  it('answers undefined for a file that is not media, or is missing', async () => {
    const dir = await useTempDir();
    await writeFile(join(dir, 'p.png'), makePng({ width: 8, height: 8 }));
    await writeFile(join(dir, 'x.mp3'), 'not audio at all');
    expect(await readMediaDuration(join(dir, 'p.png'))).toBeUndefined();
    expect(await readMediaDuration(join(dir, 'x.mp3'))).toBeUndefined();
    expect(await createDurationReader().read(join(dir, 'missing.mp3'))).toBeUndefined();
  });
});
