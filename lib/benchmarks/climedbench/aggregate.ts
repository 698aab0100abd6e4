/**
 * CliMedBench aggregation: each sample's score in its scenario's metric; per scenario (the paper's Table 2),
 * question type, task family, department and difficulty; the macro average over scenarios; the extraction
 * failure rate; and the hallucination contrast BKT − FIT.
 * @module
 */
import type { RunView } from "../../core/task.ts";
import type { RunLabels } from "../../core/summary.ts";
import { answeredCount, OFFLINE_NOTE, summarize, type SummaryCore } from "../../report/summary.ts";
import { CI_METHOD, type Estimate, type SampleRow, type Summary, summaryLabels } from "../../core/summary.ts";
import { SMALL_SAMPLE } from "../../stats/interval_choice.ts";
import { independentDifference, macroMean } from "../../stats/compare.ts";
import { SCENARIO_CODES, scenarioByCode } from "./scenarios.ts";
import { type ClimedScoreDetail, OFFLINE_SIMILARITY } from "./scorer.ts";

/** Fields CliMedBench results are grouped by. */
export const GROUP_FIELDS = ["scenario", "question_type", "task", "department", "difficulty"] as const;

/** Per-sample metrics: `score` is the scenario's own metric; the others are set only where they apply. */
const METRICS = [
  "score",
  "accuracy",
  "kendall_tau",
  "rouge1",
  "similarity",
  "extraction_failure",
] as const;

/**
 * Metrics whose values are 0/1 by definition (Wilson intervals). `score` is a mean: τ-b, ROUGE-1 or similarity
 * in some scenarios, the accuracy in the choice scenarios (where its cells take the accuracy's interval,
 * {@linkcode scoreAsAccuracy}). The items have no case id, so no clusters.
 */
const PROPORTIONS = ["accuracy", "extraction_failure"] as const;

/** Returns each sample's metric values (a failed or unscored answer scores 0 and counts as not extracted). */
export function climedRows(view: RunView): SampleRow[] {
  return view.samples.map((sample) => {
    const score = (view.scores.get(sample.id) ?? []).find((s) => s.scorer === "metric" && s.valid);
    const metric = scenarioByCode(String(sample.fields.scenario)).metric;
    const detail = (score?.detail ?? {}) as ClimedScoreDetail;
    const value = score?.value ?? 0;
    const extractable = sample.fields.question_type !== "open";
    const values: Record<string, number | null> = {
      score: value,
      accuracy: null,
      kendall_tau: null,
      rouge1: null,
      similarity: null,
      extraction_failure: extractable ? (score && !detail.extraction_failed ? 0 : 1) : null,
    };
    values[metric] = value;
    return { id: sample.id, fields: sample.fields, values };
  });
}

/**
 * Gives `score` the accuracy's estimate wherever every scored item is a choice item (the cells of the choice
 * scenarios, Table 2's ACC. columns): there `score` is that accuracy, a rate, so it takes the rate's interval
 * (Wilson, Clopper–Pearson below 30) rather than the mean's, which collapses at 0% and 100%. Records those
 * methods among `score`'s group methods.
 */
function scoreAsAccuracy(core: SummaryCore): void {
  const methods = new Set<string>();
  const swap = (cell: Record<string, Estimate>) => {
    if (cell.accuracy && cell.score && cell.accuracy.n > 0 && cell.accuracy.n === cell.score.n) {
      cell.score = cell.accuracy;
      methods.add(cell.accuracy.n < SMALL_SAMPLE ? "Clopper–Pearson" : "Wilson");
    }
  };
  for (const cells of Object.values(core.groups)) Object.values(cells).forEach(swap);
  const info = core.design.intervals.score;
  const others = [...new Set([...(info.group_methods ?? []), ...methods])].filter((m) => m !== info.method);
  if (others.length) info.group_methods = others;
}

/** Returns the CliMedBench summary of a run. */
export function aggregateClimedBench(rows: readonly SampleRow[], view: RunView, labels: RunLabels): Summary {
  const seed = `${labels.benchmark}:${labels.condition}`;
  const core = summarize(rows, METRICS, GROUP_FIELDS, {
    seed,
    order: { scenario: SCENARIO_CODES },
    proportions: PROPORTIONS,
  });
  scoreAsAccuracy(core);
  const byScenario = (code: string) =>
    rows.filter((r) => r.fields.scenario === code).map((r) => r.values.score as number);
  const macro = macroMean(SCENARIO_CODES.map(byScenario), `${seed}:macro`);
  const gap = independentDifference(byScenario("FIT"), byScenario("BKT"), `${seed}:bkt-fit`);
  const answered = answeredCount(view);
  const details = [...view.scores.values()].flat().map((s) => s.detail as ClimedScoreDetail | null);
  const similarityMethods = [...new Set(details.map((d) => d?.similarity_method).filter(Boolean))];
  const notes = [
    "score = the scenario's metric per item: accuracy (choice), Kendall's tau-b (sequencing), ROUGE-1 F1 (KE), answer-reference cosine similarity (WTD)",
    "macro_score = unweighted mean of the scenario scores present (the paper's average), CI by bootstrap within scenarios",
    "extraction_failure = share of choice/sequencing answers from which no answer could be extracted (scored as wrong / tau 0)",
    "bkt_minus_fit = BKT accuracy - FIT accuracy (independent samples, two-sample bootstrap CI)",
  ];
  for (const method of similarityMethods) notes.push(`WTD similarity: ${method}`);
  if (similarityMethods.includes(OFFLINE_SIMILARITY)) {
    notes.push(
      "OFFLINE similarity fallback: pass --embed-model for the embeddings similarity the paper uses",
    );
  }
  if (labels.offline) notes.push(OFFLINE_NOTE);
  return {
    ...summaryLabels(labels),
    n: core.n,
    metrics: { ...core.metrics, macro_score: macro, bkt_minus_fit: gap },
    groups: core.groups,
    counts: {
      samples: view.samples.length,
      answered,
      answer_errors: view.samples.length - answered,
      extraction_failures: rows.filter((r) => r.values.extraction_failure === 1).length,
      scenarios: new Set(rows.map((r) => r.fields.scenario)).size,
    },
    ci_method: CI_METHOD,
    ...core.design,
    notes,
  };
}
