/**
 * Response data from collected runs: every (model, condition) of every run is one examinee — a multi-agent
 * participant (`mps` conditions) is named after its two models, `A → B` — and every sample one item, 1 or 0
 * for choice items, graded scores dichotomised at a declared threshold.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import {
  type CollectedRun,
  collectRuns,
  type LongRow,
  type ResponseMatrix,
  responseMatrix,
} from "../store/collect.ts";
import { type Responses, responsesFromMatrix } from "./responses.ts";

/** How to read runs into responses. */
export interface RunResponsesOptions {
  /** Scorer whose value is the response (default: the only scorer the runs share). */
  scorer?: string;
  /** Field of the scorer (default its primary value). */
  field?: string;
  /** Values at or above it count as right (required for graded values). */
  threshold?: number;
  /** Only this condition (default every condition, each its own examinee). */
  condition?: string;
  /**
   * Without a threshold, what graded values (not 0 or 1) do: `error` (default) refuses them, `leave-out` leaves
   * their items out of the responses with a warning naming them (e.g. after runs that cost real calls).
   */
  graded?: "error" | "leave-out";
}

/** Items of a matrix with a value other than 0, 1 or missing, with the first such value, by item id. */
function gradedItems(matrix: ResponseMatrix): { item: string; value: number }[] {
  const found: { item: string; value: number }[] = [];
  for (const [i, item] of matrix.items.entries()) {
    const value = matrix.values.map((row) => row[i]).find((v) => v !== null && v !== 0 && v !== 1);
    if (value !== undefined && value !== null) found.push({ item, value });
  }
  return found.sort((x, y) => (x.item < y.item ? -1 : x.item > y.item ? 1 : 0));
}

/** Returns the examinee name of a run's condition: the model, `A → B` for MPS, `model · condition` otherwise. */
export function participantName(run: CollectedRun, condition: string, baseline = "default"): string {
  if (condition === baseline) return run.model;
  if (condition === "mps" || condition.startsWith("mps:")) {
    const role = condition === "mps" ? "debater" : condition.slice("mps:".length);
    return `${run.model} → ${run.roles[role] ?? role}`;
  }
  return `${run.model} · ${condition}`;
}

/** Reads run directories into responses (with the warnings of what was left out). */
export async function responsesFromRuns(
  dirs: readonly string[],
  options: RunResponsesOptions = {},
): Promise<{ data: Responses; runs: CollectedRun[]; scorer: string; warnings: string[] }> {
  const { runs, rows } = await collectRuns(dirs);
  const benchmarks = new Set(runs.map((r) => r.benchmark));
  if (benchmarks.size > 1) {
    throw new ConfigError(`--runs: one benchmark at a time (got ${[...benchmarks].join(", ")})`);
  }
  const scorers = [...new Set(rows.map((r) => r.scorer))].filter((s) => !s.startsWith("human:"));
  const scorer = options.scorer ?? (scorers.length === 1 ? scorers[0] : undefined);
  if (!scorer) {
    throw new ConfigError(`--scorer: the runs have several scorers (${scorers.join(", ")}); name one`);
  }
  if (!scorers.includes(scorer)) {
    throw new ConfigError(`--scorer ${scorer}: not in the runs (${scorers.join(", ")})`);
  }
  const byDir = new Map(runs.map((r) => [r.dir, r]));
  const warnings: string[] = [];
  // One examinee per participant: the first run that holds it (a model's baseline repeats across MPS runs).
  const owner = new Map<string, string>();
  const kept: LongRow[] = [];
  for (const row of rows) {
    if (row.scorer !== scorer) continue;
    if (options.condition !== undefined && row.condition !== options.condition) continue;
    const name = participantName(byDir.get(row.run)!, row.condition);
    const first = owner.get(name);
    if (first === undefined) owner.set(name, row.run);
    else if (first !== row.run) continue;
    kept.push({ ...row, model: name, condition: "" });
  }
  const repeated = runs.filter((r) => ![...owner.values()].includes(r.dir));
  for (const run of repeated) {
    warnings.push(`${run.dir}: every examinee in it is already taken from an earlier run`);
  }
  let matrix = responseMatrix(kept, { scorer, field: options.field });
  const graded = options.threshold === undefined ? gradedItems(matrix) : [];
  if (graded.length && options.graded === "leave-out") {
    const out = new Set(graded.map((g) => g.item));
    const keep = matrix.items.map((item) => !out.has(item));
    matrix = {
      persons: matrix.persons,
      items: matrix.items.filter((_, i) => keep[i]),
      values: matrix.values.map((row) => row.filter((_, i) => keep[i])),
    };
    const examples = graded.slice(0, 3).map((g) => `"${g.item}" ${Number(g.value.toFixed(4))}`).join(", ");
    warnings.push(
      `${graded.length} item(s) with graded scores (e.g. ${examples}) left out of the responses: ` +
        `declare --threshold T to count scores >= T as right`,
    );
  }
  const data = responsesFromMatrix(matrix, options.threshold, dirs.join(", "));
  return { data, runs, scorer, warnings };
}
