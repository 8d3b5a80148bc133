/**
 * Running a benchmark's client in a child process, so that its CPU time and peak RSS are its
 * own (the emulator stays in the parent), on a virtual clock both processes compute the same
 * way: `performance.timeOrigin + performance.now()` is the system's epoch in both.
 */
import { spawn } from 'node:child_process';
import type { Clock } from '../src/common/clock.js';

/** Where a shared virtual clock is anchored. */
export interface ClockAnchor {
  /** Real epoch ms (high resolution) at the anchor. */
  readonly realMs: number;
  /** Virtual epoch ms at the anchor. */
  readonly virtualMs: number;
  readonly timeScale: number;
}

/** An anchor at this moment. */
export function anchorNow(timeScale: number): ClockAnchor {
  return { realMs: realNow(), virtualMs: Date.now(), timeScale };
}

/** The virtual clock of `anchor`; two processes with the same anchor read the same time. */
export function anchoredClock(anchor: ClockAnchor): Clock {
  const { realMs, virtualMs, timeScale } = anchor;
  return {
    now: () => virtualMs + (realNow() - realMs) * timeScale,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const timer = setTimeout(
          () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          Math.max(0, ms / timeScale),
        );
        const onAbort = (): void => {
          clearTimeout(timer);
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    realPerVirtual: 1 / timeScale,
  };
}

function realNow(): number {
  return performance.timeOrigin + performance.now();
}

/** What a child reports on its last stdout line, plus its resource use. */
export interface ChildReport {
  readonly [key: string]: unknown;
  /** Peak resident set size, MiB. */
  readonly peak_rss_mb: number;
  /** User + system CPU, ms. */
  readonly cpu_ms: number;
}

/** Runs `script --child <json>` with node and resolves with the JSON of its last stdout line. */
export function runChild(script: string, payload: unknown, options: { readonly execArgv?: readonly string[] } = {}): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.execArgv ?? []), script, '--child', JSON.stringify(payload)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0) {
        reject(new Error(`${script} child exited with ${code}: ${last}`));
        return;
      }
      try {
        resolve(JSON.parse(last) as ChildReport);
      } catch {
        reject(new Error(`${script} child printed no JSON result: ${last}`));
      }
    });
  });
}

/** The child's own peak RSS (MiB) and CPU (ms), for its report. */
export function ownUsage(): { peak_rss_mb: number; cpu_ms: number } {
  const usage = process.resourceUsage();
  return { peak_rss_mb: Math.round((usage.maxRSS / 1024) * 10) / 10, cpu_ms: (usage.userCPUTime + usage.systemCPUTime) / 1000 };
}
