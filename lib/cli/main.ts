/**
 * The `medeval` command line: `eval`, `reproduce`, `download`. Bad settings and bad input end with one line
 * on standard error and exit code 2; an incomplete run (calls that failed for good) with exit code 1.
 * @module
 */
import { parseArgs } from "node:util";
import { BENCHMARKS } from "../benchmarks/registry.ts";
import { ConfigError, InputError } from "../core/errors.ts";
import { safeName } from "../core/fs.ts";
import { runEval } from "../pipeline/run_eval.ts";
import { redact } from "../providers/redact.ts";
import { formatEstimate } from "../report/tables.ts";
import { downloadDataset, DOWNLOADS } from "./download.ts";
import { reproduce, reproduceEnv } from "./reproduce.ts";

const USAGE = `usage:
  deno task eval <benchmark> --model NAME [--base-url URL] [--api-key-env VAR]
                 [--judge NAME [--judge-base-url URL] [--judge-api-key-env VAR]] [--judge-runs 3]
                 [--data PATH] [--limit N] [--concurrency N] [--judge-concurrency N] [--out DIR] [--resume]
                 [--temperature T] [--max-tokens N] [--seed N] [--judge-temperature T] [--judge-seed N]
                 [--timeout SECONDS] [--max-retries N] [--human-eval CSV] [--no-render]
                 [--ablation cot | perturb:KIND[@RATE] ...] [--perturb-seed N] [--buckets length:K]
                 [--embed-model NAME [--embed-base-url URL]]
      perturbation kinds: shape, homophone, traditional, symbol, mixed (rate default 0.12), nota
  deno task reproduce [--out DIR] [--no-render] [--data-dir DIR]
                      [--models A,B --judge NAME [--base-url URL] [--limit N]]
      (or MEDEVAL_MODELS, MEDEVAL_JUDGE_MODEL, OPENAI_BASE_URL, MEDEVAL_LIMIT, MEDEVAL_DATA_DIR)
  deno task download <benchmark>
benchmarks: ${Object.keys(BENCHMARKS).join(", ")}
offline stand-ins: --model offline:reference | offline:retrieval, --judge offline:overlap`;

function numberFlag(values: Record<string, unknown>, name: string): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new ConfigError(`--${name} expects a number, got "${raw}"`);
  return value;
}

async function evalCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      model: { type: "string" },
      "base-url": { type: "string" },
      "api-key-env": { type: "string" },
      judge: { type: "string" },
      "judge-base-url": { type: "string" },
      "judge-api-key-env": { type: "string" },
      "judge-runs": { type: "string" },
      data: { type: "string" },
      limit: { type: "string" },
      concurrency: { type: "string" },
      "judge-concurrency": { type: "string" },
      out: { type: "string" },
      resume: { type: "boolean" },
      temperature: { type: "string" },
      "max-tokens": { type: "string" },
      seed: { type: "string" },
      "judge-temperature": { type: "string" },
      "judge-seed": { type: "string" },
      timeout: { type: "string" },
      "max-retries": { type: "string" },
      "human-eval": { type: "string" },
      "no-render": { type: "boolean" },
      quiet: { type: "boolean" },
      ablation: { type: "string", multiple: true },
      "perturb-seed": { type: "string" },
      buckets: { type: "string" },
      "embed-model": { type: "string" },
      "embed-base-url": { type: "string" },
    },
  });
  const benchmark = positionals[0];
  if (!benchmark) throw new ConfigError("name a benchmark, e.g. `deno task eval llmeval-med --model ...`");
  if (!values.model) {
    throw new ConfigError(
      "--model is required (a served model name, or offline:reference / offline:retrieval)",
    );
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const out = values.out ?? `runs/${benchmark}/${safeName(values.model)}-${stamp}`;
  const result = await runEval({
    benchmark,
    model: values.model,
    baseUrl: values["base-url"],
    apiKeyEnv: values["api-key-env"],
    judge: values.judge,
    judgeBaseUrl: values["judge-base-url"],
    judgeApiKeyEnv: values["judge-api-key-env"],
    judgeRuns: numberFlag(values, "judge-runs"),
    data: values.data,
    limit: numberFlag(values, "limit"),
    concurrency: numberFlag(values, "concurrency"),
    judgeConcurrency: numberFlag(values, "judge-concurrency"),
    out,
    resume: values.resume ?? false,
    temperature: numberFlag(values, "temperature"),
    maxTokens: numberFlag(values, "max-tokens"),
    seed: numberFlag(values, "seed"),
    judgeTemperature: numberFlag(values, "judge-temperature"),
    judgeSeed: numberFlag(values, "judge-seed"),
    timeoutSeconds: numberFlag(values, "timeout"),
    maxRetries: numberFlag(values, "max-retries"),
    humanEval: values["human-eval"],
    ablations: values.ablation,
    perturbSeed: numberFlag(values, "perturb-seed"),
    buckets: values.buckets,
    embedModel: values["embed-model"],
    embedBaseUrl: values["embed-base-url"],
    renderFigures: !values["no-render"],
    progress: !values.quiet,
  });
  for (const s of result.conditions) {
    console.log(
      `${s.benchmark} | ${s.model} | ${s.condition} | judge ${s.judge ?? "none"}${
        s.offline ? " | OFFLINE" : ""
      }`,
    );
    for (const [name, est] of Object.entries(s.metrics)) {
      console.log(`  ${name}: ${formatEstimate(est, false, 4)} (n=${est.n}, 95% CI)`);
    }
  }
  for (const [role, stats] of Object.entries(result.calls)) {
    console.log(
      `  ${role} calls: ${stats.sent} sent, ${stats.cached} from the run store, ${stats.retries} retries`,
    );
  }
  console.log(`  outputs: ${result.out}`);
  if (result.failures > 0) {
    console.error(
      `error: ${result.failures} answers/scores failed for good; rerun the same command with --resume to retry only those`,
    );
    return 1;
  }
  return 0;
}

async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
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
        baseUrl: values["base-url"] ?? env.baseUrl,
        limit: numberFlag(values, "limit") ?? env.limit,
        dataDir: values["data-dir"] ?? env.dataDir,
      });
      for (const path of paths) console.log(`wrote ${path}`);
      return 0;
    }
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
