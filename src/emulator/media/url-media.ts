/**
 * What the emulator knows about a hosted media URL without fetching it: its platform and a
 * deterministic length. Emulator extension (documented, for tests): a `deflow_duration=SECONDS`
 * query parameter sets the length; otherwise it is 30 + (first 4 bytes of SHA-256(url) mod 571)
 * seconds, i.e. between 30 s and 10 min.
 */
import { createHash } from 'node:crypto';

import { parseHttpUrl } from '../../service/index.js';

export { detectPlatform, parseHttpUrl, type SourcePlatform } from '../../service/index.js';

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
