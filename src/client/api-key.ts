import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { API_KEY_ENV, DeflowError } from '../common/index.js';

/** Where the key may come from: never a command-line value (shell history, `ps`). */
export interface ApiKeySources {
  readonly env: NodeJS.ProcessEnv;
  /** `--api-key-file`: a path, or `-` for standard input. */
  readonly apiKeyFile?: string | undefined;
  readonly stdin?: NodeJS.ReadableStream | undefined;
  readonly cwd?: string | undefined;
}

export { API_KEY_ENV };

/**
 * Reads the key from `--api-key-file` (a path or `-`) or else `DEAPI_API_KEY`, trimmed.
 * Resolves to undefined when neither is set. Errors never quote the file's content.
 */
export async function readApiKey(sources: ApiKeySources): Promise<string | undefined> {
  if (sources.apiKeyFile !== undefined) {
    const file = sources.apiKeyFile;
    let text: string;
    try {
      text = file === '-' ? await readAll(sources.stdin ?? process.stdin) : await readFile(resolve(sources.cwd ?? process.cwd(), file), 'utf8');
    } catch (error) {
      throw new DeflowError('E_USAGE_KEY_FILE', `--api-key-file ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`, {
        cause: error,
      });
    }
    const key = text.trim();
    if (key === '') throw new DeflowError('E_USAGE_KEY_FILE', `--api-key-file ${file}: expected an API key, the file is empty`);
    if (/\s/.test(key)) throw new DeflowError('E_USAGE_KEY_FILE', `--api-key-file ${file}: expected one key on one line`);
    return key;
  }
  const fromEnv = sources.env[API_KEY_ENV]?.trim();
  return fromEnv ? fromEnv : undefined;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
