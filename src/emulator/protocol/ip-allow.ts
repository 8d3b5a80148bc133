/**
 * Key IP whitelists (docs/deapi-contract.md#authentication-and-keys): single addresses and CIDR ranges, IPv4 and
 * IPv6, where an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is the IPv4 address it maps.
 */
import { BlockList, isIP } from 'node:net';

/** Decides whether a calling address may use a key. */
export interface IpAllowList {
  /** True when the list is empty (any address) or `address` is on it. */
  allows(address: string): boolean;
}

interface ParsedEntry {
  readonly address: string;
  readonly family: 'ipv4' | 'ipv6';
  readonly prefix: number | null;
}

const MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** Parses one whitelist entry, or returns null when it is neither an address nor a CIDR range. */
export function parseIpEntry(entry: string): ParsedEntry | null {
  const [rawAddress = '', rawPrefix, extra] = entry.trim().split('/');
  if (extra !== undefined) return null;
  let address = rawAddress;
  let prefix = rawPrefix === undefined ? null : /^\d{1,3}$/.test(rawPrefix) ? Number(rawPrefix) : Number.NaN;
  if (Number.isNaN(prefix)) return null;
  const mapped = MAPPED.exec(address);
  if (mapped?.[1] && isIP(mapped[1]) === 4) {
    // A mapped range below /96 would cover non-IPv4 space; it cannot be expressed as IPv4.
    if (prefix !== null && prefix < 96) return null;
    address = mapped[1];
    prefix = prefix === null ? null : prefix - 96;
  }
  const version = isIP(address);
  if (version === 0) return null;
  const max = version === 4 ? 32 : 128;
  if (prefix !== null && (prefix < 0 || prefix > max)) return null;
  return { address, family: version === 4 ? 'ipv4' : 'ipv6', prefix };
}

/** True when `entry` is a valid whitelist entry. */
export function isValidIpEntry(entry: string): boolean {
  return parseIpEntry(entry) !== null;
}

/** The calling address with any IPv4 mapping removed (`::ffff:127.0.0.1` → `127.0.0.1`). */
export function normaliseAddress(address: string): string {
  const mapped = MAPPED.exec(address);
  return mapped?.[1] && isIP(mapped[1]) === 4 ? mapped[1] : address;
}

/** Builds the allow list of a key; invalid entries were refused when the key was configured. */
export function createIpAllowList(entries: readonly string[]): IpAllowList {
  if (entries.length === 0) return { allows: () => true };
  const list = new BlockList();
  for (const entry of entries) {
    const parsed = parseIpEntry(entry);
    if (!parsed) continue;
    if (parsed.prefix === null) list.addAddress(parsed.address, parsed.family);
    else list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return {
    allows(address: string): boolean {
      const plain = normaliseAddress(address);
      const version = isIP(plain);
      if (version === 0) return false;
      return list.check(plain, version === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
