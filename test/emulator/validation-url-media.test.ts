import { describe, expect, it } from 'vitest';
import { detectPlatform, urlMediaSeconds } from '../../src/emulator/media/url-media.js';

describe('URL sources', () => {
  it.each([
    ['https://www.youtube.com/watch?v=abc', 'youtube'],
    ['https://youtu.be/abc', 'youtube'],
    ['https://x.com/user/status/1', 'twitter'],
    ['https://twitter.com/user/status/1', 'twitter'],
    ['https://x.com/i/spaces/1ABC', 'x-spaces'],
    ['https://www.twitch.tv/videos/1', 'twitch'],
    ['https://kick.com/video/1', 'kick'],
    ['https://vm.tiktok.com/ZM1/', 'tiktok'],
  ])('%s is on %s', (url, platform) => {
    expect(detectPlatform(url)).toBe(platform);
  });

  it.each(['https://vimeo.com/1', 'ftp://youtube.com/x', 'not a url', 'https://notyoutube.com/x'])('%s is not a supported source', (url) => {
    expect(detectPlatform(url)).toBeUndefined();
  });

  it('takes the length from deflow_duration, else derives it from the URL (30-600 s)', () => {
    expect(urlMediaSeconds('https://youtu.be/a?deflow_duration=75.5')).toBe(75.5);
    const derived = urlMediaSeconds('https://youtu.be/abc');
    expect(derived).toBe(urlMediaSeconds('https://youtu.be/abc'));
    expect(derived).toBeGreaterThanOrEqual(30);
    expect(derived).toBeLessThanOrEqual(600);
    expect(Number.isInteger(derived)).toBe(true);
  });
});
