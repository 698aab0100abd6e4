/**
 * How the replies of a condition ended, from what the run store holds: the model under test's answers, and the
 * calls of every other role and model (each judge of a jury, every judge repeat and re-ask, translators, a
 * task's own roles) — truncated (`finish_reason` `length`), refused (`content_filter`, or a `refusal` with no
 * content), empty, or not given because the request was longer than the model's context. Truncated, refused and
 * empty answers are scored as given; context-limit errors are the sample's result, scored as a failed answer. A judge
 * reply without a valid verdict (a refused, empty or cut one among them) is asked again, then stored as a judge
 * error, which each benchmark counts by its own rule.
 * @module
 */
import type { CallEndCounts, OutputOutcomeCounts } from "../store/run_store.ts";
import { hasOutcome, percent, type RoleOutcome } from "../report/outcomes_note.ts";

/** Counts of the outcomes of one condition's answers. */
export interface AnswerOutcomes {
  /** Outputs stored (answers and answer errors). */
  outputs: number;
  /** Answers cut off at the token limit (`finish_reason: "length"`). */
  truncated: number;
  /** Answers refused or filtered (`finish_reason: "content_filter"`, or a `refusal` with empty content). */
  refused: number;
  /** Answers with no text that were not refused. */
  empty_answers: number;
  /** Answer errors of requests longer than the model's context. */
  context_errors: number;
}

/** Share of truncated answers above which a run warns to raise `--max-tokens`. */
export const TRUNCATION_WARNING_SHARE = 0.05;

import { isContextError } from "../core/answer_errors.ts";
export { isContextError };

/**
 * Returns the outcomes of a condition's answers from the store's counts (`RunStore.outputOutcomeCounts`), the
 * answer errors sorted into context-limit errors and others.
 */
export function answerOutcomes(counts: OutputOutcomeCounts): AnswerOutcomes {
  const { outputs, truncated, refused, empty_answers, errors } = counts;
  return { outputs, truncated, refused, empty_answers, context_errors: errors.filter(isContextError).length };
}

/** A role as planned: its name and the models serving it. */
export interface RoleMembers {
  /** Role name. */
  name: string;
  /** Its providers' model names and labels (the label is what judges' scores name). */
  providers: readonly { model: string; label: string }[];
}

/** What {@linkcode roleOutcomes} counts, all of one condition. */
export interface RoleOutcomeInputs {
  /** The run's roles as planned, the model under test's first. */
  roles: readonly RoleMembers[];
  /** How the model under test's answers ended. */
  answers: AnswerOutcomes;
  /** Answers that failed for good. */
  answerErrors: number;
  /** How the finished calls of the other roles ended, by role and model (embeddings left out). */
  calls: Iterable<CallEndCounts>;
  /** Roles whose scorers judge (their rows count judge errors). */
  judgingRoles: readonly string[];
  /** Judge errors: the role and the judge's label of each judging without a valid verdict. */
  judgeErrors: Iterable<{ role: string; judge: string }>;
  /** Scorings that failed for good: the scorer's role and the error of each failed sample. */
  failedScorings: Iterable<{ role: string; error: string }>;
}

/**
 * Returns one row per role and model: the model under test's answers first, then every other role's models in
 * the order planned (roles with calls but no plan, e.g. from a merged store, after them); a role's model that
 * made no call in the condition and has nothing to count (a translator outside its pivot condition) has no
 * row. A scoring failure of a role with several models (a jury) cannot be pinned on one of them: it is counted
 * on a row of the role whose model names them all (`a + b`).
 */
export function roleOutcomes(inputs: RoleOutcomeInputs): RoleOutcome[] {
  const [modelRole, ...others] = inputs.roles;
  const { answers } = inputs;
  const rows: RoleOutcome[] = [{
    role: modelRole.name,
    model: modelRole.providers[0].model,
    calls: answers.outputs,
    truncated: answers.truncated,
    refused: answers.refused,
    empty: answers.empty_answers,
    context_errors: answers.context_errors,
    failed: inputs.answerErrors,
  }];
  const rowOf = (role: string, model: string): RoleOutcome => {
    let row = rows.find((r) => r.role === role && r.model === model && r !== rows[0]);
    if (!row) {
      row = { role, model, calls: 0, truncated: 0, refused: 0, empty: 0, context_errors: 0, failed: 0 };
      if (inputs.judgingRoles.includes(role)) row.judge_errors = 0;
      rows.push(row);
    }
    return row;
  };
  for (const role of others) for (const p of role.providers) rowOf(role.name, p.model);
  for (const counts of inputs.calls) {
    if (counts.role === modelRole.name) continue;
    const row = rowOf(counts.role, counts.model);
    row.calls += counts.calls;
    row.truncated += counts.truncated;
    row.refused += counts.refused;
    row.empty += counts.empty;
  }
  const membersOf = (role: string) => [
    ...new Set(others.find((r) => r.name === role)?.providers.map((p) => p.model)),
  ];
  for (const { role, judge } of inputs.judgeErrors) {
    const model = others.find((r) => r.name === role)?.providers.find((p) => p.label === judge)?.model;
    const row = rowOf(role, model ?? judge);
    row.judge_errors = (row.judge_errors ?? 0) + 1;
  }
  for (const { role, error } of inputs.failedScorings) {
    const members = membersOf(role);
    const row = rowOf(role, members.length ? members.join(" + ") : "unknown");
    row.failed++;
    if (isContextError(error)) row.context_errors++;
  }
  return rows.filter((r, i) => i === 0 || r.calls > 0 || hasOutcome(r));
}

/**
 * The warnings of a condition whose other roles' models (judges, translators, ...) had more than 5% of their
 * replies truncated: a truncated verdict or translation is read as given, a silent bias. `rows` as
 * {@linkcode roleOutcomes} returns them (the model under test's answers first, warned about on their own).
 */
export function roleTruncationWarnings(condition: string, rows: readonly RoleOutcome[]): string[] {
  return rows.slice(1).filter((r) => r.calls && r.truncated / r.calls > TRUNCATION_WARNING_SHARE).map((r) =>
    `${r.role} ${r.model} (${condition}): ${r.truncated} of ${r.calls} replies truncated (${
      percent(r.truncated, r.calls)
    }) at the token limit; raise --role-opt ${r.role}.max-tokens=N`
  );
}

/** Share of a judge model's calls ending as judge errors above which a run warns. */
export const JUDGE_ERROR_WARNING_SHARE = 0.05;

/**
 * The warnings of a condition whose judge models left more than 5% of their calls without a valid verdict: each
 * such judging counts by the benchmark's rule (LLMEval-Med: not usable), so a judge the run cannot read turns
 * into low scores rather than a failed run.
 */
export function roleJudgeErrorWarnings(condition: string, rows: readonly RoleOutcome[]): string[] {
  return rows.slice(1).filter((r) => r.calls && (r.judge_errors ?? 0) / r.calls > JUDGE_ERROR_WARNING_SHARE)
    .map((r) =>
      `${r.role} ${r.model} (${condition}): ${r.judge_errors} judgings without a valid verdict (${r.calls} ` +
      `calls, re-asks included); they count by the benchmark's rule, so check the judge's replies in ` +
      "samples.jsonl and the judge endpoint with deno task doctor"
    );
}

/**
 * The end-of-run line of each role and model of a condition with some outcome other than a normal reply
 * (`rows` as {@linkcode roleOutcomes} returns them).
 */
export function roleOutcomeLines(condition: string, rows: readonly RoleOutcome[]): string[] {
  return rows.filter(hasOutcome).map((r) =>
    `${r.role} ${r.model} (${condition}): ${r.calls} ${r === rows[0] ? "answers" : "calls"}, ` +
    `${r.truncated} truncated (${percent(r.truncated, r.calls)}), ${r.refused} refused (${
      percent(r.refused, r.calls)
    }), ${r.empty} empty, ${
      // The model's context-limit errors are results, not failures; a judge's are failed scorings.
      r === rows[0]
        ? `${r.context_errors} context-limit errors, ${r.failed} failed`
        : `${r.failed} failed (${r.context_errors} context-limit)`}` +
    (r.judge_errors === undefined ? "" : `, ${r.judge_errors} judge errors`)
  );
}

/** The warning of a run whose model had more than 5% of its answers truncated, or `undefined`. */
export function truncationWarning(
  model: string,
  condition: string,
  outcomes: AnswerOutcomes,
): string | undefined {
  const { outputs, truncated } = outcomes;
  if (!outputs || truncated / outputs <= TRUNCATION_WARNING_SHARE) return undefined;
  return `${model} (${condition}): ${truncated} of ${outputs} answers truncated (${
    percent(truncated, outputs)
  }) ` +
    "at the token limit; raise --max-tokens";
}
