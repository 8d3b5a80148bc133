/**
 * A standalone emulator for benchmarks that must not count its memory: `node
 * dist-bench/bench/_emulator-process.js '<config JSON>'` prints `{"url","api","admin"}` on one
 * line, then runs until its standard input closes or it gets SIGTERM.
 */
import { linkBenchSchemas } from './_bench-schemas.js';

linkBenchSchemas();
const { startEmulator } = await import('../src/emulator/start-emulator.js');
const emulator = await startEmulator({ config: JSON.parse(process.argv[2] ?? '{}') as object });
process.stdout.write(`${JSON.stringify({ url: emulator.url, api: emulator.keys.api, admin: emulator.keys.admin })}\n`);
const stop = (): void => {
  void emulator.close().then(() => process.exit(0));
};
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
