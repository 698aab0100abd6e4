/**
 * Multi-agent participant synthesis over a set of models: one run per first model, in which every other
 * model debates as its own role (`--ablation mps:debaterK --role debaterK=MODEL`). Each run's baseline is
 * the model alone and each `mps:*` condition one ordered pair, so n models give n + n(n − 1) participants;
 * the generation call is shared by the baseline and every pair (asked once per question).
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import { safeName } from "../core/fs.ts";
import type { EvalConfig } from "./eval_config.ts";
import { type EvalResult, runEval } from "./run_eval.ts";

/** One model's run of the participant pool. */
export interface ParticipantRun {
  /** The first model (generation and reflection). */
  model: string;
  /** Debater role name → model. */
  debaters: Record<string, string>;
  /** The run directory. */
  dir: string;
  /** The run's result. */
  result: EvalResult;
}

/**
 * Runs every model with every other as debater; `base` holds the run settings shared by all (benchmark,
 * base URL, data, limit, ...), `out` the parent directory of the runs.
 */
export async function runParticipants(
  base: Omit<EvalConfig, "model" | "out" | "ablations" | "roles">,
  models: readonly string[],
  out: string,
): Promise<ParticipantRun[]> {
  if (models.length < 2) throw new ConfigError("--models: MPS needs at least two models");
  if (new Set(models).size !== models.length) throw new ConfigError("--models: a model is named twice");
  const runs: ParticipantRun[] = [];
  for (const model of models) {
    const others = models.filter((m) => m !== model);
    const debaters = Object.fromEntries(others.map((m, k) => [`debater${k + 1}`, m]));
    const dir = `${out}/${safeName(model)}`;
    const result = await runEval({
      ...base,
      model,
      out: dir,
      ablations: Object.keys(debaters).map((role) => `mps:${role}`),
      roles: Object.entries(debaters).map(([role, m]) => `${role}=${m}`),
    });
    runs.push({ model, debaters, dir, result });
  }
  return runs;
}
