/**
 * docs/reference/cli.md, generated from the commander tree that `deflow` itself runs
 * (cli/main.ts, buildProgram): every command and subcommand, its arguments, and every option
 * that `--help` shows, with its default and its allowed values.
 */
import type { Argument, Command, Option } from 'commander';
import { anchor, cell, code, generatedHeader, table } from './markdown.js';

/** The CLI reference page for `program`. */
export function renderCliReference(program: Command): string {
  const commands = program.commands.flatMap((command) => withSubcommands(command, []));
  const lines = [
    ...generatedHeader('CLI reference', 'the command tree in `src/cli/commands/`'),
    `${program.description()} Every command takes \`-h, --help\`; \`deflow -V, --version\` prints the version. Exit codes: [exit-codes.md](exit-codes.md).`,
    '',
    ...table(
      ['command', 'what it does'],
      commands.map(({ path, command }) => [`[${code(usage(path, command))}](#${anchor(`deflow ${path.join(' ')}`)})`, cell(command.description())]),
    ),
    '',
  ];
  for (const { path, command } of commands) lines.push(...renderCommand(path, command));
  return `${lines.join('\n').trimEnd()}\n`;
}

function withSubcommands(command: Command, parents: readonly string[]): { path: string[]; command: Command }[] {
  const path = [...parents, command.name()];
  if (command.commands.length === 0) return [{ path, command }];
  return command.commands.flatMap((sub) => withSubcommands(sub, path));
}

function usage(path: readonly string[], command: Command): string {
  return ['deflow', ...path, ...command.registeredArguments.map(argumentName)].join(' ');
}

function argumentName(argument: Argument): string {
  const name = `${argument.name()}${argument.variadic ? '...' : ''}`;
  return argument.required ? `<${name}>` : `[${name}]`;
}

function renderCommand(path: readonly string[], command: Command): string[] {
  const lines = [`## deflow ${path.join(' ')}`, '', '```', `${usage(path, command)}${visibleOptions(command).length > 0 ? ' [options]' : ''}`, '```', '', command.description(), ''];
  const args = command.registeredArguments;
  if (args.length > 0) {
    lines.push(
      ...table(
        ['argument', 'required', 'description'],
        args.map((a) => [code(argumentName(a)), a.required ? 'yes' : 'no', cell(sentences(a.description, choices(a.argChoices), defaultOf(a.defaultValue)))]),
      ),
      '',
    );
  }
  const options = visibleOptions(command);
  if (options.length > 0) {
    lines.push(...table(['option', 'description', 'default'], options.map((o) => [code(o.flags), cell(sentences(o.description, choices(o.argChoices))), optionDefault(o)])), '');
  }
  return lines;
}

/** Parts joined as sentences: a part that does not end a sentence gets a full stop when more follow. */
function sentences(...parts: string[]): string {
  const present = parts.filter((p) => p.trim() !== '');
  return present.map((p, i) => (i < present.length - 1 && !/[.!?)]$/.test(p.trim()) ? `${p.trim()}.` : p.trim())).join(' ');
}

function visibleOptions(command: Command): Option[] {
  return command.options.filter((o) => !o.hidden);
}

function choices(values: readonly string[] | undefined): string {
  return values && values.length > 0 ? `One of ${values.map(code).join(', ')}.` : '';
}

function defaultOf(value: unknown): string {
  return value === undefined ? '' : `Default ${code(String(value))}.`;
}

function optionDefault(option: Option): string {
  // A negatable `--no-x` defaults to x being on; commander records that as `true`.
  if (option.negate || option.defaultValue === undefined) return '';
  return code(typeof option.defaultValue === 'string' ? option.defaultValue : JSON.stringify(option.defaultValue));
}
