/**
 * Whether human output may use ANSI colour, decided from the environment we were given rather
 * than `process.env` (listr2's colorette decides once, at import, from the real process), so
 * tests and embedders control it.
 */
export interface ColorDecisionOptions {
  readonly env: NodeJS.ProcessEnv;
  /** Whether the stream the colour goes to is a terminal. */
  readonly isTTY: boolean;
  /** `--color` / `--no-color`: wins over everything, as a flag should (clig.dev precedence). */
  readonly override?: boolean | undefined;
}

/**
 * Precedence: the flag; then `NO_COLOR` present and non-empty (no-color.org) disables; then
 * `FORCE_COLOR` non-empty enables (`0`/`false` disable, as supports-color reads them); then
 * `TERM=dumb` disables; otherwise colour follows the TTY.
 */
export function shouldUseColor(options: ColorDecisionOptions): boolean {
  if (options.override !== undefined) return options.override;
  const { env } = options;
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (env['TERM'] === 'dumb') return false;
  return options.isTTY;
}

/** A few SGR styles; every one is the identity when colour is off. */
export interface Palette {
  readonly enabled: boolean;
  readonly red: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly cyan: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly bold: (text: string) => string;
}

/** The palette for `enabled`. */
export function createPalette(enabled: boolean): Palette {
  const style =
    (open: number, close: number) =>
    (text: string): string =>
      enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    red: style(31, 39),
    green: style(32, 39),
    yellow: style(33, 39),
    cyan: style(36, 39),
    dim: style(2, 22),
    bold: style(1, 22),
  };
}
