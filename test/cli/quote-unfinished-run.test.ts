/**
 * `deflow quote` prices what a plain `deflow run` would pay, and that run resumes the unfinished
 * run of the workflow: the items it finished are kept ($0 to pay, "already have" from the
 * journal, even for a step the result cache does not keep), the jobs it only submitted are still
 * to pay (their charge is not known to be made). `run --dry-run` agrees.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { clips } from '../engine/journal/durable-helpers.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { createFakeCliIO, type FakeCliIO } from '../helpers/fake-cli-io.js';
import { transcribeThenSpeak } from '../fixtures/workflows.js';

/** Transcription is not kept in the result cache: only the journal can say it is done. */
const WORKFLOW = transcribeThenSpeak('unfinished', { transcribe: ['    cache: false'] });

/**
 * Transcriptions finish at once; speech jobs take an hour, so they are in flight when the run is
 * stopped. The clock runs 100 times faster (the run follows it), so the interrupt's grace period
 * for polls passes in a fraction of a second.
 */
function useServiceEmulator(): Promise<RunningEmulator> {
  return useEmulator({
    config: {
      time_scale: 100,
      balance: 100,
      jobs: { duration_ms: 50, durations: { 'audio/transcriptions': 50, 'audio/speech': 3_600_000 }, scale_by_input: false },
      rate_limits: { jobs_status: null },
    },
  });
}

function ioFor(dir: string, emulator: RunningEmulator): FakeCliIO {
  return { ...createFakeCliIO(dir), env: { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api } };
}

interface QuoteJson {
  to_pay: { point: number; high: number };
  already_have: { items: number };
  steps: { id: string; already_have: { items: number }; quoted_items: { price: number | null; held?: { source: string } }[] }[];
}

async function quoteJson(dir: string, emulator: RunningEmulator, args: string[]): Promise<QuoteJson> {
  const io = ioFor(dir, emulator);
  const code = await runCli(args, io);
  expect(code, io.stderrText()).toBe(0);
  const text = io.stdoutText();
  return JSON.parse(text.slice(text.indexOf('{'))) as QuoteJson;
}

describe('deflow quote after an unfinished run', () => {
  it('prices the items the run finished at $0 (from the journal) and the jobs it only submitted as still to pay', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': WORKFLOW, ...clips(3) });
    const emulator = await useServiceEmulator();
    const fresh = await quoteJson(dir, emulator, ['quote', 'workflow.yaml', '--format', 'json']);
    const speakPrices = fresh.steps.find((s) => s.id === 'speak')!.quoted_items.map((i) => i.price);

    // The run: three transcriptions done, three speech jobs submitted and still running; then Ctrl-C.
    const io = ioFor(dir, emulator);
    const running = runCli(['run', 'workflow.yaml', '--json', '--quiet'], io);
    for (let i = 0; i < 3; i++) await io.waitForStdout(`"step":"speak","index":${i}`, 20_000);
    await waitFor(() => (io.stdoutText().match(/"type":"item-submitted"[^\n]*"step":"speak"/g) ?? []).length === 3);
    io.interrupt();
    expect(await running).toBe(130);

    const quote = await quoteJson(dir, emulator, ['quote', 'workflow.yaml', '--format', 'json']);
    const transcribe = quote.steps.find((s) => s.id === 'transcribe')!;
    const speak = quote.steps.find((s) => s.id === 'speak')!;
    expect(transcribe.already_have.items).toBe(3);
    for (const item of transcribe.quoted_items) expect(item).toMatchObject({ price: 0, held: { source: 'journal' } });
    // In flight is not done: the resumed run polls those jobs and pays for them when they finish.
    expect(speak.already_have.items).toBe(0);
    expect(speak.quoted_items.map((i) => i.price)).toEqual(speakPrices);
    expect(quote.already_have.items).toBe(3);
    expect(quote.to_pay.point).toBeGreaterThan(0);

    // --no-cache leaves the journal as it is: the resumed run would not pay for a done item either.
    expect((await quoteJson(dir, emulator, ['quote', 'workflow.yaml', '--format', 'json', '--no-cache'])).already_have.items).toBe(3);
    // `run --dry-run` prices the same.
    const dry = ((await quoteJson(dir, emulator, ['run', 'workflow.yaml', '--dry-run', '--json'])) as unknown as { quote: QuoteJson }).quote;
    expect({ have: dry.already_have.items, toPay: dry.to_pay.point }).toEqual({ have: 3, toPay: quote.to_pay.point });
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(condition()).toBe(true);
}
