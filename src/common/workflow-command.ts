/*
 * GitHub Actions workflow commands (`::error title=…::message`), escaped exactly as
 * @actions/core's `command.ts` does, so the runner unescapes them back to the original text.
 */

/** Escapes a command's message: `%`, CR and LF. */
export function escapeCommandData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a command property value: as {@link escapeCommandData}, plus `:` and `,` (the property separators). */
export function escapeCommandProperty(value: string): string {
  return escapeCommandData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * One workflow command line (without the newline). Like the toolkit, properties whose value
 * is undefined or empty are left out.
 */
export function formatWorkflowCommand(
  command: string,
  properties: Readonly<Record<string, string | number | undefined>>,
  message: string,
): string {
  const props = Object.entries(properties)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '')
    .map(([key, value]) => `${key}=${escapeCommandProperty(String(value))}`);
  return `::${command}${props.length > 0 ? ` ${props.join(',')}` : ''}::${escapeCommandData(message)}`;
}
