/**
 * An npm registry on loopback that offers, for each package of the project's package-lock.json,
 * exactly the locked version (its packument built from the lockfile entry: dependencies, bin,
 * engines, os/cpu, integrity). npm resolves a fresh install against it as against the public
 * registry, and takes every tarball from its own cache by integrity (`--prefer-offline`); the
 * tarball URLs answer 404, so an install that is not in the cache fails instead of reaching out.
 * With `npmEnv()` npm has no way out but loopback: every other request goes to a dead proxy.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

interface LockEntry {
  readonly version?: string;
  readonly name?: string;
  readonly link?: boolean;
  readonly integrity?: string;
  readonly [field: string]: unknown;
}

const MANIFEST_FIELDS = ['dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta', 'bin', 'engines', 'os', 'cpu', 'libc', 'hasInstallScript', 'license'];

export interface LocalRegistry {
  readonly url: string;
  /** Every path asked for, in order. */
  readonly requests: readonly string[];
  /** Environment for an npm that talks to this registry only. */
  npmEnv(cache?: string): NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** Starts the registry of `root`'s package-lock.json on a free loopback port. */
export async function startLocalRegistry(root: string): Promise<LocalRegistry> {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const packuments = new Map<string, { name: string; versions: Record<string, Record<string, unknown>> }>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.link === true || entry.version === undefined || entry.integrity === undefined) continue;
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const packument = packuments.get(name) ?? { name, versions: {} };
    const manifest: Record<string, unknown> = { name, version: entry.version, dist: { integrity: entry.integrity } };
    for (const field of MANIFEST_FIELDS) if (entry[field] !== undefined) manifest[field] = entry[field];
    packument.versions[entry.version] = manifest;
    packuments.set(name, packument);
  }
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '/';
    requests.push(path);
    const packument = path.startsWith('/-/') ? undefined : packuments.get(decodeURIComponent(path.slice(1)));
    if (packument === undefined) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const versions = Object.fromEntries(
      Object.entries(packument.versions).map(([version, manifest]) => {
        const file = `${packument.name.replace('/', '-')}-${version}.tgz`;
        return [version, { ...manifest, dist: { ...(manifest['dist'] as object), tarball: `${base}/-/${file}` } }];
      }),
    );
    const latest = Object.keys(versions).at(-1)!;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: packument.name, 'dist-tags': { latest }, versions }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    requests,
    npmEnv: (cache) => {
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
      return {
        ...env,
        npm_config_registry: url,
        // Anything else npm would fetch goes to a port where nothing listens.
        npm_config_proxy: 'http://127.0.0.1:9',
        npm_config_https_proxy: 'http://127.0.0.1:9',
        npm_config_noproxy: '127.0.0.1',
        npm_config_prefer_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
        ...((cache ?? process.env['npm_config_cache']) === undefined ? {} : { npm_config_cache: cache ?? process.env['npm_config_cache'] }),
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
