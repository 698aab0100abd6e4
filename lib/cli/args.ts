/**
 * Command-line parsing shared by every subcommand: a command declares its flags once, with a help text each,
 * and gets from that its `--help` page and a parser whose mistakes are one line each — an unknown flag names
 * the closest known one ("unknown option --judge-run; did you mean --judge-runs?"), a flag missing its value
 * says which value it wants — instead of the parser's own multi-line text.
 * @module
 */
import { closestName } from "../core/closest.ts";
import { ConfigError } from "../core/errors.ts";

/** One flag of a command. */
export interface FlagSpec {
  /** What the flag does, in one line (shown by `--help`). */
  help: string;
  /** Placeholder of the flag's value (e.g. `DIR`); a flag without one is a switch (`--no-render`). */
  value?: string;
  /** The flag may be given more than once (values collected in order). */
  multiple?: boolean;
  /** One-letter alias (`-o`). */
  short?: string;
}

/** What `--help` prints for a command and which flags it accepts. */
export interface CommandSpec<F extends Record<string, FlagSpec> = Record<string, FlagSpec>> {
  /** How the command is run, e.g. `deno task irt fit`. */
  command: string;
  /** The positional part of the synopsis, e.g. `RUN_DIR FILE.csv` (empty when none). */
  positionals?: string;
  /** What the command does, one paragraph. */
  description: string;
  /** The flags, by name without the leading `--`. */
  flags: F;
  /** Extra lines printed after the flags (formats, examples). */
  notes?: string[];
}

/** The parsed value type of one flag: a string, a list of strings, or a switch. */
export type FlagValue<S extends FlagSpec> = S extends { value: string }
  ? S extends { multiple: true } ? string[]
  : string
  : boolean;

/** The parsed flags of a command: each flag's value, or `undefined` when it was not given. */
export type FlagValues<F extends Record<string, FlagSpec>> = { [K in keyof F]?: FlagValue<F[K]> };

/** What {@linkcode parseCommand} returns. */
export interface ParsedCommand<F extends Record<string, FlagSpec>> {
  /** The flags given. */
  values: FlagValues<F>;
  /** The arguments that are not flags, in order. */
  positionals: string[];
  /** `--help` or `-h` was given: print {@linkcode commandUsage} and do nothing else. */
  help: boolean;
}

/**
 * Returns the known flag closest to `unknown` (names without `--`): one that starts with it or it starts with,
 * else the nearest by edit distance when that distance is at most a third of the name (at least 2).
 */
export function closestFlag(unknown: string, known: readonly string[]): string | undefined {
  const prefixed = known.filter((k) => k.startsWith(unknown) || unknown.startsWith(k));
  if (prefixed.length) {
    return prefixed.sort((x, y) =>
      Math.abs(x.length - unknown.length) - Math.abs(y.length - unknown.length)
    )[0];
  }
  return closestName(unknown, known);
}

/** The one-line message for an unknown flag, naming the closest known flag when there is one. */
export function unknownFlagMessage(flag: string, known: readonly string[], command: string): string {
  const near = closestFlag(flag, known);
  return `unknown option --${flag}${
    near ? `; did you mean --${near}?` : ""
  } (${command} --help lists the options)`;
}

/**
 * Checks `args` against the declared flags before parsing, so every mistake is one line naming the flag:
 * an unknown `--flag` (with the closest known one), a value flag at the end or followed by another flag, a
 * value given to a switch, an unknown `-x`. `valueFlags` take a value; `switches` do not.
 */
export function checkFlags(
  args: readonly string[],
  valueFlags: readonly string[],
  switches: readonly string[],
  command: string,
  shorts: Readonly<Record<string, string>> = {},
): void {
  const known = [...valueFlags, ...switches, "help"];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") return;
    if (arg.startsWith("--")) {
      const [name, inline] = splitOnce(arg.slice(2), "=");
      if (!known.includes(name)) throw new ConfigError(unknownFlagMessage(name, known, command));
      if (valueFlags.includes(name)) {
        if (inline !== undefined) continue;
        const next = args[i + 1];
        if (next === undefined || (next.startsWith("--") && next.length > 2)) {
          throw new ConfigError(`--${name} expects a value (${command} --help)`);
        }
        i++;
      } else if (inline !== undefined) {
        throw new ConfigError(`--${name} takes no value, got "--${arg.slice(2)}"`);
      }
    } else if (/^-[A-Za-z]/.test(arg)) {
      const letter = arg[1];
      if (letter === "h") continue;
      const long = shorts[letter];
      if (!long) throw new ConfigError(`unknown option -${letter} (${command} --help lists the options)`);
      if (valueFlags.includes(long) && arg.length === 2) i++;
    }
  }
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** Parses a command's arguments against its spec; every mistake is a one-line {@linkcode ConfigError}. */
export function parseCommand<F extends Record<string, FlagSpec>>(
  spec: CommandSpec<F>,
  args: readonly string[],
): ParsedCommand<F> {
  const entries = Object.entries(spec.flags);
  const shorts = Object.fromEntries(entries.filter(([, f]) => f.short).map(([name, f]) => [f.short!, name]));
  checkFlags(
    args,
    entries.filter(([, f]) => f.value).map(([name]) => name),
    entries.filter(([, f]) => !f.value).map(([name]) => name),
    `deno task ${spec.command.replace(/^deno task /, "")}`,
    shorts,
  );
  const options: Record<string, FlagOption> = { help: { type: "boolean", short: "h" } };
  for (const [name, flag] of entries) {
    options[name] = { type: flag.value ? "string" : "boolean", multiple: flag.multiple, short: flag.short };
  }
  const { values, positionals } = parseFlags(args, options);
  const { help, ...rest } = values;
  return { values: rest as FlagValues<F>, positionals, help: help === true };
}

/** How {@linkcode parseFlags} reads one flag: a value (`string`) or a switch (`boolean`). */
export interface FlagOption {
  /** `string` takes a value (`--out DIR`, `--out=DIR`); `boolean` is a switch. */
  type: "string" | "boolean";
  /** Values of a `string` flag given more than once are collected in order (otherwise the last one wins). */
  multiple?: boolean;
  /** One-letter alias (`-o DIR`, `-oDIR`). */
  short?: string;
}

/**
 * Splits `args` into flag values and positionals, as `node:util`'s `parseArgs` does in strict mode with
 * positionals allowed (its module costs every command ~15 ms of start-up): `--name value` and `--name=value`,
 * switches as `true`, `multiple` flags as lists, one-letter aliases, and everything after `--` positional. One
 * difference: a value that starts with a single dash (`--seed -5`) is taken, where `parseArgs` calls it
 * ambiguous. An unknown flag, a missing value or a value given to a switch is a one-line
 * {@linkcode ConfigError} ({@linkcode checkFlags} names the closest flag first).
 */
export function parseFlags(
  args: readonly string[],
  options: Readonly<Record<string, FlagOption>>,
): { values: Record<string, string | string[] | boolean>; positionals: string[] } {
  const values: Record<string, string | string[] | boolean> = {};
  const positionals: string[] = [];
  const byLetter = new Map(
    Object.entries(options).filter(([, o]) => o.short).map(([name, o]) => [o.short!, name]),
  );
  const set = (name: string, value: string | true) => {
    const option = options[name];
    if (option.type === "boolean") values[name] = true;
    else if (option.multiple) {
      values[name] = [...(values[name] as string[] | undefined ?? []), value as string];
    } else values[name] = value;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith("--")) {
      [name, inline] = splitOnce(arg.slice(2), "=");
      if (!Object.hasOwn(options, name)) throw new ConfigError(`unknown option --${name}`);
    } else if (arg.length > 1 && arg[0] === "-") {
      name = byLetter.get(arg[1]);
      if (name === undefined) throw new ConfigError(`unknown option -${arg[1]}`);
      if (arg.length > 2) inline = arg.slice(2);
    } else {
      positionals.push(arg);
      continue;
    }
    const dashes = arg.startsWith("--") ? `--${name}` : `-${arg[1]}`;
    if (options[name].type === "boolean") {
      if (inline !== undefined) throw new ConfigError(`${dashes} takes no value, got "${arg}"`);
      set(name, true);
    } else if (inline !== undefined) {
      set(name, inline);
    } else {
      const next = args[i + 1];
      if (next === undefined || next.startsWith("--")) throw new ConfigError(`${dashes} expects a value`);
      set(name, next);
      i++;
    }
  }
  return { values, positionals };
}

/** The `--help` page of a command: synopsis, description, each flag with its value and help, then the notes. */
export function commandUsage(spec: CommandSpec): string {
  const lines = [
    `usage: ${spec.command}${spec.positionals ? ` ${spec.positionals}` : ""}${
      Object.keys(spec.flags).length ? " [options]" : ""
    }`,
    "",
    ...wrap(spec.description, 110),
  ];
  const entries = Object.entries(spec.flags);
  if (entries.length) {
    lines.push("", "options:");
    for (const [name, flag] of entries) {
      const head = `  ${flag.short ? `-${flag.short}, ` : ""}--${name}${flag.value ? ` ${flag.value}` : ""}${
        flag.multiple ? " ..." : ""
      }`;
      const help = wrap(flag.help, 110 - 32);
      lines.push(`${head.padEnd(31)} ${help[0]}`);
      for (const more of help.slice(1)) lines.push(`${"".padEnd(31)} ${more}`);
    }
  }
  lines.push(`${"  -h, --help".padEnd(31)} this text`);
  if (spec.notes?.length) lines.push("", ...spec.notes);
  return lines.join("\n");
}

/** Breaks `text` into lines of at most `width` characters at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.length ? lines : [""];
}
