// `node --import test/helpers/module-trace.mjs …`: writes every module the process loaded (ESM
// imports and CommonJS requires, as resolved URLs or paths) to $MODULE_TRACE_OUT, one a line,
// when it exits. For tests that hold a command's start to the modules it needs.
import { writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const loaded = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => loaded.add(url));
port1.unref();
register(
  `data:text/javascript,${encodeURIComponent(
    'let port; export function initialize(data) { port = data.port; } export async function resolve(specifier, context, next) { const found = await next(specifier, context); port.postMessage(found.url); return found; }',
  )}`,
  { data: { port: port2 }, transferList: [port2] },
);
const Module = createRequire(import.meta.url)('node:module');
const load = Module._load;
Module._load = function (request, parent, isMain) {
  try {
    loaded.add(Module._resolveFilename(request, parent, isMain));
  } catch {
    // Built-ins and failures: not ours to record.
  }
  return load.apply(this, arguments);
};
process.on('exit', () => writeFileSync(process.env.MODULE_TRACE_OUT, [...loaded].join('\n')));
