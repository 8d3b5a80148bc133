import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import { parseBuffer, parseFile } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectMedia } from '../../src/emulator/media/inspect-media.js';
import { makeJpeg, makeMp3, makeMp4, makePng, makeWav, makeWebp } from '../../src/emulator/media/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deflow-media-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function saved(name: string, body: Buffer): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, body);
  return path;
}

describe('generated images', () => {
  it('a PNG is sniffed as image/png with the requested size', async () => {
    const png = makePng({ width: 640, height: 384, seed: 7 });
    expect(await fileTypeFromBuffer(png)).toEqual({ ext: 'png', mime: 'image/png' });
    expect(imageSize(png)).toMatchObject({ width: 640, height: 384, type: 'png' });
  });

  it('a transparent PNG is sniffed as image/png', async () => {
    const png = makePng({ width: 32, height: 16, alpha: true });
    expect((await fileTypeFromBuffer(png))?.mime).toBe('image/png');
    expect(imageSize(png)).toMatchObject({ width: 32, height: 16 });
  });

  it('a JPEG is sniffed as image/jpeg with the requested size', async () => {
    const jpg = makeJpeg(1000, 750);
    expect(await fileTypeFromBuffer(jpg)).toEqual({ ext: 'jpg', mime: 'image/jpeg' });
    expect(imageSize(jpg)).toMatchObject({ width: 1000, height: 750, type: 'jpg' });
  });

  it('a WebP is sniffed as image/webp with the requested size', async () => {
    const webp = makeWebp(300, 200);
    expect(await fileTypeFromBuffer(webp)).toEqual({ ext: 'webp', mime: 'image/webp' });
    expect(imageSize(webp)).toMatchObject({ width: 300, height: 200, type: 'webp' });
  });
});

describe('generated audio', () => {
  it('an MP3 is sniffed as audio/mpeg and lasts the requested time', async () => {
    const mp3 = makeMp3(30);
    expect(await fileTypeFromBuffer(mp3)).toEqual({ ext: 'mp3', mime: 'audio/mpeg' });
    const meta = await parseFile(await saved('a.mp3', mp3));
    expect(meta.format.duration).toBeCloseTo(30, 1);
    expect(meta.format.container).toBe('MPEG');
  });

  it('a WAV is sniffed as audio/wav and lasts the requested time', async () => {
    const wav = makeWav(12.5, 8000);
    expect((await fileTypeFromBuffer(wav))?.ext).toBe('wav');
    const meta = await parseBuffer(wav, { mimeType: 'audio/wav' });
    expect(meta.format.duration).toBeCloseTo(12.5, 3);
    expect(meta.format.sampleRate).toBe(8000);
  });
});

describe('generated video', () => {
  it('an MP4 is sniffed as video/mp4 and has a video track of the requested size', async () => {
    const mp4 = makeMp4({ seconds: 4, width: 768, height: 512, fps: 24 });
    expect(await fileTypeFromBuffer(mp4)).toEqual({ ext: 'mp4', mime: 'video/mp4' });
    const meta = await parseFile(await saved('v.mp4', mp4));
    expect(meta.format.hasVideo).toBe(true);
    expect(meta.format.trackInfo.some((t) => t.type === 2)).toBe(false);
  });

  it('an MP4 with audio reports an audio track and its duration', async () => {
    const mp4 = makeMp4({ seconds: 6, width: 256, height: 256, fps: 24, audio: true });
    const meta = await parseFile(await saved('va.mp4', mp4));
    expect(meta.format.hasVideo).toBe(true);
    expect(meta.format.trackInfo.some((t) => t.type === 2)).toBe(true);
    expect(meta.format.duration).toBeCloseTo(6, 1);
  });
});

describe('inspecting uploads by content', () => {
  it('reads a video-only MP4: video family, duration, no audio track', async () => {
    const media = await inspectMedia(await saved('probe.bin', makeMp4({ seconds: 12, width: 320, height: 240, fps: 30 })));
    expect(media).toMatchObject({ family: 'video', ext: 'mp4', mime: 'video/mp4', hasVideo: true, hasAudio: false });
    expect(media.durationSeconds).toBeCloseTo(12, 3);
  });

  it('reads an MP3 named .png as audio with its duration', async () => {
    const media = await inspectMedia(await saved('fake.png', makeMp3(20)));
    expect(media).toMatchObject({ family: 'audio', ext: 'mp3', mime: 'audio/mpeg', hasVideo: false, hasAudio: true });
    expect(media.durationSeconds).toBeCloseTo(20, 1);
  });

  it('reads image dimensions', async () => {
    expect(await inspectMedia(await saved('i.dat', makePng({ width: 33, height: 17 })))).toEqual({ family: 'image', ext: 'png', mime: 'image/png', width: 33, height: 17 });
  });

  it('knows nothing about bytes of no known format', async () => {
    expect(await inspectMedia(await saved('x.mp3', Buffer.from('hello world, not media')))).toEqual({ family: null, ext: null, mime: null });
  });
});
