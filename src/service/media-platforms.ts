/**
 * The hosting platforms whose links the service accepts as sources (spec, video description:
 * "hosted video from the same platforms as transcription (YouTube, Twitter/X, Twitch, Kick,
 * TikTok); audio-only sources and live streams are rejected"; transcription also takes X
 * Spaces). The workflow validator checks links against this at load time, and the emulator
 * refuses others with 422, as the service does.
 */

export type SourcePlatform = 'youtube' | 'twitter' | 'twitch' | 'kick' | 'tiktok' | 'x-spaces';

/** How messages name each platform. */
export const PLATFORM_NAMES: Readonly<Record<SourcePlatform, string>> = {
  youtube: 'YouTube',
  twitter: 'X/Twitter',
  twitch: 'Twitch',
  kick: 'Kick',
  tiktok: 'TikTok',
  'x-spaces': 'X Spaces',
};

const HOSTS: readonly (readonly [string, SourcePlatform])[] = [
  ['youtube.com', 'youtube'],
  ['youtu.be', 'youtube'],
  ['x.com', 'twitter'],
  ['twitter.com', 'twitter'],
  ['twitch.tv', 'twitch'],
  ['kick.com', 'kick'],
  ['tiktok.com', 'tiktok'],
];

const ALL_PLATFORMS: readonly SourcePlatform[] = ['youtube', 'twitter', 'twitch', 'kick', 'tiktok', 'x-spaces'];
/** Video sources: X Spaces are audio-only, which video description and v1 vid2txt refuse. */
const VIDEO_PLATFORMS: readonly SourcePlatform[] = ['youtube', 'twitter', 'twitch', 'kick', 'tiktok'];

/** The platforms each source-link field accepts (the same names on v1 and v2 paths). */
export const PLATFORMS_BY_FIELD: Readonly<Record<string, readonly SourcePlatform[]>> = {
  source_url: ALL_PLATFORMS,
  video_url: VIDEO_PLATFORMS,
  audio_url: ALL_PLATFORMS,
};

/** The parsed URL when `raw` is an absolute http(s) URL, else undefined. */
export function parseHttpUrl(raw: string): URL | undefined {
  if (!URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0 ? url : undefined;
}

/** The platform hosting `raw`, or undefined when it is not one the service accepts. */
export function detectPlatform(raw: string): SourcePlatform | undefined {
  const url = parseHttpUrl(raw);
  if (!url) return undefined;
  const host = url.hostname.toLowerCase();
  const match = HOSTS.find(([domain]) => host === domain || host.endsWith(`.${domain}`));
  if (!match) return undefined;
  if (match[1] === 'twitter' && /^\/i\/spaces\//.test(url.pathname)) return 'x-spaces';
  return match[1];
}
