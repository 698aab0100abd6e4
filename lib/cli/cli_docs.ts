/**
 * Builds `docs/cli.md`, the command-line reference, from the tables the commands themselves are built from:
 * `eval`'s option table (its general `--help`, each benchmark's and each shipped task file's), and every other command's flag spec or
 * usage text. Nothing in the page is written by hand, so it cannot drift from `--help`; `tests/docs_test.ts`
 * fails when the committed page is not what this module builds. `deno task docs` rewrites it.
 * @module
 */
import { BENCHMARKS } from "../benchmarks/registry.ts";
import { projectPath } from "../core/fs.ts";
import { EVAL_OPTIONS, type EvalOption } from "../pipeline/eval_options.ts";
import { type CommandSpec, commandUsage } from "./args.ts";
import { IRT_USAGE, irtUsage } from "./irt.ts";
import { DOWNLOAD_SPEC, evalUsage, REPRODUCE_SPEC } from "./main.ts";
import { MERGE_SPEC } from "./merge.ts";
import { NOTEBOOKS_SPEC } from "./notebooks.ts";
import { COLLECT_SPEC, IMPORT_RATINGS_SPEC } from "./runs.ts";
import { TAG_SPEC } from "./tag.ts";
import { DOCTOR_SPEC } from "./doctor.ts";
import { META_SPEC } from "./meta.ts";
import { VIEW_SPEC } from "./view.ts";
import { COMPARE_SPEC } from "./compare.ts";
import { POWER_SPEC } from "./power.ts";

/** Where the page is written, relative to the project root. */
export const CLI_DOCS_PATH = "docs/cli.md";

/** One section of the page: a heading and the command's `--help` text. */
interface Section {
  /** Heading, e.g. `deno task merge`. */
  title: string;
  /** The command's `--help` output. */
  usage: string;
}

/** Returns the GitHub anchor of a heading (lower case, punctuation dropped, spaces as dashes). */
export function headingAnchor(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

/** A section for a command declared by a {@linkcode CommandSpec}. */
function specSection(spec: CommandSpec): Section {
  return { title: spec.command, usage: commandUsage(spec) };
}

/** Returns the subcommands `deno task irt` lists in its overview, in order. */
export function irtSubcommands(): string[] {
  return [...IRT_USAGE.matchAll(/^ {2}deno task irt (\w+)/gm)].map((m) => m[1]);
}

/** Returns the task files the project ships (`tasks/*.yaml`, `.yml`, `.json`), as paths from the project root. */
export function projectTaskFiles(): string[] {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(projectPath("tasks"))];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  return entries.filter((e) => e.isFile && /\.(ya?ml|json)$/.test(e.name)).map((e) => `tasks/${e.name}`)
    .sort();
}

/** Returns the page's sections, in the order the page lists them. */
async function sections(): Promise<Section[]> {
  const benchmarks = Object.keys(BENCHMARKS);
  const out: Section[] = [{ title: "deno task eval", usage: await evalUsage() }];
  for (const name of benchmarks) out.push({ title: `deno task eval ${name}`, usage: await evalUsage(name) });
  for (const file of projectTaskFiles()) {
    out.push({ title: `deno task eval ${file}`, usage: await evalUsage(file) });
  }
  out.push(
    specSection(REPRODUCE_SPEC),
    specSection(DOWNLOAD_SPEC),
    specSection(MERGE_SPEC),
    specSection(IMPORT_RATINGS_SPEC),
    specSection(COLLECT_SPEC),
    specSection(TAG_SPEC),
    specSection(DOCTOR_SPEC),
    specSection(META_SPEC),
    specSection(COMPARE_SPEC),
    specSection(POWER_SPEC),
    specSection(VIEW_SPEC),
    { title: "deno task irt", usage: irtUsage() },
  );
  for (const sub of irtSubcommands()) out.push({ title: `deno task irt ${sub}`, usage: irtUsage(sub) });
  out.push(specSection(NOTEBOOKS_SPEC));
  return out;
}

/** Returns an option's accepted values as the plan checks them, e.g. `integer >= 1`, `number > 0 and <= 2`. */
function accepted(option: EvalOption): string {
  if (option.kind === "boolean") return "switch";
  const range = [
    option.min !== undefined ? `${option.exclusiveMin ? ">" : ">="} ${option.min}` : "",
    option.max !== undefined ? `<= ${option.max}` : "",
  ].filter(Boolean).join(" and ");
  const kind = option.kind === "strings"
    ? "text, repeatable"
    : option.kind === "string"
    ? "text"
    : option.kind;
  return range ? `${kind} ${range}` : kind;
}

/** Returns a Markdown table with its columns padded to equal width, as `deno fmt` lays tables out. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, c) => Math.max(3, h.length, ...rows.map((r) => r[c].length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, c) => cell.padEnd(widths[c])).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
}

/** Returns the Markdown table of `eval`'s options: flag, accepted values, the flag it needs, its section. */
function optionTable(): string[] {
  return markdownTable(
    ["flag", "accepted", "needs", "section"],
    EVAL_OPTIONS.map((o) => [
      `\`--${o.flag}${o.value ? ` ${o.value}` : ""}\``,
      accepted(o),
      o.requires ? `\`--${o.requires}\`` : "",
      o.section,
    ]),
  );
}

/** Removes trailing spaces from every line (padding of empty help texts). */
function trimLines(text: string): string {
  return text.split("\n").map((line) => line.trimEnd()).join("\n");
}

/** Returns the whole text of `docs/cli.md`. */
export async function cliDocs(): Promise<string> {
  const all = await sections();
  const lines = [
    "# Command-line reference",
    "",
    "<!-- Generated by `deno task docs` (lib/cli/cli_docs.ts) from the option table and the commands' flag",
    "specs; do not edit by hand. tests/docs_test.ts fails when this page is not current. -->",
    "",
    "Every command prints the same text with `--help`. Run them as `npx -y deno@2 task <command>` where `deno` is",
    "not installed. Bad settings end with one line `error: ...` and exit code 2 before anything is written.",
    "",
    ...all.map((s) => `- [\`${s.title}\`](#${headingAnchor(s.title)})`),
    `- [Values \`eval\` checks](#${headingAnchor("Values eval checks")})`,
  ];
  for (const section of all) {
    lines.push("", `## ${section.title}`, "", "```text", trimLines(section.usage), "```");
  }
  lines.push(
    "",
    "## Values eval checks",
    "",
    "Numbers out of range, a flag without the one it needs, and a benchmark flag the benchmark does not take stop",
    "the run before anything is written.",
    "",
    ...optionTable(),
  );
  return `${lines.join("\n")}\n`;
}

if (import.meta.main) {
  const path = `${projectPath()}${CLI_DOCS_PATH}`;
  await Deno.mkdir(`${projectPath()}docs`, { recursive: true });
  await Deno.writeTextFile(path, await cliDocs());
  console.log(`wrote ${CLI_DOCS_PATH}`);
}
