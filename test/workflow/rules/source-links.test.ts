import { describe, expect, it } from 'vitest';
import { sourceLinks } from '../../../src/workflow/rules/source-links.js';
import { runRule, useTempDirs } from '../helpers.js';

const tempDir = useTempDirs();

const describeStep = (forEach: string, url: string): string =>
  `version: 1\nsteps:\n  d:\n    task: video.describe\n${forEach}    with: { video_url: ${url}, model: Marlin_2B }\n`;
const transcribeStep = (url: string): string =>
  `version: 1\nsteps:\n  t:\n    task: audio.transcribe\n    with: { source_url: "${url}", model: WhisperLargeV3, include_ts: false }\n`;

describe('sourceLinks', () => {
  it('accepts links to the platforms the spec names (YouTube, Twitter/X, Twitch, Kick, TikTok)', async () => {
    for (const url of ['https://www.youtube.com/watch?v=a', 'https://youtu.be/a', 'https://x.com/u/status/1', 'https://twitter.com/u/status/1', 'https://www.twitch.tv/videos/1', 'https://kick.com/video/1', 'https://www.tiktok.com/@u/video/1']) {
      expect((await runRule(tempDir, sourceLinks, describeStep('', `"${url}"`))).errors, url).toEqual([]);
    }
  });

  it('refuses a Vimeo link for video description at load time, with what is accepted', async () => {
    expect((await runRule(tempDir, sourceLinks, describeStep('', '"https://vimeo.com/76979871"'))).errors).toEqual([
      'wf.yaml:5:24: steps.d.with.video_url: expected a link to YouTube, X/Twitter, Twitch, Kick or TikTok, got "https://vimeo.com/76979871" (vimeo.com)',
    ]);
  });

  it('refuses X Spaces for video description but accepts them for transcription', async () => {
    const spaces = 'https://x.com/i/spaces/1YqGoAbcd';
    expect((await runRule(tempDir, sourceLinks, describeStep('', `"${spaces}"`))).errors).toEqual([
      `wf.yaml:5:24: steps.d.with.video_url: expected a link to YouTube, X/Twitter, Twitch, Kick or TikTok, got "${spaces}" (X Spaces)`,
    ]);
    expect((await runRule(tempDir, sourceLinks, transcribeStep(spaces))).errors).toEqual([]);
    expect((await runRule(tempDir, sourceLinks, transcribeStep('https://example.com/talk.mp4'))).errors).toEqual([
      'wf.yaml:5:25: steps.t.with.source_url: expected a link to YouTube, X/Twitter, Twitch, Kick, TikTok or X Spaces, got "https://example.com/talk.mp4" (example.com)',
    ]);
  });

  it('names every item whose link is refused, each with its item', async () => {
    const yaml = describeStep('    for_each: { items: ["https://youtu.be/a", "https://vimeo.com/1", "https://dai.ly/x"] }\n', '"${{ item.value }}"');
    expect((await runRule(tempDir, sourceLinks, yaml)).errors).toEqual([
      'wf.yaml:6:24: steps.d.with.video_url: expected a link to YouTube, X/Twitter, Twitch, Kick or TikTok, got "https://vimeo.com/1" (vimeo.com) (item 1)',
      'wf.yaml:6:24: steps.d.with.video_url: expected a link to YouTube, X/Twitter, Twitch, Kick or TikTok, got "https://dai.ly/x" (dai.ly) (item 2)',
    ]);
  });
});
