/**
 * The `medeval` command line: `eval`, `reproduce`, `download`, `import-ratings`, `collect`, `merge`, `tag`, `irt`,
 * `doctor` (probes an endpoint before a long run). Bad settings and bad input end with one line
 * on standard error and exit code 2; an incomplete run (calls that failed for good) with exit code 1.
 * @module
 */
import { importLater } from "../core/import_later.ts";
import { exitWith } from "./exit_code.ts";
import { BENCHMARKS, getTask } from "../benchmarks/registry.ts";
import { ConfigError } from "../core/errors.ts";
import { safeName } from "../core/fs.ts";
import {
  checkNumber,
  EVAL_OPTIONS,
  evalOption,
  optionApplies,
  taskOptions,
} from "../pipeline/eval_options.ts";
import { runEval } from "../pipeline/run_eval.ts";
import { type EvalConfig } from "../pipeline/eval_config.ts";
import { downloadDataset, DOWNLOADS } from "./download.ts";
import { printSummaries } from "./print_summaries.ts";
import {
  checkFlags,
  type CommandSpec,
  commandUsage,
  type FlagOption,
  parseCommand,
  parseFlags,
} from "./args.ts";
import { causeLines } from "../pipeline/completeness.ts";

/** Usage of `deno task eval`, generated from the option table; for one benchmark when `benchmark` is given. */
export async function evalUsage(benchmark?: string): Promise<string> {
  const tasks = await Promise.all(Object.keys(BENCHMARKS).map((name) => getTask(name)));
  const task = benchmark ? await getTask(benchmark) : undefined;
  const options = task ? taskOptions(task) : EVAL_OPTIONS;
  const lines = [`usage: deno task eval ${task?.name ?? "<benchmark>"} --model NAME [options]`, ""];
  if (task) lines.push(`${task.title}: ${task.description}`, "");
  for (const section of new Set(options.map((o) => o.section))) {
    const inSection = options.filter((o) => o.section === section);
    const users = tasks.filter((t) => optionApplies(inSection[0], t)).map((t) => t.name);
    lines.push(`${section}${task || inSection[0].scope === "common" ? "" : ` (${users.join(", ")} only)`}:`);
    for (const o of inSection) {
      // A benchmark's own flag in a section of common ones says whose it is.
      const own = !task && o.scope === "benchmark" && inSection[0].scope === "common"
        ? ` (${tasks.filter((t) => optionApplies(o, t)).map((t) => t.name).join(", ")} only)`
        : "";
      lines.push(`${`  --${o.flag}${o.value ? ` ${o.value}` : ""}`.padEnd(30)} ${o.help}${own}`);
    }
  }
  lines.push(`${"  --help".padEnd(30)} this text; \`deno task eval <benchmark> --help\` for one benchmark`);
  if (!task) lines.push("", `benchmarks: ${tasks.map((t) => t.name).join(", ")}`);
  return lines.join("\n");
}

/** The commands, one line each: what the global usage lists (each has its own `--help`). */
const COMMANDS: [string, string][] = [
  ["eval <benchmark>", "evaluate a model on a benchmark (resumable run store, tables, figures)"],
  ["reproduce", "re-create the four papers' tables, figures and claim checks (and your models beside them)"],
  ["download <benchmark>", "fetch a full public data set, checked by SHA-256"],
  ["merge", "combine the shards of a run (--shard I/N) into one run"],
  ["import-ratings", "add human ratings to a run and rebuild its tables and agreement"],
  ["collect", "gather runs into one long table (and a response matrix for IRT)"],
  ["tag", "tag questions with ICD-11 chapter and question type by a model"],
  ["irt", "item response theory: fit, cat, subset, mps"],
  ["doctor", "probe an endpoint before a long run: what it accepts, latency, which profile fits"],
  ["meta", "judge meta-evaluation: judges vs human ratings (ceiling, stability, calibration)"],
  ["compare", "compare models run on the same items: paired tests, Holm/BH, rank intervals, letters"],
  ["power", "the difference a benchmark can detect at its n, and the n a difference needs"],
  ["view", "write a static viewer of runs: tables, samples, transcripts, judge rationales, comparisons"],
];

const USAGE = `usage: deno task <command> [options]      (deno task <command> --help explains each flag)

${COMMANDS.map(([name, what]) => `  ${name.padEnd(22)} ${what}`).join("\n")}

benchmarks: ${Object.keys(BENCHMARKS).join(", ")}`;

/** `reproduce`'s flags. */
export const REPRODUCE_SPEC = {
  command: "deno task reproduce",
  description:
    "Re-creates what the four papers print: every results table transcribed cell by cell (Markdown, " +
    "CSV, LaTeX), the figures, and every claim the tables determine rechecked within printed precision; runs " +
    "each benchmark's pipeline offline; with --models (or MEDEVAL_MODELS), runs your models on every " +
    "benchmark and adds them beside the papers' rows. Every run is checked before the first one starts.",
  flags: {
    out: { value: "DIR", help: "root the reports/ and figures/ folders are written under (default .)" },
    "no-render": { help: "write HTML figures only (no Chromium for SVG/PNG/PDF)" },
    models: { value: "A,B", help: "your models, comma-separated (default $MEDEVAL_MODELS)" },
    judge: { value: "NAME", help: "judge model of judge-scored benchmarks (default $MEDEVAL_JUDGE_MODEL)" },
    rephraser: {
      value: "NAME",
      help: "rephraser of MedGPTEval's robustness sets A-E (default $MEDEVAL_REPHRASER_MODEL)",
    },
    "base-url": { value: "URL", help: "OpenAI-compatible base URL of the models (default $OPENAI_BASE_URL)" },
    limit: { value: "N", help: "evaluate at most N samples per benchmark (default $MEDEVAL_LIMIT)" },
    "data-dir": {
      value: "DIR",
      help: "folder of full data sets laid out as <benchmark>/<file> (default $MEDEVAL_DATA_DIR, else " +
        "data/downloads, else the shipped samples)",
    },
  },
} as const;

/** `download`'s flags. */
export const DOWNLOAD_SPEC = {
  command: "deno task download",
  positionals: "<benchmark>",
  description: `Downloads a benchmark's full public data set and checks its SHA-256 (needs internet). ` +
    `Downloadable: ${Object.keys(DOWNLOADS).join(", ")}; the other benchmarks publish no data.`,
  flags: {},
} as const;

function numberFlag(values: Record<string, unknown>, name: string): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw === "" || !Number.isFinite(value)) {
    throw new ConfigError(`--${name} expects a number, got "${raw}"`);
  }
  return value;
}

/** Turns parsed flag values into an {@linkcode EvalConfig} (types converted; ranges are checked by the plan). */
function evalConfig(benchmark: string, values: Record<string, unknown>): EvalConfig {
  const config: Record<string, unknown> = { benchmark };
  for (const option of EVAL_OPTIONS) {
    const raw = values[option.flag];
    if (raw === undefined) continue;
    if (option.kind === "integer" || option.kind === "number") {
      config[option.key] = numberFlag(values, option.flag);
    } else if (option.kind === "boolean") config[option.key] = option.negates ? !raw : raw;
    else config[option.key] = raw;
  }
  const modelRole = (config.roles as string[] | undefined)?.find((r) => r.startsWith("model="));
  if (!config.model && !modelRole) {
    throw new ConfigError(
      "--model is required (a served model name, or offline:reference / offline:retrieval)",
    );
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  // A task file's runs go under its file name, not under the path it was given by.
  const name = benchmark.replace(/^.*\//, "").replace(/\.(ya?ml|json)$/i, "");
  const model = config.model ?? modelRole!.slice("model=".length);
  config.out ??= `runs/${safeName(name)}/${safeName(String(model))}-${stamp}`;
  return config as unknown as EvalConfig;
}

/** `reproduce --limit N`, checked like `eval --limit`. */
function reproduceLimit(limit: number | undefined): number | undefined {
  if (limit !== undefined) checkNumber(evalOption("limit")!, limit);
  return limit;
}

async function evalCommand(args: string[]): Promise<number> {
  checkFlags(
    args,
    EVAL_OPTIONS.filter((o) => o.kind !== "boolean").map((o) => o.flag),
    EVAL_OPTIONS.filter((o) => o.kind === "boolean").map((o) => o.flag),
    "deno task eval",
  );
  const { values, positionals } = parseFlags(args, {
    ...Object.fromEntries(
      EVAL_OPTIONS.map((o): [string, FlagOption] => [
        o.flag,
        o.kind === "boolean" ? { type: "boolean" } : { type: "string", multiple: o.kind === "strings" },
      ]),
    ),
    help: { type: "boolean", short: "h" },
  });
  const benchmark = positionals[0];
  if (positionals.length > 1) {
    throw new ConfigError(`one benchmark at a time; unexpected "${positionals[1]}" (flags start with --)`);
  }
  if (values.help) {
    console.log(await evalUsage(benchmark));
    return 0;
  }
  if (!benchmark) {
    throw new ConfigError("name a benchmark, e.g. `deno task eval llmeval-med --model ...` (see --help)");
  }
  const result = await runEval(evalConfig(benchmark, values));
  printSummaries(result.conditions);
  for (const [role, stats] of Object.entries(result.calls)) {
    console.log(
      `  ${role} calls: ${stats.sent} sent, ${stats.cached} from the run store, ${stats.retries} retries`,
    );
  }
  for (const row of result.summary.usage ?? []) {
    const cost = row.cost !== null
      ? `${row.cost.toFixed(4)} ${row.currency}`
      : row.calls_without_usage
      ? "cost unknown"
      : "no price";
    const tokens = row.prompt_tokens === null
      ? "tokens unknown"
      : `${row.prompt_tokens} prompt + ${row.completion_tokens} completion tokens`;
    const without = row.calls_without_usage ? ` (${row.calls_without_usage} calls without usage)` : "";
    console.log(
      `  ${row.role} ${row.model}${
        row.batch ? " (batch)" : ""
      }: ${row.calls} calls, ${tokens}${without}, ${cost}`,
    );
  }
  console.log(`  outputs: ${result.out}`);
  if (result.failureCauses.size) {
    console.error("failed for good, by cause (samples):");
    for (const line of causeLines(result.failureCauses)) console.error(line);
  }
  if (result.stopped) {
    console.error(
      `stopped: ${result.stopped}; rates count the samples scored so far; rerun with --resume and a higher limit to finish`,
    );
    return 1;
  }
  if (result.failures > 0) {
    console.error(
      `error: ${result.failures} answers/scores failed for good; rerun the same command with --resume to retry only those`,
    );
    return 1;
  }
  if (!result.complete) {
    console.error(
      "error: the run is not complete (see the counts above); rerun with --resume to complete it",
    );
    return 1;
  }
  return 0;
}

/**
 * Runs one command. Every command but `eval` and `download` loads its modules when it is run, so `eval` starts
 * without loading the others' (the viewer's, IRT's, doctor's npm:openai client).
 */
async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case "eval":
      return await evalCommand(rest);
    case "reproduce": {
      const { values, help } = parseCommand(REPRODUCE_SPEC, rest);
      if (help) return printUsage(REPRODUCE_SPEC);
      const { reproduce, reproduceEnv } = await importLater<typeof import("./reproduce.ts")>(
        "./reproduce.ts",
        import.meta.url,
      );
      const env = reproduceEnv();
      const paths = await reproduce({
        root: values.out ?? ".",
        render: !values["no-render"],
        models: values.models?.split(",").map((m) => m.trim()).filter(Boolean) ?? env.models,
        judge: values.judge ?? env.judge,
        rephraser: values.rephraser ?? env.rephraser,
        baseUrl: values["base-url"] ?? env.baseUrl,
        limit: reproduceLimit(numberFlag(values, "limit")) ?? env.limit,
        dataDir: existingDirectory(
          values["data-dir"] ?? env.dataDir,
          values["data-dir"] ? "--data-dir" : "MEDEVAL_DATA_DIR",
        ),
      });
      for (const path of paths) console.log(`wrote ${path}`);
      return 0;
    }
    case "import-ratings":
      return await (await importLater<typeof import("./runs.ts")>("./runs.ts", import.meta.url))
        .importRatingsCommand(rest);
    case "collect":
      return await (await importLater<typeof import("./runs.ts")>("./runs.ts", import.meta.url))
        .collectCommand(rest);
    case "merge":
      return await (await importLater<typeof import("./merge.ts")>("./merge.ts", import.meta.url))
        .mergeCommand(rest);
    case "tag":
      return await (await importLater<typeof import("./tag.ts")>("./tag.ts", import.meta.url)).tagCommand(
        rest,
      );
    case "irt":
      return await (await importLater<typeof import("./irt.ts")>("./irt.ts", import.meta.url)).irtCommand(
        rest,
      );
    case "doctor":
      return await (await importLater<typeof import("./doctor.ts")>("./doctor.ts", import.meta.url))
        .doctorCommand(rest);
    case "meta":
      return await (await importLater<typeof import("./meta.ts")>("./meta.ts", import.meta.url)).metaCommand(
        rest,
      );
    case "view":
      return await (await importLater<typeof import("./view.ts")>("./view.ts", import.meta.url)).viewCommand(
        rest,
      );
    case "compare":
      return await (await importLater<typeof import("./compare.ts")>("./compare.ts", import.meta.url))
        .compareCommand(rest);
    case "power":
      return await (await importLater<typeof import("./power.ts")>("./power.ts", import.meta.url))
        .powerCommand(rest);
    case "download": {
      const { positionals, help } = parseCommand(DOWNLOAD_SPEC, rest);
      if (help) return printUsage(DOWNLOAD_SPEC);
      const name = positionals[0];
      if (!name || !DOWNLOADS[name] || positionals.length > 1) {
        throw new ConfigError(
          `download: name one benchmark to download; downloadable: ${Object.keys(DOWNLOADS).join(", ")}`,
        );
      }
      const path = await downloadDataset(name);
      console.log(`saved ${path}`);
      return 0;
    }
    case undefined:
    case "help":
    case "--help":
    case "-h":
      console.log(USAGE);
      return 0;
    default:
      throw new ConfigError(
        `unknown command "${command}"; commands: ${
          COMMANDS.map(([name]) => name.split(" ")[0]).join(", ")
        } ` +
          "(deno task <command> --help)",
      );
  }
}

/** Returns `path` when it is a directory (or `undefined`); else a one-line {@linkcode ConfigError} naming `source`. */
function existingDirectory(path: string | undefined, source: string): string | undefined {
  if (path === undefined) return undefined;
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch {
    throw new ConfigError(`${source}: no directory ${path} (it holds <benchmark>/<file> data sets)`);
  }
  if (!info.isDirectory) throw new ConfigError(`${source}: ${path} is a file, not a directory of data sets`);
  return path;
}

/** Prints a command's `--help` page; returns exit code 0. */
function printUsage(spec: CommandSpec): number {
  console.log(commandUsage(spec));
  return 0;
}

if (import.meta.main) await exitWith(main);
