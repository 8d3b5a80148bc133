/** What `deflow completion` does (completion.ts defines the command): a script built from the commander tree. */
import type { Command, Option } from 'commander';
import { DeflowError, EXIT } from '../../common/index.js';
import type { CliIO } from '../../common/index.js';
import { SHELLS } from './option-values.js';

interface OptionSpec {
  readonly long: string;
  readonly short: string | null;
  readonly takesValue: boolean;
  readonly choices: readonly string[];
  readonly description: string;
}

interface CommandSpec {
  readonly name: string;
  readonly description: string;
  readonly options: readonly OptionSpec[];
  /** Choices of its first argument (`completion <shell>`), else none: files are offered. */
  readonly argChoices: readonly string[];
}

export async function runCompletion(shell: string, program: Command, io: CliIO): Promise<number> {
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new DeflowError('E_USAGE_OPTION', `completion: unknown shell ${JSON.stringify(shell)}; expected one of ${SHELLS.join(', ')}`, { details: { shell } });
  }
  const commands = describeCommands(program);
  const script = shell === 'bash' ? bashScript(commands) : shell === 'zsh' ? zshScript(commands) : fishScript(commands);
  io.stdout.write(script);
  return EXIT.ok;
}

/** The commands and options commander knows, plus --help on each. */
export function describeCommands(program: Command): CommandSpec[] {
  return program.commands.map((command) => ({
    name: command.name(),
    description: command.description(),
    options: [...command.options.filter((o) => !o.hidden).map(describeOption), { long: '--help', short: '-h', takesValue: false, choices: [], description: 'display help for command' }],
    argChoices: command.registeredArguments[0]?.argChoices ?? (command.name() === 'completion' ? [...SHELLS] : []),
  }));
}

function describeOption(option: Option): OptionSpec {
  return {
    long: option.long ?? option.flags,
    short: option.short ?? null,
    // An optional value is attached (`--wait-lock=10m`, see main.ts): the next word is not the option's.
    takesValue: option.required,
    choices: option.argChoices ?? [],
    description: option.description,
  };
}

function bashScript(commands: readonly CommandSpec[]): string {
  const cases = commands.map((c) => {
    const flags = c.options.flatMap((o) => (o.short ? [o.long, o.short] : [o.long]));
    const valued = c.options.filter((o) => o.takesValue).map((o) => o.long);
    const choices = c.options.filter((o) => o.choices.length > 0).map((o) => `        ${o.long}) COMPREPLY=( $(compgen -W "${o.choices.join(' ')}" -- "$cur") ); return ;;`);
    return [
      `    ${c.name})`,
      `      opts="${flags.join(' ')}"`,
      `      valued=" ${valued.join(' ')} "`,
      `      args="${c.argChoices.join(' ')}"`,
      choices.length > 0 ? `      case "$prev" in\n${choices.join('\n')}\n      esac` : '',
      '      ;;',
    ]
      .filter((line) => line !== '')
      .join('\n');
  });
  return `# deflow completion for bash. Load it with: source <(deflow completion bash)
# (or save it as /etc/bash_completion.d/deflow). Generated from deflow's command definitions.
_deflow() {
  local cur prev opts valued args
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [[ \${COMP_CWORD} -eq 1 ]]; then
    COMPREPLY=( $(compgen -W "${commands.map((c) => c.name).join(' ')} --help --version" -- "$cur") )
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases.join('\n')}
    *) return ;;
  esac
  if [[ "$valued" == *" $prev "* ]]; then
    COMPREPLY=( $(compgen -f -- "$cur") )
    return
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
  elif [[ -n "$args" ]]; then
    COMPREPLY=( $(compgen -W "$args" -- "$cur") )
  else
    COMPREPLY=( $(compgen -f -- "$cur") )
  fi
}
complete -o filenames -o bashdefault -F _deflow deflow
`;
}

/** Text safe inside a zsh `_arguments` spec or `_describe` entry. */
function zshText(text: string): string {
  return text.replace(/[[\]:'\\]/g, ' ').replace(/\s+/g, ' ').trim();
}

function zshScript(commands: readonly CommandSpec[]): string {
  const list = commands.map((c) => `    '${c.name}:${zshText(c.description)}'`).join('\n');
  const cases = commands.map((c) => {
    const specs = c.options.map((o) => {
      const value = !o.takesValue ? '' : o.choices.length > 0 ? `:value:(${o.choices.join(' ')})` : ':value:_files';
      const text = `[${zshText(o.description)}]${value}`;
      return o.short ? `{${o.short},${o.long}}'${text}'` : `'${o.long}${text}'`;
    });
    const arg = c.argChoices.length > 0 ? `'1:${c.name} argument:(${c.argChoices.join(' ')})'` : "'*:file:_files'";
    return `      ${c.name}) _arguments ${[...specs, arg].join(' ')} ;;`;
  });
  return `#compdef deflow
# deflow completion for zsh. Load it with: source <(deflow completion zsh)
# (or save it as _deflow in a folder of $fpath). Generated from deflow's command definitions.
_deflow() {
  local -a commands
  commands=(
${list}
  )
  local curcontext="$curcontext" state line
  _arguments -C '(- *)'{-h,--help}'[display help]' '(- *)'{-V,--version}'[print the version]' '1:command:->command' '*::argument:->argument'
  case $state in
    command) _describe -t commands 'deflow command' commands ;;
    argument)
      case $line[1] in
${cases.join('\n')}
      esac ;;
  esac
}
if [[ "$funcstack[1]" = "_deflow" ]]; then _deflow "$@"; else compdef _deflow deflow; fi
`;
}

/** Text safe inside fish single quotes. */
function fishText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}

function fishScript(commands: readonly CommandSpec[]): string {
  const names = commands.map((c) => c.name).join(' ');
  const lines = [
    "# deflow completion for fish. Load it with: deflow completion fish | source",
    "# (or save it as ~/.config/fish/completions/deflow.fish). Generated from deflow's command definitions.",
    'complete -c deflow -f',
    `complete -c deflow -n 'not __fish_seen_subcommand_from ${names}' -s h -l help -d 'display help'`,
    `complete -c deflow -n 'not __fish_seen_subcommand_from ${names}' -s V -l version -d 'print the version'`,
  ];
  for (const c of commands) {
    lines.push(`complete -c deflow -n 'not __fish_seen_subcommand_from ${names}' -a ${c.name} -d '${fishText(c.description)}'`);
    const when = `-n '__fish_seen_subcommand_from ${c.name}'`;
    if (c.argChoices.length > 0) lines.push(`complete -c deflow ${when} -a '${c.argChoices.join(' ')}'`);
    else lines.push(`complete -c deflow ${when} -F`);
    for (const o of c.options) {
      const short = o.short ? ` -s ${o.short.replace(/^-/, '')}` : '';
      const value = !o.takesValue ? '' : o.choices.length > 0 ? ` -r -f -a '${o.choices.join(' ')}'` : ' -r -F';
      lines.push(`complete -c deflow ${when}${short} -l ${o.long.replace(/^--/, '')}${value} -d '${fishText(o.description)}'`);
    }
  }
  return `${lines.join('\n')}\n`;
}
