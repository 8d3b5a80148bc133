/**
 * What the emulator knows about a hosted media URL without fetching it: its platform and a
 * deterministic length. Emulator extension (documented, for tests): a `deflow_duration=SECONDS`
 * query parameter sets the length; otherwise it is 30 + (first 4 bytes of SHA-256(url) mod 571)
 * seconds, i.e. between 30 s and 10 min.
 */
import { createHash } from 'node:crypto';

export type SourcePlatform = 'youtube' | 'twitter' | 'twitch' | 'kick' | 'tiktok' | 'x-spaces';

const HOSTS: readonly (readonly [string, SourcePlatform])[] = [
  ['youtube.com', 'youtube'],
  ['youtu.be', 'youtube'],
  ['x.com', 'twitter'],
  ['twitter.com', 'twitter'],
  ['twitch.tv', 'twitch'],
  ['kick.com', 'kick'],
  ['tiktok.com', 'tiktok'],
];

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

/** The length in seconds the emulator assigns to the media at `raw`. */
export function urlMediaSeconds(raw: string): number {
  const url = parseHttpUrl(raw);
  const override = url?.searchParams.get('deflow_duration');
  if (override !== undefined && override !== null) {
    const seconds = Number(override);
    if (Number.isFinite(seconds) && seconds > 0) return seconds;
  }
  const digest = createHash('sha256').update(raw).digest();
  return 30 + (digest.readUInt32BE(0) % 571);
}
