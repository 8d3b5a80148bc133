/**
 * The `metadata` object of a URL-source job with `include_metadata` (docs/deapi-contract.md#jobs): 30
 * keys, absent values null (never omitted). YouTube-like sources fill the basic keys; TikTok
 * fills the social ones too. Values are derived from the URL, so they are stable.
 */
import { createHash } from 'node:crypto';
import { createRandom } from '../config/random.js';
import { detectPlatform } from '../media/url-media.js';

const KEYS = [
  'id', 'title', 'description', 'channel', 'channel_id', 'channel_url', 'uploader', 'uploader_id', 'uploader_url',
  'upload_date', 'timestamp', 'duration_seconds', 'extractor', 'webpage_url', 'view_count', 'like_count', 'comment_count',
  'repost_count', 'save_count', 'thumbnails', 'tags', 'categories', 'language', 'is_live', 'was_live', 'availability',
  'age_limit', 'width', 'height', 'fps',
] as const;

const EXTRACTORS: Readonly<Record<string, string>> = {
  youtube: 'youtube', twitter: 'twitter', twitch: 'twitch:vod', kick: 'kick', tiktok: 'tiktok', 'x-spaces': 'twitter:spaces',
};

/** The metadata of the media at `url`, lasting `seconds`. */
export function sourceMetadata(url: string, seconds: number): Record<string, unknown> {
  const digest = createHash('sha256').update(url).digest();
  const random = createRandom(digest.readUInt32BE(4), 'source-metadata');
  const platform = detectPlatform(url) ?? 'youtube';
  const id = digest.toString('base64url').slice(0, 11);
  const channel = `Channel ${digest.readUInt16BE(8) % 1000}`;
  const uploaded = Date.UTC(2024, 0, 1) + (digest.readUInt32BE(12) % (600 * 86_400)) * 1000;
  const out: Record<string, unknown> = Object.fromEntries(KEYS.map((k) => [k, null]));
  Object.assign(out, {
    id,
    title: `Sample ${platform} video ${id}`,
    description: `A ${Math.round(seconds)} second ${platform} source used by the deflow emulator.`,
    channel,
    uploader: channel,
    upload_date: new Date(uploaded).toISOString().slice(0, 10).replaceAll('-', ''),
    duration_seconds: Math.round(seconds),
    extractor: EXTRACTORS[platform] ?? platform,
    webpage_url: url,
    // eslint-disable-next-line no-restricted-syntax -- a view count up to a million, not money
    view_count: Math.floor(random() * 1_000_000),
    like_count: Math.floor(random() * 50_000),
    comment_count: Math.floor(random() * 5_000),
  });
  if (platform === 'tiktok') {
    Object.assign(out, {
      channel_id: `MS4w${id}`,
      channel_url: `https://www.tiktok.com/@${id}`,
      uploader_id: id,
      uploader_url: `https://www.tiktok.com/@${id}`,
      timestamp: Math.floor(uploaded / 1000),
      repost_count: Math.floor(random() * 2_000),
      save_count: Math.floor(random() * 3_000),
      thumbnails: [{ url: `https://p16.tiktokcdn.com/${id}.jpeg`, id: '0' }],
      tags: ['emulator', 'sample'],
    });
  }
  return out;
}
