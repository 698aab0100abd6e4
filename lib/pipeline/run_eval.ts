/**
 * One evaluation run end to end: plan (validate everything, write nothing) → open the run store → evaluate
 * every condition through the run's roles → aggregate from the store → write summary, per-sample results,
 * tables, figures and the JSONL export into the output directory.
 * @module
 */
import { isFinalAnswerError } from "../core/answer_errors.ts";
import type { Summary } from "../core/summary.ts";
import type { Table } from "../core/report_spec.ts";
import type { RunLabels } from "../core/summary.ts";
import type { Sample } from "../core/sample.ts";
import { isJudgeScorer } from "../judges/judge_scorer.ts";
import { juryReport } from "../judges/jury.ts";
import type { CallerStats } from "../providers/caller.ts";
import { attachBatchProviders } from "../providers/batch/batch.ts";
import { Progress } from "../report/progress.ts";
import { collectGarbage, evaluate, progressUnits, readRunView } from "./evaluate.ts";
import { openRunStore, recordCodeVersion } from "./open_store.ts";
import { removeQuietly } from "../core/fs.ts";
import { type EvalPlan, planEval } from "./plan.ts";
import { type EvalConfig } from "./eval_config.ts";
import { Roles } from "./roles.ts";
import { conditionNote, conditionSolver } from "../ablations/condition.ts";
import { withRobustness } from "../robustness/sets.ts";
import type { RunStore } from "../store/run_store.ts";
import { discardExport, prepareExport, startExport } from "../store/export.ts";
import { Budget, usageRows } from "../providers/accounting/spend.ts";
import { shardNote } from "./shard.ts";
import {
  addCauses,
  type Completeness,
  partialRunNote,
  runCompleteness,
  scoredRows,
  scoredView,
  scoreFailureDetails,
  scoreFailures,
} from "./completeness.ts";
import { type ConditionResult, writeRunOutputs } from "./write_outputs.ts";
import { rowHeadsDigest } from "./sample_rows.ts";
import {
  type AnswerOutcomes,
  answerOutcomes,
  roleJudgeErrorWarnings,
  roleOutcomeLines,
  roleOutcomes,
  roleTruncationWarnings,
  truncationWarning,
} from "./outcomes.ts";
import {
  hasOutcome,
  outcomesLine,
  type RoleOutcome,
  type SummaryWithOutcomes,
} from "../report/outcomes_note.ts";
import type { RunView } from "../core/task.ts";

/** What a finished run returns. */
export interface EvalResult {
  /** The baseline's summary, written to `summary.json`. */
  summary: Summary;
  /** Every condition's summary, baseline first. */
  conditions: Summary[];
  /** Tables comparing the conditions with the baseline (paired differences), by file name. */
  comparisons: Record<string, Table>;
  /** Output directory. */
  out: string;
  /** Answers that failed for good plus scores whose calls failed for good (0 = complete run). */
  failures: number;
  /** Why the run stopped before asking every sample (a spending limit), if it did. */
  stopped?: string;
  /** `false` when some sample of some condition is not scored yet (rates then count scored samples only). */
  complete: boolean;
  /** Why samples failed for good, over all conditions: each distinct error with its count. */
  failureCauses: Map<string, number>;
  /** Calls answered from the store, sent, retried and failed, by role. */
  calls: Record<string, CallerStats>;
  /** The samples evaluated (after `limit`), as loaded and validated. */
  samples: Sample[];
}

/** Runs one evaluation as configured and writes its outputs. Throws ConfigError/InputError on bad settings. */
export async function runEval(config: EvalConfig): Promise<EvalResult> {
  return await executeEval(await planEval(config));
}

/**
 * Returns how many conversations run at once: twice the requests the roles can have in flight, so every role
 * stays busy while answers are scored, without holding the whole sample set in flight.
 */
export function evaluationWindow(roles: Roles): number {
  return Math.max(16, 2 * roles.capacity());
}

/**
 * Aggregates one condition of a run from its store (what `executeEval` and `deno task merge` write): rows and
 * summary, with juries and notes; a shard's summary says that it is one shard's.
 */
export function conditionResult(
  plan: EvalPlan,
  store: RunStore,
  entry: EvalPlan["conditions"][number],
): ConditionResult {
  const { task, judgeRuns } = plan;
  const { condition, applied } = entry;
  const members = (role: string) => plan.roles.find((r) => r.name === role)?.providers ?? [];
  const [model] = plan.roles[0].providers;
  const labels: RunLabels = {
    benchmark: task.name,
    model: model.offline ? model.model : model.label,
    judge: plan.judges.length ? plan.judges.join(" + ") : null,
    condition: condition.name,
    offline: plan.roles.some((r) => r.providers.some((p) => p.offline)),
    judgeRuns,
  };
  // Counted before the view is read: a condition this run held is counted from memory, until the view takes it.
  const outcomes = answerOutcomes(store.outputOutcomeCounts(condition.name));
  const full = readRunView(store, condition.name);
  // Memory checkpoints: reading every score and building every row leave garbage V8 would keep until the heap
  // had grown several times over (at 100,000 samples the aggregation's peak RSS fell by ~45 MB).
  collectGarbage();
  const completeness = runCompleteness(full, {
    scorers: task.scorers,
    ctx: { judgeRuns, members },
    scoreFailed: scoreFailures(store, condition.name),
  });
  // A sample not yet answered and fully scored counts for no rate (never as a zero); the counts say why.
  const view = scoredView(full, completeness);
  const rows = scoredRows(task.rows(view, labels), completeness);
  collectGarbage();
  const summary = withCompleteness(task.aggregate(rows, view, labels), completeness.complete);
  Object.assign(summary.counts, {
    samples: completeness.samples,
    answer_errors: [...full.outputs.values()].filter((o) => !o.answered).length,
    scored: completeness.scored,
    not_asked: completeness.not_asked,
    not_judged: completeness.not_judged,
    failed: completeness.failed,
  });
  Object.assign(summary.counts, {
    truncated: outcomes.truncated,
    refused: outcomes.refused,
    empty_answers: outcomes.empty_answers,
    context_errors: outcomes.context_errors,
  });
  if (!completeness.complete) summary.notes.unshift(partialRunNote(completeness));
  const outcomesByRole = conditionRoleOutcomes(plan, store, entry, { full, view, completeness, outcomes });
  // The summary notes how replies ended when any did otherwise; every table states it even when none did.
  if (outcomesByRole.some(hasOutcome)) summary.notes.push(outcomesLine(outcomesByRole)!);
  const juries = task.scorers.filter(isJudgeScorer).map((s) =>
    juryReport(view, s.name, s.spec, judgeRuns, `${task.name}:${condition.name}`, task.clusters)
  ).filter((j) => j !== undefined);
  if (juries.length) summary.juries = juries;
  const note = conditionNote(condition, {
    task,
    roleLabel: (role) => members(role).map((m) => m.label).join(" + "),
    applied,
    total: plan.allSamples.length,
    perturbSeed: plan.perturbSeed,
    auxiliary: new Map([...plan.auxiliary].map(([name, a]) => [name, a.samples])),
  });
  if (note) summary.notes.push(note);
  summary.usage = usageRows(
    store.usageTotals(),
    plan.prices,
    condition.name,
    plan.conditions[0].condition.name,
  );
  if (plan.shard) summary.notes.push(shardNote(plan.shard, plan.samples.length, plan.allSamples.length));
  (summary as SummaryWithOutcomes).outcomes_by_role = outcomesByRole;
  const modelWarning = truncationWarning(labels.model, condition.name, outcomes);
  return {
    condition,
    summary,
    rows,
    samples: applied.samples,
    failureCauses: completeness.causes,
    warnings: [
      ...(modelWarning ? [modelWarning] : []),
      ...roleTruncationWarnings(condition.name, outcomesByRole),
      ...roleJudgeErrorWarnings(condition.name, outcomesByRole),
    ],
    outcomeLines: roleOutcomeLines(condition.name, outcomesByRole),
  };
}

/**
 * Returns how the replies of every role and model of one condition ended: the model under test's answers,
 * every other role's calls recorded for the condition (embeddings left out), judge errors of the scored
 * samples, and the samples whose scoring failed for good, by the scorer's role.
 */
function conditionRoleOutcomes(
  plan: EvalPlan,
  store: RunStore,
  entry: EvalPlan["conditions"][number],
  read: { full: RunView; view: RunView; completeness: Completeness; outcomes: AnswerOutcomes },
): RoleOutcome[] {
  const { task } = plan;
  const { full, view, completeness } = read;
  const condition = entry.condition.name;
  const roleOfScorer = (name: string) => task.scorers.find((s) => s.name === name)?.roles[0];
  const judges = task.scorers.filter(isJudgeScorer).map((s) => ({
    name: s.name,
    role: s.spec.role ?? "judge",
  }));
  const judgeErrors = [...view.scores.values()].flat().filter((s) => !s.valid).flatMap((s) => {
    const judge = judges.find((j) => j.name === s.scorer);
    return judge && s.judge !== null ? [{ role: judge.role, judge: s.judge }] : [];
  });
  const failedScorings = [...scoreFailureDetails(store, condition)].flatMap(([id, failure]) => {
    const role = roleOfScorer(failure.scorer);
    const scoringFailed = completeness.incomplete.get(id) === "failed" && full.outputs.get(id)?.answered;
    return role !== undefined && scoringFailed ? [{ role, error: failure.error }] : [];
  });
  return roleOutcomes({
    roles: plan.roles.map((r) => ({ name: r.name, providers: r.providers })),
    answers: read.outcomes,
    answerErrors: [...full.outputs.values()].filter((o) =>
      !o.answered && !isFinalAnswerError(o.error)
    ).length,
    // The model's answers are counted from the outputs above, so its calls are not read again (nor embeddings).
    calls: store.callEndCounts(condition, plan.conditions[0].condition.name, ["embed", plan.roles[0].name]),
    judgingRoles: [...new Set(judges.map((j) => j.role))],
    judgeErrors,
    failedScorings,
  });
}

/** Returns `summary` with `complete` right after `n` (where a reader of `summary.json` looks for it). */
function withCompleteness(summary: Summary, complete: boolean): Summary {
  const entries = Object.entries(summary).filter(([key]) => key !== "complete");
  const at = entries.findIndex(([key]) => key === "n") + 1;
  entries.splice(at, 0, ["complete", complete]);
  return Object.fromEntries(entries) as Summary;
}

/** Carries out a checked plan: opens (or resumes) the run store, runs every condition, writes the outputs. */
export async function executeEval(plan: EvalPlan): Promise<EvalResult> {
  const { config, task, samples, judgeRuns } = plan;
  const store = await openRunStore(plan);
  // Each condition's samples.jsonl, where it was written as the condition was evaluated (until it is moved).
  const rowsFiles = new Map<string, string>();
  // What each condition asks, hashed for its samples.jsonl's note while the calls go (begun with the background
  // work below, so that none of it comes before the first requests; a condition without it hashes at the end).
  const digests = new Map<string, Promise<string>>();
  try {
    const members = (role: string) => plan.roles.find((r) => r.name === role)?.providers ?? [];
    const units = progressUnits(samples, task.scorers, { judgeRuns, members }) * plan.conditions.length;
    const progress = new Progress(`${task.name} ${config.model}`, units, {
      enabled: config.progress ?? true,
    });
    const budget = new Budget(plan.prices, { maxCost: config.maxCost, maxTokens: config.maxTokensTotal });
    budget.addTotals(store.usageTotals());
    const roles = new Roles(plan.roles, store, plan.retry, progress, budget);
    attachBatchProviders(plan.roles.flatMap((r) => r.providers), store, (text) => progress.note(text));
    // Scorers see the whole run, not one shard, so a shard scores exactly as the whole run would.
    for (const scorer of task.scorers) scorer.prepare?.(plan.allSamples);
    const auxiliary = new Map([...plan.auxiliary].map(([name, a]) => [name, a.samples]));
    // The log export's worker loads its modules while the calls are under way (spawned once the first
    // requests are out: evaluate's background work) and writes the calls file as they are stored, so that the
    // export starts at once when the last answer is in, with the outputs, scores and events to write. git is
    // asked for the manifest's code version then too (spawning it holds this thread ~5-10 ms), and each
    // condition's inputs are hashed for its samples.jsonl's note. Each is done once however often a condition
    // asks.
    const background = () => {
      prepareExport(store, { dir: `${config.out}/log` });
      recordCodeVersion(store).catch(() => {});
      for (const { condition, applied } of plan.conditions) {
        if (!digests.has(condition.name)) {
          digests.set(condition.name, rowHeadsDigest(store.samples(), applied.samples));
        }
      }
    };
    let failures = 0;
    let stopped: string | undefined;
    const stops = new Map<string, string>();
    for (const [index, entry] of plan.conditions.entries()) {
      const { condition, applied } = entry;
      if (applied.achievedRate !== null) {
        store.logEvent("perturbation", {
          condition: condition.name,
          requested_rate: condition.perturb?.rate,
          achieved_rate: applied.achievedRate,
          not_applicable: applied.notApplicable,
        });
      }
      const outcome = await evaluate({
        samples: applied.samples,
        solver: withRobustness(conditionSolver(condition, task), plan.robustness),
        scorers: task.scorers,
        roles,
        judgeRuns,
        auxiliary,
        condition: condition.name,
        store,
        progress,
        window: evaluationWindow(roles),
        // Beside the store, like the log's calls file, until the summary's directory takes it.
        rowsAhead: `${store.path}-samples-${index}.jsonl.partial`,
        background,
      });
      if (outcome.rowsFile) rowsFiles.set(condition.name, outcome.rowsFile);
      failures += outcome.answerErrors + outcome.scoreFailures;
      if (outcome.stopped) {
        stopped = outcome.stopped;
        stops.set(condition.name, stopped);
        store.logEvent("stopped", {
          condition: condition.name,
          reason: stopped,
          not_started: outcome.notStarted,
        });
      }
    }
    // Nothing more is written to the store: its log files are exported in a worker while the conditions are
    // aggregated and the summaries, tables and figures are written.
    // A run shorter than the delay spawns no worker it would not use.
    await recordCodeVersion(store);
    startExport(store, `${config.out}/log`);
    const results = plan.conditions.map((entry) => {
      const result = conditionResult(plan, store, entry);
      result.rowsFile = rowsFiles.get(entry.condition.name);
      result.rowHeadsDigest = digests.get(entry.condition.name);
      const stop = stops.get(entry.condition.name);
      if (stop) {
        result.summary.notes.push(
          `stopped early: ${stop} (resume with --resume and a higher limit to finish)`,
        );
      }
      return result;
    });
    progress.finish();
    for (const { warnings } of results) {
      for (const warning of warnings ?? []) console.error(`warning: ${warning}`);
    }
    for (const { outcomeLines } of results) {
      for (const line of outcomeLines ?? []) console.error(`outcomes: ${line}`);
    }
    collectGarbage();
    const comparisons = await writeRunOutputs({
      out: config.out,
      task,
      store,
      results,
      buckets: plan.buckets,
      render: config.renderFigures ?? true,
    });
    return {
      summary: results[0].summary,
      conditions: results.map((r) => r.summary),
      comparisons,
      out: config.out,
      failures,
      stopped,
      complete: results.every((r) => r.summary.complete !== false),
      failureCauses: results.reduce((all, r) => {
        addCauses(all, r.failureCauses);
        return all;
      }, new Map<string, number>()),
      calls: roles.stats(),
      samples,
    };
  } finally {
    discardExport(store);
    // Nothing is left writing to the store once it is closed.
    await recordCodeVersion(store).catch(() => {});
    store.close();
    // Rows a failed run wrote ahead (moved into place otherwise).
    for (const file of rowsFiles.values()) removeQuietly(file);
  }
}
