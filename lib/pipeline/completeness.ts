/**
 * How complete one condition of a run is, from what its store holds: each sample is scored (answered, and
 * every scorer stored every score it owes: judge runs × judges), not asked (no answer stored: the run stopped,
 * or a shard or resume has not reached it), not judged (answered, scores missing) or failed (the answer, or a
 * score's call, failed for good). Rates count scored samples only: a sample that is not yet complete is never
 * a zero. Judge errors (a judge replied without a valid verdict) are scores, counted by each protocol's rule.
 * @module
 */
import { isFinalAnswerError } from "../core/answer_errors.ts";
import type { Sample } from "../core/sample.ts";
import type { SampleRow } from "../core/summary.ts";
import type { RunView, ScoreContext, Scorer } from "../core/task.ts";
import type { RunStore } from "../store/run_store.ts";

/** Where one sample of a condition stands. */
export type SampleStatus = "scored" | "not_asked" | "not_judged" | "failed";

/** The counts of {@linkcode SampleStatus} over a condition, and which samples are not complete. */
export interface Completeness {
  /** `true` when every sample is scored. */
  complete: boolean;
  /** Samples of the condition. */
  samples: number;
  /** Answered and fully scored: what rates count. */
  scored: number;
  /** No answer stored. */
  not_asked: number;
  /** Answered, but some scores are missing (the run stopped before they were made). */
  not_judged: number;
  /** The answer, or a call a score needed, failed for good (`--resume` asks again). */
  failed: number;
  /** Ids of the samples that are not scored, with their status. */
  incomplete: Map<string, Exclude<SampleStatus, "scored">>;
  /** Why the failed samples failed: each distinct error message with how many samples it stopped. */
  causes: Map<string, number>;
}

/** What {@linkcode runCompleteness} needs besides the view. */
export interface CompletenessOptions {
  /** The scorers of the task (human ratings are not among them and are never owed). */
  scorers: readonly Scorer[];
  /** Judge runs and the members of each role, as the run was configured: how many scores a sample is owed. */
  ctx: Pick<ScoreContext, "judgeRuns" | "members">;
  /** Samples whose scoring failed for good in this condition, with the error (the `score_failed` events). */
  scoreFailed?: ReadonlyMap<string, string>;
}

/** Returns the status of every sample of `view` and their counts. */
export function runCompleteness(view: RunView, options: CompletenessOptions): Completeness {
  const incomplete = new Map<string, Exclude<SampleStatus, "scored">>();
  const causes = new Map<string, number>();
  for (const sample of view.samples) {
    const status = sampleStatus(view, sample, options);
    if (status !== "scored") incomplete.set(sample.id, status);
    if (status === "failed") {
      const cause = view.outputs.get(sample.id)?.error ?? options.scoreFailed?.get(sample.id) ?? "unknown";
      causes.set(cause, (causes.get(cause) ?? 0) + 1);
    }
  }
  const count = (status: SampleStatus) => [...incomplete.values()].filter((s) => s === status).length;
  return {
    complete: incomplete.size === 0,
    samples: view.samples.length,
    scored: view.samples.length - incomplete.size,
    not_asked: count("not_asked"),
    not_judged: count("not_judged"),
    failed: count("failed"),
    incomplete,
    causes,
  };
}

function sampleStatus(view: RunView, sample: Sample, options: CompletenessOptions): SampleStatus {
  const output = view.outputs.get(sample.id);
  if (!output) return "not_asked";
  // A context-limit error is the sample's result (scored as a failed answer); any other error is a failure.
  if (!output.answered) return isFinalAnswerError(output.error) ? "scored" : "failed";
  const scores = view.scores.get(sample.id) ?? [];
  for (const scorer of options.scorers) {
    const owed = scorer.units?.(options.ctx, sample) ?? 1;
    if (owed === 0) continue;
    const stored = scores.filter((s) => s.scorer === scorer.name).length;
    if (stored < owed) return options.scoreFailed?.has(sample.id) ? "failed" : "not_judged";
  }
  return "scored";
}

/**
 * Returns `view` without the scores of samples that are not complete, so that nothing an aggregation reads
 * from the view (jury agreement, judge-error counts) rests on a half-scored sample.
 */
export function scoredView(view: RunView, completeness: Completeness): RunView {
  if (completeness.complete) return view;
  const scores = new Map([...view.scores].filter(([id]) => !completeness.incomplete.has(id)));
  return { ...view, scores };
}

/** Returns `rows` with every metric value of an incomplete sample set to `null` (not counted, never a zero). */
export function scoredRows(rows: readonly SampleRow[], completeness: Completeness): SampleRow[] {
  if (completeness.complete) return [...rows];
  return rows.map((row) =>
    completeness.incomplete.has(row.id)
      ? { ...row, values: Object.fromEntries(Object.keys(row.values).map((k) => [k, null])) }
      : row
  );
}

/** The counts {@linkcode partialRunNote} reads (a {@linkcode Completeness}, or a summary's `counts`). */
export type CompletenessCounts = Pick<
  Completeness,
  "samples" | "scored" | "not_asked" | "not_judged" | "failed"
>;

/** The one line every summary and table of a partial run carries. */
export function partialRunNote(completeness: CompletenessCounts): string {
  const { samples, scored, not_asked, not_judged, failed } = completeness;
  return `partial run: ${scored} of ${samples} samples scored; ${not_asked} not asked, ${not_judged} not judged, ` +
    `${failed} failed; rates count scored samples only (rerun with --resume to complete)`;
}

/** Adds `more` causes to `into` (counts of the same message summed). */
export function addCauses(into: Map<string, number>, more: ReadonlyMap<string, number>): void {
  for (const [cause, n] of more) into.set(cause, (into.get(cause) ?? 0) + n);
}

/**
 * Returns the lines naming why samples failed, most frequent first: `  12 × batch submission failed: HTTP 400 …`
 * (each message cut at `width` characters), at most `limit` of them and a line counting the rest.
 */
export function causeLines(causes: ReadonlyMap<string, number>, limit = 5, width = 200): string[] {
  const sorted = [...causes].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const lines = sorted.slice(0, limit).map(([cause, n]) =>
    `  ${n} × ${cause.length > width ? `${cause.slice(0, width - 1)}…` : cause}`
  );
  if (sorted.length > limit) {
    const rest = sorted.slice(limit).reduce((sum, [, n]) => sum + n, 0);
    lines.push(`  ${rest} more, of ${sorted.length - limit} other causes (samples.jsonl has each one)`);
  }
  return lines;
}

/** Why one sample's scoring failed for good: the scorer and its error (a `score_failed` event). */
export interface ScoreFailure {
  /** Scorer name. */
  scorer: string;
  /** The error, redacted. */
  error: string;
}

/** Returns the samples of `condition` whose scoring failed for good (the run's `score_failed` events). */
export function scoreFailures(store: Pick<RunStore, "events">, condition: string): Map<string, string> {
  return new Map(
    [...scoreFailureDetails(store, condition)].map(([id, f]) => [id, `${f.scorer}: ${f.error}`]),
  );
}

/** Returns, by sample, the scorer and error of each scoring of `condition` that failed for good. */
export function scoreFailureDetails(
  store: Pick<RunStore, "events">,
  condition: string,
): Map<string, ScoreFailure> {
  const failed = new Map<string, ScoreFailure>();
  for (const event of store.events("score_failed")) {
    const detail = event.detail as { sample?: string; condition?: string; scorer?: string; error?: string };
    if (detail.sample && (detail.condition ?? condition) === condition) {
      failed.set(detail.sample, { scorer: detail.scorer ?? "scorer", error: detail.error ?? "failed" });
    }
  }
  return failed;
}
