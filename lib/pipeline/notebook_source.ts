/**
 * Where a benchmark notebook's results come from, and a finished run read back from its directory. A notebook
 * opens the run directory `MEDEVAL_RUN_DIR` names (nothing is sent), runs a fresh evaluation on the data file
 * `MEDEVAL_DATA` names, or runs on the shipped sample when neither is set. Either way it then reads the run
 * back with {@linkcode openRun} (read-only, without the data or any key): the summaries the run wrote, and each
 * condition's per-sample rows and scores from its run store, computed as `eval` computes them (a sample not
 * yet answered and fully scored counts for no rate), so a notebook shows what `deno task eval` wrote.
 * @module
 */
import { loadCharacterTables } from "../ablations/perturb.ts";
import { readTextStrict } from "../core/text_file.ts";
import { applyCondition, baselineCondition, type Condition, parseAblation } from "../ablations/condition.ts";
import { type BucketSpec, parseBucketSpec } from "../analysis/buckets.ts";
import { getTask } from "../benchmarks/registry.ts";
import { ConfigError, InputError } from "../core/errors.ts";
import { pathExists, projectPath } from "../core/fs.ts";
import type { GroupValue } from "../core/sample.ts";
import { labelsOf, type Summary, SummarySchema } from "../core/summary.ts";
import type { RoleMember, RunView, Task } from "../core/task.ts";
import { RunStore } from "../store/run_store.ts";
import { loadTokenCounter } from "../providers/flow/token_estimate.ts";
import {
  type Completeness,
  runCompleteness,
  type SampleStatus,
  scoredRows,
  scoredView,
  scoreFailures,
} from "./completeness.ts";
import { readRunView } from "./evaluate.ts";
import type { ConditionResult } from "./write_outputs.ts";

/** Environment variable naming a finished run directory (an `eval --out`) for a notebook to open. */
export const RUN_DIR_ENV = "MEDEVAL_RUN_DIR";

/** Environment variable naming a data file (or folder) for a notebook to run a fresh evaluation on. */
export const DATA_ENV = "MEDEVAL_DATA";

/** Where a benchmark notebook's results come from. */
export type NotebookSource =
  /** A finished run directory: opened, nothing is run. */
  | { kind: "run"; dir: string }
  /** A data file: a fresh run on it. */
  | { kind: "data"; data: string }
  /** Neither variable set: a fresh run on the benchmark's shipped sample. */
  | { kind: "sample" };

/** Returns `path` as an absolute path, a relative one taken from the project root. */
function fromProjectRoot(path: string): string {
  return path.startsWith("/") ? path : projectPath(path);
}

/**
 * Returns where a notebook's results come from, from {@linkcode RUN_DIR_ENV} and {@linkcode DATA_ENV}
 * (relative paths are taken from the project root). Throws {@linkcode ConfigError} when both are set.
 */
export function notebookSource(
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): NotebookSource {
  const dir = env(RUN_DIR_ENV)?.trim();
  const data = env(DATA_ENV)?.trim();
  if (dir && data) {
    throw new ConfigError(
      `${RUN_DIR_ENV} (open a finished run) and ${DATA_ENV} (run on a data file) are both set: unset one`,
    );
  }
  if (dir) return { kind: "run", dir: fromProjectRoot(dir) };
  if (data) return { kind: "data", data: fromProjectRoot(data) };
  return { kind: "sample" };
}

/** One condition of an opened run. */
export interface OpenedCondition extends ConditionResult {
  /** What its run store holds for it: samples, answers and every score (all judges, runs and raters). */
  view: RunView;
  /** Which samples are scored, and why the others are not (a partial run's rows count scored samples only). */
  completeness: Completeness;
}

/** A finished run read back from its directory. */
export interface OpenedRun {
  /** The run directory. */
  dir: string;
  /** The benchmark's task. */
  task: Task;
  /** Every condition, baseline first: its summary as the run wrote it, its rows recomputed from the store. */
  conditions: OpenedCondition[];
  /** The length buckets the run was asked for (`--buckets`), if any. */
  buckets?: BucketSpec;
}

/** Returns the condition named `name` as the run's manifest records it. */
function conditionOf(name: string, manifest: Record<string, unknown>): Condition {
  const record = manifest[`condition:${name}`] as
    | { kind?: string; perturb?: { seed?: string } | null }
    | undefined;
  if (record?.kind === "baseline" || (record === undefined && name === "default")) {
    return baselineCondition(name);
  }
  return parseAblation(name, record?.perturb?.seed ?? "0");
}

/** Returns the models of each judge role as the run's identity records them (how many scores a sample owes). */
function recordedMembers(manifest: Record<string, unknown>): (role: string) => RoleMember[] {
  const identity = (manifest.identity ?? {}) as {
    judge?: string | string[] | null;
    roles?: Record<string, string>;
  };
  return (role) => {
    const names = role === "judge" ? [identity.judge ?? []].flat() : [identity.roles?.[role] ?? []].flat();
    return names.map((label) => ({ label, offline: label.startsWith("offline:") }));
  };
}

/** Reads a run's summaries (`summaries.json`, or `summary.json` alone), validated. */
async function readSummaries(dir: string): Promise<Summary[]> {
  for (const [file, list] of [["summaries.json", true], ["summary.json", false]] as const) {
    const path = `${dir}/${file}`;
    if (!(await pathExists(path))) continue;
    let json: unknown;
    try {
      json = JSON.parse(await readTextStrict(path));
    } catch (err) {
      throw new InputError({ file: path }, `not valid JSON (${(err as Error).message})`);
    }
    const parsed = (list ? SummarySchema.array().min(1) : SummarySchema).safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new InputError(
        { file: path, field: issue.path.join(".") || undefined },
        `not a run summary: ${issue.message}`,
      );
    }
    return Array.isArray(parsed.data) ? parsed.data : [parsed.data];
  }
  throw new InputError(
    { file: dir },
    "not a finished run directory: it has no summaries.json (give the --out directory of a `deno task eval` run)",
  );
}

/**
 * Opens the finished run in `dir` (read-only) as a run of `benchmark`: every condition's summary, and its rows
 * and scores from `run.sqlite`. Throws {@linkcode InputError} naming `dir` when it is not a finished run of
 * that benchmark.
 */
export async function openRun(dir: string, benchmark: string): Promise<OpenedRun> {
  const info = await Deno.stat(dir).catch(() => null);
  if (!info?.isDirectory) {
    throw new InputError(
      { file: dir },
      info ? "not a directory (give a run directory)" : "no such directory",
    );
  }
  const summaries = await readSummaries(dir);
  if (summaries[0].benchmark !== benchmark) {
    throw new InputError({ file: dir }, `holds a ${summaries[0].benchmark} run, not ${benchmark}`);
  }
  if (!(await pathExists(`${dir}/run.sqlite`))) {
    throw new InputError({ file: dir }, "no run.sqlite: not a run directory written by `deno task eval`");
  }
  const task = await getTask(benchmark);
  const store = new RunStore(`${dir}/run.sqlite`, { readOnly: true });
  try {
    const manifest = store.manifest() ?? {};
    const buckets = (manifest.config as { buckets?: unknown } | undefined)?.buckets;
    const members = recordedMembers(manifest);
    // Length buckets in tokens count with the tokenizer, loaded lazily (as `eval` does) before any table is built.
    if (buckets) await loadTokenCounter();
    if (summaries.some((s) => s.condition.startsWith("perturb:"))) await loadCharacterTables();
    const conditions = summaries.map((summary) => {
      const condition = conditionOf(summary.condition, manifest);
      const view = readRunView(store, condition.name);
      // As `eval` aggregates: a sample not yet answered and fully scored counts for no rate.
      const completeness = runCompleteness(view, {
        scorers: task.scorers,
        ctx: { judgeRuns: summary.judge_runs, members },
        scoreFailed: scoreFailures(store, condition.name),
      });
      const rows = scoredRows(task.rows(scoredView(view, completeness), labelsOf(summary)), completeness);
      const samples = applyCondition(condition, view.samples).samples;
      return { condition, summary, rows, samples, failureCauses: completeness.causes, view, completeness };
    });
    return {
      dir,
      task,
      conditions,
      ...(typeof buckets === "string" ? { buckets: parseBucketSpec(buckets) } : {}),
    };
  } finally {
    store.close();
  }
}

/** One sample's judgings by one judge scorer beside the values its summary counts. */
export interface JudgedSample {
  /** Sample id. */
  id: string;
  /** Its group fields. */
  fields: Record<string, GroupValue>;
  /** The task's per-sample values, which the summary aggregates (e.g. the score reduced over judge runs). */
  values: Record<string, number | null>;
  /** `scored`, or why the sample counts for no rate yet (`not_asked`, `not_judged`, `failed`). */
  status: SampleStatus;
  /** Each judge's runs, run 1 first: the valid score, or `null` for a judge error or a run not made. */
  runs: Map<string, (number | null)[]>;
}

/**
 * Returns, for each sample of `condition`, every judge run of `scorer` beside the task's per-sample values
 * (the reduced score the summary counts). Judges are keyed by label (`""` for scores without one).
 */
export function judgedSamples(condition: OpenedCondition, scorer: string): JudgedSample[] {
  const runs = condition.summary.judge_runs;
  return condition.rows.map((row) => {
    const own = (condition.view.scores.get(row.id) ?? []).filter((s) => s.scorer === scorer);
    const byJudge = new Map<string, (number | null)[]>();
    for (const [judge, scores] of Map.groupBy(own, (s) => s.judge ?? "")) {
      byJudge.set(
        judge,
        Array.from({ length: runs }, (_, i) => {
          const score = scores.find((s) => s.run === i + 1);
          return score?.valid ? score.value : null;
        }),
      );
    }
    const status = condition.completeness.incomplete.get(row.id) ?? "scored";
    return { id: row.id, fields: row.fields, values: row.values, status, runs: byJudge };
  });
}
