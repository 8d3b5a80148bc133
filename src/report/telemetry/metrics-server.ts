/**
 * `/metrics` for Prometheus to scrape (`--metrics-port` of `deflow worker` and of a `--queue`
 * coordinator): the text exposition format of a prom-client registry, on loopback unless a
 * host is given. Anything else answers 404.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MetricsServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

export interface MetricsSource {
  text(): Promise<string>;
  readonly contentType: string;
}

export async function serveMetrics(source: MetricsSource, port: number, host = '127.0.0.1'): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    source.text().then(
      (text) => response.writeHead(200, { 'content-type': source.contentType }).end(text),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  server.unref();
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
