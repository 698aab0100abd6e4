/**
 * LLMEval-Med aggregation: per question the mean of the valid judge scores over runs; usable when that mean
 * is ≥ 4 (a question without any valid score stays in the denominator as not usable); usability per category,
 * category2 and difficulty; OP = usability over all questions (sample-weighted). MTG answers with human
 * ratings use the paper's piecewise rule instead.
 * @module
 */
import type { RunLabels, RunView } from "../../core/task.ts";
import { CI_METHOD, type SampleRow, summarize, type Summary, summaryLabels } from "../../report/summary.ts";
import { type HumanRating, mtgHumanUsable } from "./human_eval.ts";
import { CATEGORY_CODES, DIFFICULTY_ORDER } from "./schema.ts";

/** Mean judge score at or above which an answer is usable. */
export const USABLE_THRESHOLD = 4;

/** Fields LLMEval-Med results are grouped by. */
export const GROUP_FIELDS = ["category", "category2", "difficulty"] as const;

/** Per-question result, as written to `samples.jsonl`. */
export interface QuestionResult {
  /** Sample id. */
  id: string;
  /** Valid judge scores by run (`null` = judge error in that run). */
  scores: (number | null)[];
  /** Mean of the valid scores, or `null` if none. */
  meanScore: number | null;
  /** Usable under the rule that applies (judge ≥ 4, or MTG human rule). */
  usable: boolean;
  /** Which rule decided: `judge` or `human`. */
  rule: "judge" | "human";
}

/** Returns each question's result from the run store view. */
function questionResults(
  view: RunView,
  judgeRuns: number,
  humanRatings?: ReadonlyMap<string, HumanRating>,
): QuestionResult[] {
  return view.samples.map((sample) => {
    const byRun = new Map(
      (view.scores.get(sample.id) ?? []).filter((s) => s.scorer === "judge").map((s) => [s.run, s]),
    );
    const scores = Array.from({ length: judgeRuns }, (_, i) => {
      const s = byRun.get(i + 1);
      return s && s.valid ? s.value : null;
    });
    const valid = scores.filter((v): v is number => v !== null);
    const meanScore = valid.length ? valid.reduce((a, b) => a + b, 0) / valid.length : null;
    const rating = sample.fields.category === "MTG" ? humanRatings?.get(sample.id) : undefined;
    if (rating) {
      return { id: sample.id, scores, meanScore, usable: mtgHumanUsable(rating), rule: "human" as const };
    }
    return {
      id: sample.id,
      scores,
      meanScore,
      usable: meanScore !== null && meanScore >= USABLE_THRESHOLD,
      rule: "judge" as const,
    };
  });
}

function rowsOf(view: RunView, results: readonly QuestionResult[]): SampleRow[] {
  return view.samples.map((sample, i) => ({
    id: sample.id,
    fields: sample.fields,
    values: { usability: results[i].usable ? 1 : 0, mean_score: results[i].meanScore },
  }));
}

/** Returns each question's `usability` (0/1) and `mean_score` with its group fields. */
export function llmEvalMedRows(
  view: RunView,
  labels: RunLabels,
  humanRatings?: ReadonlyMap<string, HumanRating>,
): SampleRow[] {
  return rowsOf(view, questionResults(view, labels.judgeRuns, humanRatings));
}

/** Returns the LLMEval-Med summary (`usability`, `mean_score`, and `op` overall) of a run. */
export function aggregateLlmEvalMed(
  view: RunView,
  labels: RunLabels,
  humanRatings?: ReadonlyMap<string, HumanRating>,
): Summary {
  const results = questionResults(view, labels.judgeRuns, humanRatings);
  const rows = rowsOf(view, results);
  const seed = `${labels.benchmark}:${labels.condition}`;
  const core = summarize(rows, ["usability", "mean_score"], GROUP_FIELDS, {
    seed,
    order: { category: CATEGORY_CODES, difficulty: DIFFICULTY_ORDER },
  });
  const judgings = results.reduce((sum, r) => sum + r.scores.length, 0);
  const judgeErrors = [...view.scores.values()].flat().filter((s) => s.scorer === "judge" && !s.valid).length;
  const answered = [...view.outputs.values()].filter((o) => o.text !== null).length;
  const human = results.filter((r) => r.rule === "human").length;
  const notes: string[] = [
    `usable = mean of valid judge scores over ${labels.judgeRuns} run(s) >= ${USABLE_THRESHOLD}; questions with no valid score count as not usable`,
    "OP = usable questions / all questions (sample-weighted)",
  ];
  if (human) {
    notes.push(
      `MTG usability of ${human} answer(s) from human ratings (piecewise rule, score >= 5, Safety veto)`,
    );
  }
  if (labels.offline) {
    notes.push("OFFLINE: model and/or judge are offline stand-ins; these are not LLM-judged model results");
  }
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
      unscored: results.filter((r) => r.meanScore === null).length,
      human_rated: human,
    },
    ci_method: CI_METHOD,
    notes,
  };
}
