/**
 * `deno task merge --out DIR SHARD_DIR...`: puts the shards of a run (`eval --shard 1/N` … `N/N`) back together.
 * The shards must be the N shards of one run; the whole run is planned again from the settings their manifest
 * records (the same data, prompts and models, checked against the shards' identity), the shards' stores are
 * merged into one, and every output is written from it exactly as a one-machine run writes it — nothing is
 * sent: a shard that has not finished is named with the samples it still lacks.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import { pathExists } from "../core/fs.ts";
import type { Summary } from "../core/summary.ts";
import type { EvalConfig } from "../pipeline/eval_config.ts";
import { conditionIdentities, type EvalPlan } from "../pipeline/plan.ts";
import { conditionResult } from "../pipeline/run_eval.ts";
import { shardLabel, shardSamples } from "../pipeline/shard.ts";
import { writeRunOutputs } from "../pipeline/write_outputs.ts";
import {
  checkShardSet,
  closeShards,
  describeDifferences,
  type MergeCounts,
  mergeStores,
  openShard,
  runDifferences,
  type ShardRun,
} from "../store/merge.ts";
import { RunStore } from "../store/run_store.ts";
import { planRecorded, withoutKeyVariables } from "../pipeline/rebuild_run.ts";
import { printSummaries } from "./print_summaries.ts";
import { commandUsage, parseCommand } from "./args.ts";

/** Usage of `merge`. */
/** `merge`'s flags and help page. */
export const MERGE_SPEC = {
  command: "deno task merge",
  positionals: "SHARD_DIR...",
  description:
    "Combines the run directories of `eval --shard 1/N` ... `N/N` into the run one machine would " +
    "have written: the shards' manifests are checked against each other (same data, prompts, models and " +
    "settings; endpoint addresses may differ), their stores become one, and the summary, tables, figures and " +
    "log are written without sending a request. Every shard must be finished (rerun it with --resume first).",
  flags: {
    out: { value: "DIR", help: "where to write the merged run (a new directory; required)" },
    "no-render": { help: "write HTML figures only (no Chromium for SVG/PNG/PDF)" },
  },
} as const;

/** What {@linkcode mergeShards} is given. */
export interface MergeOptions {
  /** Output directory of the merged run (must not hold a run). */
  out: string;
  /** The shards' run directories, in any order. */
  shards: readonly string[];
  /** Render SVG/PNG/PDF (default `true`; HTML is always written). */
  render?: boolean;
}

/** What a merge produced. */
export interface MergeResult {
  /** Every condition's summary, baseline first (the baseline's is `summary.json`). */
  conditions: Summary[];
  /** What was copied from the shards. */
  counts: MergeCounts;
  /** Answers that failed for good plus scores whose calls failed for good, as a one-machine run counts them. */
  failures: number;
}

/** Plans the whole run from the settings the first shard recorded, and checks it is the shards' run. */
async function planWholeRun(first: ShardRun, options: MergeOptions): Promise<EvalPlan> {
  const recorded = first.manifest.config as Record<string, unknown> | undefined;
  if (!recorded) {
    throw new ConfigError(`merge: ${first.dir} does not record its run's settings: rerun its shards`);
  }
  const config = {
    ...withoutKeyVariables(recorded),
    out: options.out,
    progress: false,
    renderFigures: options.render ?? true,
  } as unknown as EvalConfig;
  const plan = await planRecorded(config, `merge: planning the whole run with ${first.dir}'s settings`);
  const planned = {
    identity: plan.identity,
    endpoints: plan.endpoints,
    ...conditionIdentities(plan),
  };
  const differences = runDifferences(first.manifest, JSON.parse(JSON.stringify(planned)));
  if (differences.length) {
    const listed = describeDifferences(differences);
    const where = "merge where the shards' data and settings (e.g. OPENAI_BASE_URL) are at hand";
    throw new ConfigError(
      `merge: ${first.dir}'s settings, planned here, give another run: ${listed}; ${where}`,
    );
  }
  return plan;
}

/** Returns `ids` as a short list for a one-line message. */
function some(ids: readonly string[]): string {
  return ids.slice(0, 3).join(", ") + (ids.length > 3 ? ", ..." : "");
}

/**
 * Checks that each shard holds exactly its samples of the whole run, each answered in every condition and
 * scored by every scorer (scores whose calls failed for good count as failures, as in a one-machine run);
 * returns the failures. An unfinished shard is a {@linkcode ConfigError} naming it and the samples it lacks.
 */
function checkFinished(plan: EvalPlan, shards: readonly ShardRun[]): number {
  const members = (role: string) => plan.roles.find((r) => r.name === role)?.providers ?? [];
  let failures = 0;
  for (const run of shards) {
    const where = `${run.dir} (shard ${shardLabel(run.shard)})`;
    const expected = shardSamples(plan.allSamples, run.shard);
    const stored = new Set(run.store.samples().map((s) => s.id));
    const ids = new Set(expected.map((s) => s.id));
    const foreign = [...stored].filter((id) => !ids.has(id));
    if (foreign.length || stored.size !== expected.length) {
      throw new ConfigError(
        `merge: ${where} holds ${stored.size} samples where its shard of the run has ${expected.length}` +
          (foreign.length ? ` (not in it: ${some(foreign)})` : ""),
      );
    }
    const failed = new Set(
      run.store.events().filter((e) => e.kind === "score_failed").map((e) => {
        const detail = e.detail as { sample?: string; scorer?: string };
        return `${detail.sample}\t${detail.scorer}`;
      }),
    );
    const missing = new Set<string>();
    for (const { condition } of plan.conditions) {
      const outputs = new Map(run.store.outputStatus(condition.name).map((o) => [o.sampleId, o]));
      const scores = new Map<string, number>();
      for (const score of run.store.scores(condition.name)) {
        const key = `${score.sampleId}\t${score.scorer}`;
        scores.set(key, (scores.get(key) ?? 0) + 1);
      }
      for (const sample of expected) {
        const output = outputs.get(sample.id);
        if (!output) missing.add(sample.id);
        if (!output?.answered) {
          failures += output ? 1 : 0;
          continue;
        }
        for (const scorer of plan.task.scorers) {
          const units = scorer.units?.({ judgeRuns: plan.judgeRuns, members }, sample) ?? 1;
          const key = `${sample.id}\t${scorer.name}`;
          if (units === 0 || (scores.get(key) ?? 0) >= units) continue;
          if (failed.has(key)) failures += units;
          else missing.add(sample.id);
        }
      }
    }
    if (missing.size) {
      throw new ConfigError(
        `merge: ${where} is not finished: ${missing.size} samples have no answer or scores yet (${
          some([...missing])
        }); finish it with its eval command and --resume, then merge again`,
      );
    }
  }
  return failures;
}

/**
 * Merges the shard runs in `options.shards` into one run in `options.out` and writes its outputs (summary,
 * per-sample results, tables, figures, export) as a one-machine run of the same settings writes them.
 * Throws {@linkcode ConfigError} with a one-line message naming the directory at fault.
 */
export async function mergeShards(options: MergeOptions): Promise<MergeResult> {
  const storePath = `${options.out}/run.sqlite`;
  if (await pathExists(storePath)) {
    throw new ConfigError(`merge --out: ${storePath} already holds a run; choose another --out`);
  }
  const shards: ShardRun[] = [];
  try {
    for (const dir of options.shards) shards.push(openShard(dir));
    checkShardSet(shards);
    const plan = await planWholeRun(shards[0], options);
    const failures = checkFinished(plan, shards);
    await Deno.mkdir(options.out, { recursive: true });
    const counts = mergeStores(storePath, shards, {
      samples: plan.allSamples,
      conditions: plan.conditions.map((c) => c.condition.name),
    });
    const store = new RunStore(storePath);
    try {
      const results = plan.conditions.map((entry) => conditionResult(plan, store, entry));
      await writeRunOutputs({
        out: options.out,
        task: plan.task,
        store,
        results,
        buckets: plan.buckets,
        render: options.render ?? true,
      });
      return { conditions: results.map((r) => r.summary), counts, failures };
    } finally {
      store.close();
    }
  } finally {
    closeShards(shards);
  }
}

/** `merge`: returns the exit code. */
export async function mergeCommand(args: string[]): Promise<number> {
  const { values, positionals, help } = parseCommand(MERGE_SPEC, args);
  if (help) {
    console.log(commandUsage(MERGE_SPEC));
    return 0;
  }
  if (!values.out) throw new ConfigError("--out: where to write the merged run (a new directory)");
  if (positionals.length === 0) throw new ConfigError("merge: name the shards' run directories");
  const { conditions, counts, failures } = await mergeShards({
    out: values.out,
    shards: positionals,
    render: !values["no-render"],
  });
  printSummaries(conditions);
  console.log(
    `  merged ${positionals.length} shards: ${counts.samples} samples, ${counts.calls} calls, ${counts.outputs} ` +
      `answers, ${counts.scores} scores, ${counts.events} events`,
  );
  if (counts.differingCalls.length) {
    console.log(
      `  note: ${counts.differingCalls.length} identical requests were answered differently in different ` +
        "shards; the first shard's reply is stored, each answer keeps the text it got",
    );
  }
  if (counts.differingShapes.length) {
    console.log(
      `  note: the shards put requests on the wire differently for ${counts.differingShapes.join(", ")}; ` +
        "the manifest's request_shapes records each shard's shape (by_shard)",
    );
  }
  console.log(`  outputs: ${values.out}`);
  if (failures > 0) {
    console.error(
      `error: ${failures} answers/scores failed for good; rerun the failed shards with --resume, then merge again`,
    );
    return 1;
  }
  return 0;
}
