/**
 * How the replies of every role and model of a condition ended — truncated, refused, empty, context-limit
 * errors, failed, judge errors — as a summary holds them (`outcomes_by_role`), and the one footnote line every
 * table of the condition carries: the counts of each role and model with their n, and how each is counted.
 * @module
 */
import type { Summary } from "../core/summary.ts";

/** What the replies of one role and model in one condition came to (one row of `outcomes_by_role`). */
export interface RoleOutcome {
  /** Role: `model` (the model under test), `judge`, `translator`, or a task's own. */
  role: string;
  /** Model name (several joined by ` + ` for failures a jury's scoring cannot pin on one judge). */
  model: string;
  /**
   * The n: for the model under test its answers asked (stored outputs, failed ones included); for any other
   * role its finished calls recorded for the condition (every judge repeat and re-ask counted).
   */
  calls: number;
  /** Replies cut off at the token limit (`finish_reason: "length"`). */
  truncated: number;
  /** Replies refused or filtered (`finish_reason: "content_filter"`, or a `refusal` with no content). */
  refused: number;
  /** Replies with no text that were not refused. */
  empty: number;
  /** Requests longer than the model's context (failed for good, never retried; part of `failed`). */
  context_errors: number;
  /**
   * Failed for good: answers without an answer (the model under test), or samples whose scoring by this role
   * failed because a call failed after its retries (a scorer's role). Failed samples are not in any rate's n.
   */
  failed: number;
  /** Judgings without a valid verdict after every re-ask (judging roles only; counted by the benchmark's rule). */
  judge_errors?: number;
}

/** A summary with the role outcomes this version writes (absent in summaries of earlier versions). */
export type SummaryWithOutcomes = Summary & { outcomes_by_role?: RoleOutcome[] };

/** Returns the role outcomes of `summary`, or `undefined` for a summary of an earlier version. */
export function roleOutcomesOf(summary: Summary): readonly RoleOutcome[] | undefined {
  return (summary as SummaryWithOutcomes).outcomes_by_role;
}

/** Role of the model under test. */
const MODEL_ROLE = "model";

/** Returns `part` as a percentage of `whole` with one decimal, e.g. `2.5%` (`0.0%` when `whole` is 0). */
export function percent(part: number, whole: number): string {
  return whole ? `${(100 * part / whole).toFixed(1)}%` : "0.0%";
}

/** Returns `true` when some reply of `row` ended other than normally, or failed. */
export function hasOutcome(row: RoleOutcome): boolean {
  return row.truncated + row.refused + row.empty + row.context_errors + row.failed + (row.judge_errors ?? 0) >
    0;
}

/** The part of the model under test's answers (the wording earlier versions' notes used). */
function answersPart(row: RoleOutcome): string {
  const { calls, truncated, refused, empty, context_errors } = row;
  return `model outputs: ${truncated} of ${calls} truncated (${percent(truncated, calls)}), ` +
    `${refused} refused (${percent(refused, calls)}), ${empty} empty (${percent(empty, calls)}), ` +
    `${context_errors} context-limit errors (${percent(context_errors, calls)})`;
}

/** The part of another role's model. */
function rolePart(row: RoleOutcome): string {
  const { calls, truncated, refused, empty, context_errors, failed, judge_errors } = row;
  return `${row.role} ${row.model}: ${truncated} of ${calls} calls truncated (${
    percent(truncated, calls)
  }), ` +
    `${refused} refused (${percent(refused, calls)}), ${empty} empty, ${failed} failed (${context_errors} ` +
    `context-limit)${judge_errors === undefined ? "" : `, ${judge_errors} judge errors`}`;
}

/**
 * Returns the one outcomes line of a condition: the model under test's answers, then every other role and
 * model with its n, then how they count. `undefined` when there is no row of the model under test.
 */
export function outcomesLine(rows: readonly RoleOutcome[]): string | undefined {
  const answers = rows.find((r) => r.role === MODEL_ROLE);
  if (!answers) return undefined;
  const others = rows.filter((r) => r !== answers);
  const judging = others.some((r) => r.judge_errors !== undefined);
  return [
    answersPart(answers),
    ...others.map(rolePart),
    "truncated, refused and empty answers are scored as given, context-limit errors are the sample's result, scored as a failed answer (in n)" +
    (judging ? "; a judge reply without a valid verdict is asked again, then is a judge error" : ""),
  ].join("; ");
}

/** Returns the outcomes line of `summary`, or `undefined` for a summary of an earlier version. */
export function summaryOutcomesLine(summary: Summary): string | undefined {
  const rows = roleOutcomesOf(summary);
  return rows ? outcomesLine(rows) : undefined;
}
