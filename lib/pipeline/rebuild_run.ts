/**
 * Rewriting a finished run's outputs (summaries, per-sample rows, tables, figures, export) from its store,
 * without sending a request: the run is planned again from the settings its manifest records (checked against
 * its identity), each condition's result is read from the store, and the outputs are written as `eval` writes
 * them. Used after something was added to the store by hand, e.g. human ratings (`import-ratings`).
 * @module
 */
import { ConfigError, InputError } from "../core/errors.ts";
import type { Summary } from "../core/summary.ts";
import { describeDifferences, runDifferences } from "../store/merge.ts";
import type { RunStore } from "../store/run_store.ts";
import { startExport } from "../store/export.ts";
import type { EvalConfig } from "./eval_config.ts";
import { conditionIdentities, type EvalPlan, planEval } from "./plan.ts";
import { conditionResult } from "./run_eval.ts";
import { shardLabel } from "./shard.ts";
import { writeRunOutputs } from "./write_outputs.ts";

/** How to plan a stored run again. */
export interface ReplanOptions {
  /** The run's directory (its outputs are rewritten there). */
  runDir: string;
  /** Render SVG/PNG/PDF (HTML is always written). */
  render: boolean;
  /** The run's data file, when it is no longer where the run recorded it (checked against the run's hash). */
  data?: string;
  /** The command, for messages (e.g. `import-ratings`). */
  command: string;
}

/**
 * Returns recorded settings without the environment variables that hold keys (`*ApiKeyEnv(s)` and
 * `--role-opt NAME.api-key-env=…`): replanning a stored run sends nothing, so it needs no key.
 */
export function withoutKeyVariables(config: Record<string, unknown>): Record<string, unknown> {
  const kept = Object.entries(config).filter(([key]) => !/apiKeyEnvs?$/i.test(key)).map(([key, value]) =>
    key === "roleOptions" && Array.isArray(value)
      ? [key, value.filter((o) => !/^[^.=]+\.api-key-env=/.test(String(o)))]
      : [key, value]
  );
  return Object.fromEntries(kept);
}

/** Returns recorded settings for a replan that sends nothing: no key variables, no ratings to import again. */
function withoutSendingSettings(config: Record<string, unknown>): Record<string, unknown> {
  const { humanEval: _, ...rest } = withoutKeyVariables(config);
  return rest;
}

/**
 * Plans the run stored in `options.runDir` again from the settings its manifest records and checks that the
 * plan is that run (same identity and conditions). Nothing is written or sent. Throws a one-line
 * {@linkcode ConfigError} naming the run when the settings are missing or plan another run.
 */
export async function replanStoredRun(
  manifest: Record<string, unknown>,
  options: ReplanOptions,
): Promise<EvalPlan> {
  const { runDir, command } = options;
  const recorded = manifest.config as Record<string, unknown> | undefined;
  if (!recorded) {
    throw new ConfigError(
      `${command}: ${runDir} does not record its run's settings (an older run): rerun its eval command with ` +
        "--resume (which records them), then import again",
    );
  }
  const shard = manifest.shard as { index: number; count: number } | undefined;
  const config = {
    ...withoutSendingSettings(recorded),
    ...(options.data !== undefined ? { data: options.data } : {}),
    ...(shard ? { shard: shardLabel(shard) } : {}),
    out: runDir,
    resume: true,
    progress: false,
    renderFigures: options.render,
  } as unknown as EvalConfig;
  const plan = await planRecorded(
    config,
    `${command}: planning ${runDir}'s run again from its recorded settings to rewrite its tables`,
  );
  const planned = {
    identity: plan.identity,
    endpoints: plan.endpoints,
    ...conditionIdentities(plan),
  };
  const differences = runDifferences(manifest, JSON.parse(JSON.stringify(planned)));
  if (differences.length) {
    throw new ConfigError(
      `${command}: ${runDir}'s recorded settings, planned here, give another run: ` +
        describeDifferences(differences, ["stored ", "now "]) +
        (differences.some((d) => d.key === "data_sha256")
          ? "; pass the run's data file with --data FILE"
          : ""),
    );
  }
  return plan;
}

/**
 * Writes every output of the run `plan` describes from `store`, as `eval` writes them; returns each
 * condition's summary, baseline first.
 */
export async function rewriteRunOutputs(plan: EvalPlan, store: RunStore): Promise<Summary[]> {
  const results = plan.conditions.map((entry) => conditionResult(plan, store, entry));
  // The log files are exported in a worker while the summaries, tables and figures are written.
  startExport(store, `${plan.config.out}/log`);
  await writeRunOutputs({
    out: plan.config.out,
    task: plan.task,
    store,
    results,
    buckets: plan.buckets,
    render: plan.config.renderFigures ?? true,
  });
  return results.map((r) => r.summary);
}

/**
 * Plans a run from settings a store recorded; a setting or data file that no longer plans is one
 * {@linkcode ConfigError} starting with `what` (for example, which command re-plans which run), then the reason.
 */
export async function planRecorded(config: EvalConfig, what: string): Promise<EvalPlan> {
  try {
    return await planEval(config);
  } catch (err) {
    if (!(err instanceof ConfigError || err instanceof InputError)) throw err;
    throw new ConfigError(`${what}: ${err.message}`);
  }
}
