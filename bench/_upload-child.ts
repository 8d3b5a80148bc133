/**
 * One upload variant in its own process, so that its peak RSS is its own:
 * `node dist-bench/bench/_upload-child.js deflow|naive URL KEY FILE`. After a warm-up request it
 * takes the peak RSS so far as the baseline, uploads FILE as the `video` of a video upscale,
 * and prints `{"variant","status","bytes","seconds","rss_growth_mb","sampled_growth_mb"}`.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { FormData, fetch } from 'undici';
import { DeapiClient } from '../src/client/deapi-client.js';
import { ApiError } from '../src/client/errors/api-error.js';

const [variant = 'deflow', url = '', key = '', file = ''] = process.argv.slice(2);
const MiB = 1024 * 1024;

const client = new DeapiClient({ apiKey: key, baseUrl: url, governor: false });
await client.balance();
await fetch(`${url}/api/v2/account/balance`, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } }).then((r) => r.text());
global.gc?.();
const baseline = process.resourceUsage().maxRSS * 1024;
let sampledPeak = process.memoryUsage().rss;
const sampler = setInterval(() => {
  sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss);
}, 5);

const { size } = await stat(file);
const started = performance.now();
let status: number;
if (variant === 'deflow') {
  status = await client.submit('video.upscale', { video: { path: file }, model: 'RealESRGAN_Vid_x2' }).then(
    () => 200,
    (error: unknown) => {
      if (error instanceof ApiError) return error.status;
      throw error;
    },
  );
} else {
  // The naive way: the whole file in memory, wrapped in a Blob, sent with fetch.
  const form = new FormData();
  form.append('model', 'RealESRGAN_Vid_x2');
  form.append('video', new Blob([await readFile(file)], { type: 'video/mp4' }), basename(file));
  const res = await fetch(`${url}/api/v2/videos/upscales`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
    body: form,
  });
  await res.text();
  status = res.status;
}
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
await client.close();
const peak = process.resourceUsage().maxRSS * 1024;
process.stdout.write(
  `${JSON.stringify({
    variant,
    status,
    bytes: size,
    seconds,
    rss_growth_mb: (peak - baseline) / MiB,
    sampled_growth_mb: (sampledPeak - baseline) / MiB,
  })}\n`,
);
process.exit(0);
