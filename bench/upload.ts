/**
 * `npm run bench -- upload [--mb 50] [--big-mb 200] [--reps 2]`
 *
 * Peak RSS growth of the client process while it submits one large file: deflow's streamed
 * multipart (the file read in 16 KiB pieces into a form-data body over undici request())
 * against a naive upload (readFile → Blob → undici FormData over fetch). Each variant runs in its own child process and
 * the emulator in another, so only the uploader's memory counts. The file is a valid MP4
 * padded with a `free` box, sent as the `video` of a video upscale. deflow also uploads a
 * `--big-mb` file to show that its memory does not grow with the file. Target: ≤ 40 MiB.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { makeMp4 } from '../src/emulator/media/index.js';
import { median, printTable, readNumberArg, round } from './_bench-util.js';

const here = dirname(fileURLToPath(import.meta.url));
const run_ = promisify(execFile);

interface ChildResult {
  readonly variant: string;
  readonly status: number;
  readonly bytes: number;
  readonly seconds: number;
  readonly rss_growth_mb: number;
  readonly sampled_growth_mb: number;
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const mb = readNumberArg(args, 'mb', 50);
  const bigMb = readNumberArg(args, 'big-mb', 200);
  const reps = readNumberArg(args, 'reps', 2);
  const dir = await mkdtemp(join(tmpdir(), 'deflow-bench-upload-'));
  const emulator = await startEmulatorProcess();
  try {
    const file = await writePaddedMp4(join(dir, 'upload.mp4'), mb * 1_000_000);
    const big = await writePaddedMp4(join(dir, 'big.mp4'), bigMb * 1_000_000);
    process.stdout.write(`upload: ${mb} MB file (and ${bigMb} MB for deflow), ${reps} reps, emulator in its own process\n`);
    const results: Record<string, ChildResult[]> = { deflow: [], naive: [], deflowBig: [] };
    for (let rep = 0; rep < reps; rep++) {
      results.deflow!.push(await runChild('deflow', emulator, file));
      results.naive!.push(await runChild('naive', emulator, file));
      results.deflowBig!.push(await runChild('deflow', emulator, big));
    }
    const summary = (list: ChildResult[]) => ({
      rss_growth_mb: round(median(list.map((r) => r.rss_growth_mb)), 1),
      sampled_growth_mb: round(median(list.map((r) => r.sampled_growth_mb)), 1),
      mb_per_s: round(median(list.map((r) => r.bytes / 1_000_000 / r.seconds)), 1),
      status: list[0]?.status,
    });
    const deflow = summary(results.deflow!);
    const naive = summary(results.naive!);
    const deflowBig = summary(results.deflowBig!);
    printTable(
      ['variant', 'file MB', 'peak RSS growth MiB', 'sampled MiB', 'MB/s', 'HTTP'],
      [
        ['deflow', mb, deflow.rss_growth_mb, deflow.sampled_growth_mb, deflow.mb_per_s, String(deflow.status)],
        ['naive', mb, naive.rss_growth_mb, naive.sampled_growth_mb, naive.mb_per_s, String(naive.status)],
        ['deflow', bigMb, deflowBig.rss_growth_mb, deflowBig.sampled_growth_mb, deflowBig.mb_per_s, String(deflowBig.status)],
      ],
    );
    process.stdout.write(`naive/deflow RSS growth: ${round(naive.rss_growth_mb / Math.max(deflow.rss_growth_mb, 0.1), 1)}x\n`);
    return {
      file_mb: mb,
      deflow: { rss_growth_mb: deflow.rss_growth_mb, mb_per_s: deflow.mb_per_s, [`rss_growth_mb_at_${bigMb}mb`]: deflowBig.rss_growth_mb },
      naive: { rss_growth_mb: naive.rss_growth_mb, mb_per_s: naive.mb_per_s },
    };
  } finally {
    emulator.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function runChild(variant: string, emulator: { url: string; api: string }, file: string): Promise<ChildResult> {
  const { stdout } = await run_(process.execPath, [join(here, '_upload-child.js'), variant, emulator.url, emulator.api, file], {
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ChildResult;
}

async function startEmulatorProcess(): Promise<{ url: string; api: string; stop(): void }> {
  const config = { balance: 1_000_000, rate_limits: { generation: null, fallback: null, quote: null, jobs_status: null } };
  const child = spawn(process.execPath, [join(here, '_emulator-process.js'), JSON.stringify(config)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const [line] = (await once(lines, 'line')) as [string];
  const info = JSON.parse(line) as { url: string; api: string };
  return { ...info, stop: () => child.stdin.end() };
}

/** A valid MP4 followed by a `free` box of zeros, written in chunks (never whole in memory). */
async function writePaddedMp4(path: string, totalBytes: number): Promise<string> {
  const movie = makeMp4({ seconds: 10, width: 640, height: 360 });
  const padding = totalBytes - movie.length - 8;
  const out = createWriteStream(path);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + padding, 0);
  head.write('free', 4, 'latin1');
  out.write(movie);
  out.write(head);
  const chunk = Buffer.alloc(1024 * 1024);
  for (let left = padding; left > 0; left -= chunk.length) {
    if (!out.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return path;
}
