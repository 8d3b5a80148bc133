/**
 * `deflow emulator --port 0` as a process of its own, for the slow tests that run the built CLI
 * against it: started in a folder (by default with `--config emulator.yaml` there), its URL and
 * API key read from the lines it prints, stopped with SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { onTestFinished } from 'vitest';

export interface EmulatorProcess {
  readonly url: string;
  readonly key: string;
  /** SIGTERM, then the exit (nothing when it has already exited). */
  stop(): Promise<void>;
}

export interface EmulatorProcessOptions {
  /** The arguments after `emulator --port 0`. @default ['--config', 'emulator.yaml'] */
  readonly args?: readonly string[];
  /** Stop it when the current test finishes. @default false (the caller stops it) */
  readonly stopAfterTest?: boolean;
}

/** Starts `node <main> emulator --port 0 …` in `dir` (`main`: the built CLI) and waits until it listens. */
export async function startEmulatorProcess(main: string, dir: string, options: EmulatorProcessOptions = {}): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [main, 'emulator', '--port', '0', ...(options.args ?? ['--config', 'emulator.yaml'])], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = (): Promise<void> => stopChild(child);
  if (options.stopAfterTest === true) onTestFinished(stop);
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`the emulator exited with ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (/api key: \S+/.test(out)) resolve();
    });
  });
  child.removeAllListeners('exit');
  return { url: /listening on (\S+)/.exec(out)![1]!, key: /api key: (\S+)/.exec(out)![1]!, stop };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}
