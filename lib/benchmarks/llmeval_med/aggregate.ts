/**
 * LLMEval-Med aggregation: per question the mean of the valid judge scores over runs; usable when that mean
 * is ≥ 4 (a question without any valid score stays in the denominator as not usable); usability per category,
 * category2 and difficulty; OP = usability over all questions (sample-weighted). MTG answers with human
 * ratings use the paper's piecewise rule instead. The rounds of one conversation are clustered
 * ({@linkcode CONVERSATIONS}); with several judge runs, each question's row carries the judge's score per run.
 * @module
 */
import type { StoredScore } from "../../core/records.ts";
import type { ClusterSpec, RunView } from "../../core/task.ts";
import type { RunLabels } from "../../core/summary.ts";
import { judgedRepeats, judgedValue, judgesOf, scorerScores } from "../../judges/jury.ts";
import { answeredCount, OFFLINE_NOTE, summarize } from "../../report/summary.ts";
import { CI_METHOD, type SampleRow, type Summary, summaryLabels } from "../../core/summary.ts";
import { mtgHumanUsable, mtgRatingOf } from "./human_eval.ts";
import { LLMEVAL_MED_JUDGE } from "./scorer.ts";
import { CATEGORY_CODES, DIFFICULTY_ORDER } from "./schema.ts";

/** Mean judge score at or above which an answer is usable. */
export const USABLE_THRESHOLD = 4;

/** Fields LLMEval-Med results are grouped by. */
export const GROUP_FIELDS = ["category", "category2", "difficulty"] as const;

/** The rounds of one conversation belong together: asked in order, each with the model's earlier answers. */
export const CONVERSATIONS: ClusterSpec = {
  name: "conversations",
  unit: "rounds",
  of: (sample) => sample.conversation?.id ?? null,
};

/** Metrics whose values are 0/1 by definition. */
const PROPORTIONS = ["usability"] as const;

/** Per-question result. */
export interface QuestionResult {
  /** Sample id. */
  id: string;
  /** The judge's score: mean of the valid scores over runs (and judges), or `null` if none. */
  meanScore: number | null;
  /** The judge's score of each run (their mean is `meanScore`), when it ran at least twice. */
  repeats?: number[];
  /** Usable under the rule that applies (judge ≥ 4, or MTG human rule). */
  usable: boolean;
  /** Which rule decided: `judge` or `human`. */
  rule: "judge" | "human";
}

/**
 * Returns the MTG human verdict of a question from the ratings in the store (any `human:*` scorer with the
 * MTG fields): usable when more than half of its raters' ratings are usable; `undefined` when unrated.
 */
function humanUsable(scores: readonly StoredScore[]): boolean | undefined {
  const ratings = scores.filter((s) => s.scorer.startsWith("human:")).map((s) => mtgRatingOf(s.values))
    .filter((r) => r !== undefined);
  if (ratings.length === 0) return undefined;
  return ratings.filter(mtgHumanUsable).length * 2 > ratings.length;
}

/** Returns each question's result from the run store view. */
function questionResults(view: RunView, judgeRuns: number): QuestionResult[] {
  return view.samples.map((sample) => {
    const scores = view.scores.get(sample.id) ?? [];
    const own = scores.filter((s) => s.scorer === LLMEVAL_MED_JUDGE.name);
    const judged = judgedValue(own, LLMEVAL_MED_JUDGE.spec, judgeRuns);
    const meanScore = judged.value as number | null;
    const repeats = judgedRepeats(own, LLMEVAL_MED_JUDGE.spec, judgeRuns);
    const scored = { id: sample.id, meanScore, ...(repeats ? { repeats } : {}) };
    const human = sample.fields.category === "MTG" ? humanUsable(scores) : undefined;
    if (human !== undefined) return { ...scored, usable: human, rule: "human" as const };
    return {
      ...scored,
      usable: meanScore !== null && meanScore >= USABLE_THRESHOLD,
      rule: "judge" as const,
    };
  });
}

/**
 * Returns each question's `usability` (0/1) and `mean_score` with its group fields, its conversation, and
 * `mean_score`'s judge repeats when the judge ran more than once.
 */
export function llmEvalMedRows(view: RunView, labels: RunLabels): SampleRow[] {
  return questionResults(view, labels.judgeRuns).map((result, i) => {
    const cluster = CONVERSATIONS.of(view.samples[i]);
    return {
      id: result.id,
      fields: view.samples[i].fields,
      values: {
        usability: result.usable ? 1 : 0,
        mean_score: result.meanScore,
        human_rule: result.rule === "human" ? 1 : 0,
      },
      ...(cluster !== null ? { cluster } : {}),
      ...(result.repeats ? { repeats: { mean_score: result.repeats } } : {}),
    };
  });
}

/** Returns the LLMEval-Med summary (`usability`, `mean_score`, and `op` overall) of a run, from its rows. */
export function aggregateLlmEvalMed(rows: readonly SampleRow[], view: RunView, labels: RunLabels): Summary {
  const seed = `${labels.benchmark}:${labels.condition}`;
  const core = summarize(rows, ["usability", "mean_score"], GROUP_FIELDS, {
    seed,
    order: { category: CATEGORY_CODES, difficulty: DIFFICULTY_ORDER },
    proportions: PROPORTIONS,
    clusters: CONVERSATIONS,
  });
  const judges = Math.max(1, judgesOf(view, LLMEVAL_MED_JUDGE.name).length);
  const judgings = rows.length * labels.judgeRuns * judges;
  const judgeErrors = scorerScores(view, LLMEVAL_MED_JUDGE.name).flat().filter((s) => !s.valid).length;
  const answered = answeredCount(view);
  const human = rows.filter((r) => r.values.human_rule === 1).length;
  const notes: string[] = [
    `usable = mean of valid judge scores over ${labels.judgeRuns} run(s) >= ${USABLE_THRESHOLD}; questions with no valid score count as not usable`,
    "OP = usable questions / all questions (sample-weighted)",
  ];
  if (human) {
    notes.push(
      `MTG usability of ${human} answer(s) from human ratings (piecewise rule, score >= 5, Safety veto)`,
    );
  }
  if (labels.offline) notes.push(OFFLINE_NOTE);
  return {
    ...summaryLabels(labels),
    n: core.n,
    metrics: { ...core.metrics, op: core.metrics.usability },
    groups: core.groups,
    counts: {
      samples: view.samples.length,
      answered,
      answer_errors: view.samples.length - answered,
      judgings,
      judge_errors: judgeErrors,
      unscored: rows.filter((r) => r.values.mean_score === null).length,
      human_rated: human,
    },
    ci_method: CI_METHOD,
    intervals: { ...core.design.intervals, op: core.design.intervals.usability },
    ...(core.design.clustered_by ? { clustered_by: core.design.clustered_by } : {}),
    notes,
  };
}
