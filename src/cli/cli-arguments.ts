import { parseArgs } from 'node:util';
import { UsageError } from './cli-context.js';

/** One flag of a command: its type and the form of its value, shown in every error about it. */
interface FlagSpec {
  type?: 'string' | 'boolean';
  /** The value's expected form, e.g. `USD, e.g. 10 or 2.50`. */
  form?: string;
}

export type FlagSpecs = Record<string, FlagSpec>;

export interface ParsedFlags {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** `--amount USD (e.g. 10 or 2.50)`, or `--dry-run` for a boolean. */
function describeFlag(name: string, spec: FlagSpec | undefined): string {
  if (!spec || spec.type === 'boolean') return `--${name}`;
  return spec.form ? `--${name} ${spec.form}` : `--${name} VALUE`;
}

function flagList(specs: FlagSpecs): string {
  const names = Object.keys(specs);
  return names.length === 0 ? 'no flags' : names.map((name) => describeFlag(name, specs[name])).join(', ');
}

/**
 * A value that starts with a dash and is a number (`--amount -3`) is joined to its flag
 * (`--amount=-3`), so the command's own check answers "must be positive" instead of Node's
 * "argument is ambiguous".
 */
function joinNegativeNumbers(args: string[], specs: FlagSpecs): string[] {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const argument = args[index];
    const next = args[index + 1];
    const name = argument.startsWith('--') ? argument.slice(2) : '';
    if (specs[name] && specs[name].type !== 'boolean' && next !== undefined && /^-\.?\d/.test(next)) {
      joined.push(`${argument}=${next}`);
      index++;
    } else joined.push(argument);
  }
  return joined;
}

/**
 * parseArgs for one command, with its errors rewritten to name the command, the flag and the
 * form its value takes. Every failure is a UsageError (exit code 2).
 */
export function parseFlags(
  command: string,
  args: string[],
  specs: FlagSpecs,
  options: { positionals?: boolean } = {},
): ParsedFlags {
  const parseOptions = Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => [name, { type: spec.type ?? 'string' }]),
  ) as Record<string, { type: 'string' | 'boolean' }>;
  try {
    const { values, positionals } = parseArgs({
      args: joinNegativeNumbers(args, specs),
      options: parseOptions,
      strict: true,
      allowPositionals: options.positionals ?? false,
    });
    return { values: values as ParsedFlags['values'], positionals };
  } catch (error) {
    throw argumentError(command, error as Error & { code?: string }, specs);
  }
}

function argumentError(command: string, error: Error & { code?: string }, specs: FlagSpecs): UsageError {
  const quoted = /'([^']+)'/.exec(error.message)?.[1] ?? '';
  const flag = quoted.split(' ')[0];
  const name = flag.replace(/^-+/, '');
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`${command}: unknown flag ${flag}; it takes ${flagList(specs)}`, command);
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError(`${command}: unexpected argument "${quoted}"; it takes ${flagList(specs)}`, command);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (specs[name]?.type === 'boolean')
        return new UsageError(`${command}: ${flag} takes no value (write just ${flag})`, command);
      return new UsageError(
        `${command}: ${flag} needs a value: ${describeFlag(name, specs[name])}` +
          ' (a value that starts with "-" is written ' +
          `${flag}=-…)`,
        command,
      );
    default:
      return new UsageError(`${command}: ${error.message}`, command);
  }
}

/** A UsageError naming every missing flag with its form, e.g. `keys create needs --email E and --name N`. */
export function requireFlags(command: string, parsed: ParsedFlags, names: string[], specs: FlagSpecs): void {
  const missing = names.filter((name) => {
    const value = parsed.values[name];
    return value === undefined || value === '';
  });
  if (missing.length === 0) return;
  const described = missing.map((name) => describeFlag(name, specs[name]));
  const list = described.length === 1 ? described[0] : `${described.slice(0, -1).join(', ')} and ${described.at(-1)}`;
  throw new UsageError(`${command} needs ${list}`, command);
}

/** A whole number within bounds, or a UsageError naming the flag and the range. */
export function wholeNumberFlag(
  command: string,
  flag: string,
  text: string | undefined,
  minimum: number,
  maximum = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || value < minimum || value > maximum) {
    const range = maximum === Number.MAX_SAFE_INTEGER ? `of at least ${minimum}` : `from ${minimum} to ${maximum}`;
    throw new UsageError(`${command}: --${flag} must be a whole number ${range} (got "${text}")`, command);
  }
  return value;
}
