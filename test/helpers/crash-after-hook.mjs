// TEST ONLY, loaded with `node --import <this file>`: with DEFLOW_TEST_CRASH_AFTER=<type>:<n>
// (e.g. `intent:3`) the process SIGKILLs itself right after the n-th durable journal record of
// that type, before its append resolves, so a crash harness can stop the real CLI between
// journalling an intent and sending it. The product only publishes each durable record on the
// `deflow:journal:durable` diagnostics channel; it reads no test variable.
import { subscribe } from 'node:diagnostics_channel';

const spec = process.env.DEFLOW_TEST_CRASH_AFTER ?? '';
if (spec !== '') {
  const match = /^([a-z]+):([1-9]\d*)$/.exec(spec);
  if (match === null) {
    process.stderr.write(`DEFLOW_TEST_CRASH_AFTER=${spec}: expected <record type>:<n>, e.g. intent:3\n`);
    process.exit(2);
  }
  const type = match[1];
  const n = Number(match[2]);
  let seen = 0;
  subscribe('deflow:journal:durable', (message) => {
    if (message.record.t === type && ++seen === n) process.kill(process.pid, 'SIGKILL');
  });
}
