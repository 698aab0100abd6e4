/**
 * The `medeval` command line: `eval`, `reproduce`, `download`, `import-ratings`, `collect`, `merge`, `tag`, `irt`. Bad settings and bad input end with one line
 * on standard error and exit code 2; an incomplete run (calls that failed for good) with exit code 1.
 * @module
 */
import { parseArgs } from "node:util";
import { BENCHMARKS, getTask } from "../benchmarks/registry.ts";
import { ConfigError, InputError } from "../core/errors.ts";
import { safeName } from "../core/fs.ts";
import { checkNumber, EVAL_OPTIONS, evalOption, taskOptions } from "../pipeline/eval_options.ts";
import { runEval } from "../pipeline/run_eval.ts";
import { TAG_USAGE, tagCommand } from "./tag.ts";
import { type EvalConfig } from "../pipeline/eval_config.ts";
import { redact } from "../providers/redact.ts";
import { downloadDataset, DOWNLOADS } from "./download.ts";
import { reproduce, reproduceEnv } from "./reproduce.ts";
import { collectCommand, importRatingsCommand, RUNS_USAGE } from "./runs.ts";
import { IRT_USAGE, irtCommand } from "./irt.ts";
import { MERGE_USAGE, mergeCommand } from "./merge.ts";
import { printSummaries } from "./print_summaries.ts";
import { causeLines } from "../pipeline/completeness.ts";

/** Usage of `deno task eval`, generated from the option table; for one benchmark when `benchmark` is given. */
async function evalUsage(benchmark?: string): Promise<string> {
  const tasks = await Promise.all(Object.keys(BENCHMARKS).map((name) => getTask(name)));
  const task = benchmark ? await getTask(benchmark) : undefined;
  const options = task ? taskOptions(task) : EVAL_OPTIONS;
  const lines = [`usage: deno task eval ${task?.name ?? "<benchmark>"} --model NAME [options]`, ""];
  if (task) lines.push(`${task.title}: ${task.description}`, "");
  for (const section of new Set(options.map((o) => o.section))) {
    const inSection = options.filter((o) => o.section === section);
    const users = tasks.filter((t) => t.flags.includes(inSection[0].flag)).map((t) => t.name);
    lines.push(`${section}${task || inSection[0].scope === "common" ? "" : ` (${users.join(", ")} only)`}:`);
    for (const o of inSection) {
      // A benchmark's own flag in a section of common ones says whose it is.
      const own = !task && o.scope === "benchmark" && inSection[0].scope === "common"
        ? ` (${tasks.filter((t) => t.flags.includes(o.flag)).map((t) => t.name).join(", ")} only)`
        : "";
      lines.push(`${`  --${o.flag}${o.value ? ` ${o.value}` : ""}`.padEnd(30)} ${o.help}${own}`);
    }
  }
  lines.push(`${"  --help".padEnd(30)} this text; \`deno task eval <benchmark> --help\` for one benchmark`);
  if (!task) lines.push("", `benchmarks: ${tasks.map((t) => t.name).join(", ")}`);
  return lines.join("\n");
}

const USAGE = `usage:
  deno task eval <benchmark> --model NAME [options]     (deno task eval --help lists the options)
  deno task reproduce [--out DIR] [--no-render] [--data-dir DIR]
                      [--models A,B --judge NAME [--rephraser NAME] [--base-url URL] [--limit N]]
      (or MEDEVAL_MODELS, MEDEVAL_JUDGE_MODEL, MEDEVAL_REPHRASER_MODEL, OPENAI_BASE_URL, MEDEVAL_LIMIT,
       MEDEVAL_DATA_DIR; with a rephraser, real models also get MedGPTEval's robustness sets A-E)
  deno task download <benchmark>
${MERGE_USAGE}
${RUNS_USAGE}
${TAG_USAGE}
${IRT_USAGE}
benchmarks: ${Object.keys(BENCHMARKS).join(", ")}`;

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
  if (!config.model) {
    throw new ConfigError(
      "--model is required (a served model name, or offline:reference / offline:retrieval)",
    );
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  config.out ??= `runs/${benchmark}/${safeName(String(config.model))}-${stamp}`;
  return config as unknown as EvalConfig;
}

/** `reproduce --limit N`, checked like `eval --limit`. */
function reproduceLimit(limit: number | undefined): number | undefined {
  if (limit !== undefined) checkNumber(evalOption("limit")!, limit);
  return limit;
}

async function evalCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...Object.fromEntries(
        EVAL_OPTIONS.map((o) => [
          o.flag,
          o.kind === "boolean"
            ? { type: "boolean" as const }
            : { type: "string" as const, multiple: o.kind === "strings" },
        ]),
      ),
      help: { type: "boolean", short: "h" },
    },
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
    const cost = row.cost === null ? "no price" : `${row.cost.toFixed(4)} ${row.currency}`;
    console.log(
      `  ${row.role} ${row.model}${
        row.batch ? " (batch)" : ""
      }: ${row.calls} calls, ${row.prompt_tokens} prompt + ${row.completion_tokens} completion tokens, ${cost}`,
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

async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  if (command !== "eval" && (rest.includes("--help") || rest.includes("-h"))) {
    console.log(USAGE);
    return 0;
  }
  switch (command) {
    case "eval":
      return await evalCommand(rest);
    case "reproduce": {
      const { values } = parseArgs({
        args: rest,
        options: {
          out: { type: "string" },
          "no-render": { type: "boolean" },
          models: { type: "string" },
          judge: { type: "string" },
          rephraser: { type: "string" },
          "base-url": { type: "string" },
          limit: { type: "string" },
          "data-dir": { type: "string" },
        },
      });
      const env = reproduceEnv();
      const paths = await reproduce({
        root: values.out ?? ".",
        render: !values["no-render"],
        models: values.models?.split(",").map((m) => m.trim()).filter(Boolean) ?? env.models,
        judge: values.judge ?? env.judge,
        rephraser: values.rephraser ?? env.rephraser,
        baseUrl: values["base-url"] ?? env.baseUrl,
        limit: reproduceLimit(numberFlag(values, "limit")) ?? env.limit,
        dataDir: values["data-dir"] ?? env.dataDir,
      });
      for (const path of paths) console.log(`wrote ${path}`);
      return 0;
    }
    case "import-ratings":
      return await importRatingsCommand(rest);
    case "collect":
      return await collectCommand(rest);
    case "merge":
      return await mergeCommand(rest);
    case "tag":
      return await tagCommand(rest);
    case "irt":
      return await irtCommand(rest);
    case "download": {
      const name = rest[0];
      if (!name || !DOWNLOADS[name]) {
        throw new ConfigError(`download what? known: ${Object.keys(DOWNLOADS).join(", ")}`);
      }
      const path = await downloadDataset(name);
      console.log(`saved ${path}`);
      return 0;
    }
    default:
      console.error(USAGE);
      return command === undefined || command === "help" || command === "--help" ? 0 : 2;
  }
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (err) {
    if (
      err instanceof ConfigError || err instanceof InputError || (err instanceof TypeError && "code" in err)
    ) {
      console.error(`error: ${redact(err.message)}`);
      code = 2;
    } else {
      console.error(redact(err instanceof Error ? (err.stack ?? err.message) : String(err)));
      code = 3;
    }
  }
  Deno.exit(code);
}
