import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeMp4 } from '../../src/common/probe-mp4.js';
import { makeMp4, makeMp3 } from '../../src/emulator/media/index.js';

describe('probeMp4', () => {
  const dir = mkdtempSync(join(tmpdir(), 'deflow-probe-'));

  it('reads the duration, tracks and size of an MP4 with video and audio', async () => {
    const path = join(dir, 'av.mp4');
    writeFileSync(path, makeMp4({ seconds: 12.5, width: 320, height: 240, audio: true }));
    const probe = await probeMp4(path);
    expect(probe?.durationSeconds).toBeCloseTo(12.5, 3);
    expect(probe).toMatchObject({ hasVideo: true, hasAudio: true, width: 320, height: 240 });
  });

  it('tells a video-only MP4 apart', async () => {
    const path = join(dir, 'v.mp4');
    writeFileSync(path, makeMp4({ seconds: 3, width: 64, height: 64 }));
    expect(await probeMp4(path)).toMatchObject({ hasVideo: true, hasAudio: false });
  });

  it('answers undefined for a file that is not an ISO BMFF movie', async () => {
    const path = join(dir, 'a.mp3');
    writeFileSync(path, makeMp3(2));
    expect(await probeMp4(path)).toBeUndefined();
  });
});
