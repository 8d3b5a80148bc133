/** Small helpers shared by benchmarks. */

/** Reads `--name value` from benchmark arguments. */
export function readNumberArg(args: readonly string[], name: string, fallback: number): number {
  const index = args.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = Number(args[index + 1]);
  if (!Number.isFinite(value)) throw new Error(`--${name}: expected a number, got ${String(args[index + 1])}`);
  return value;
}

/** Rounds to `digits` decimals. */
export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Prints rows as aligned columns on stdout. */
export function printTable(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): void {
  const text = [headers, ...rows].map((r) => r.map(String));
  const widths = headers.map((_, i) => Math.max(...text.map((r) => (r[i] ?? '').length)));
  for (const r of text) process.stdout.write(`${r.map((c, i) => c.padStart(widths[i] ?? 0)).join('  ')}\n`);
}

/** The median of `values` (the lower middle one for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

/** Transcribe every clip of `clips/*.mp3`, the transcript in the answer, nothing saved; named `name`. */
export function transcribeClipsWorkflow(name: string): string {
  return [
    'version: 1',
    `name: ${name}`,
    'steps:',
    '  transcribe:',
    '    task: audio.transcribe',
    '    for_each: { glob: "clips/*.mp3" }',
    '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false, return_result_in_response: true }',
    '',
  ].join('\n');
}

/** The benches' transcribe-then-speak workflow over `clips/*.mp3`, named `name`. */
export function transcribeThenSpeakWorkflow(name: string): string {
  return [
    transcribeClipsWorkflow(name).trimEnd(),
    '  speak:',
    '    task: audio.speech',
    '    for_each: transcribe',
    '    with: { text: "${{ steps.transcribe.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
    '',
  ].join('\n');
}
