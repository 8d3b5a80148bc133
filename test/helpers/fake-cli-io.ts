/**
 * An in-memory CliIO: captured stdout/stderr and an interrupt the test triggers.
 */
import { PassThrough } from 'node:stream';
import type { CliIO } from '../../src/common/cli-io.js';

export interface FakeCliIO extends CliIO {
  stdoutText(): string;
  stderrText(): string;
  /** Resolves with stdout once it contains `text`. */
  waitForStdout(text: string, timeoutMs?: number): Promise<string>;
  interrupt(): void;
}

export function createFakeCliIO(cwd: string = process.cwd()): FakeCliIO {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  const waiters: { text: string; resolve: (s: string) => void }[] = [];
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const w of waiters.splice(0)) {
      if (out.includes(w.text)) w.resolve(out);
      else waiters.push(w);
    }
  });
  stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  let interrupted = false;
  let resolveInterrupt: () => void = () => {};
  const interruptedPromise = new Promise<void>((resolve) => {
    resolveInterrupt = resolve;
  });
  return {
    stdout,
    stderr,
    stdin: new PassThrough(),
    env: {},
    cwd,
    interrupted: interruptedPromise,
    isInterrupted: () => interrupted,
    stdoutText: () => out,
    stderrText: () => err,
    waitForStdout(text, timeoutMs = 10_000) {
      if (out.includes(text)) return Promise.resolve(out);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`stdout never contained ${JSON.stringify(text)}; got ${JSON.stringify(out)}`)), timeoutMs);
        waiters.push({
          text,
          resolve: (s) => {
            clearTimeout(timer);
            resolve(s);
          },
        });
      });
    },
    interrupt() {
      interrupted = true;
      resolveInterrupt();
    },
  };
}
