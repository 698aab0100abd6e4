/**
 * A comparison as files' contents: `comparison.md` (the entries, per metric the models and pairwise tables
 * overall and per group field, and a methods footnote naming every method), `comparison.csv` (one row per
 * pairwise comparison), `comparison_models.csv` (one row per model and scope) and `comparison.json`.
 * @module
 */
import { csvText } from "../core/csv.ts";
import type { GroupDisplay } from "../core/report_spec.ts";
import { toMarkdown } from "../report/tables.ts";
import { RESAMPLES } from "../stats/bootstrap.ts";
import type { Comparison, MetricResult, ScopeResult } from "./analyze.ts";
import { entriesTable, metricHeading, metricTables } from "./tables.ts";

/** Every method a comparison uses, one line each (the closing footnote of `comparison.md`). */
export function methodLines(comparison: Comparison): string[] {
  const scopes = comparison.metrics.flatMap(allScopes);
  const intervals = [...new Set(scopes.flatMap((s) => s.models.map((m) => m.interval)))];
  const differences = [...new Set(scopes.flatMap((s) => s.pairs.map((p) => p.interval)))];
  const binary = comparison.metrics.some((m) => m.binary);
  const graded = comparison.metrics.some((m) => !m.binary);
  return [
    `Items: samples matched by id across the runs (${comparison.items} in every run); a metric is compared on ` +
    "the items with a value in every run. Every comparison is paired: the same items under both models.",
    `Means: 95% intervals by ${intervals.join("; ")} (lib/stats/interval_choice.ts, as the run summaries).`,
    `Differences B − A: the mean of the per-item differences with the 95% interval of ${
      differences.join("; ")
    } applied to those differences (a paired bootstrap, ${RESAMPLES} resamples, seeded).`,
    ...(binary
      ? [
        "0/1 metrics: McNemar's exact test (two-sided binomial test of b vs c, the pairs right for only one of the " +
        "two); effect size the conditional odds ratio c / b with its exact interval (lib/stats/paired_tests.ts).",
      ]
      : []),
    ...(graded
      ? [
        "Graded metrics: Wilcoxon's signed-rank test (zero differences dropped; exact up to 25 untied " +
        "differences, else the normal approximation with tie and continuity corrections, as R's wilcox.test); " +
        "effect size the matched-pairs rank-biserial r (Kerby 2014); Cohen's d_z in the CSV.",
      ]
      : []),
    "Multiplicity: within each table (all items; or all groups of one field), Holm's step-down adjusted p " +
    "(p_holm, family-wise error) and Benjamini–Hochberg's step-up adjusted p (p_bh, false discovery rate), as " +
    "R's p.adjust (lib/stats/multiplicity.ts).",
    `Ranks: each model's rank by mean with a 95% interval from ${RESAMPLES} bootstrap resamples of the items, ` +
    'the same resample for every model; ties count both ways (lib/stats/rank_intervals.ts). "ranks 1–2 of 3": ' +
    "the data do not order this model against another within those ranks.",
    `Letters: compact letter display (Piepho 2004, lib/stats/letters.ts) of the pairs with Holm-adjusted p ≤ ${comparison.alpha}: ` +
    'two models share a letter exactly when they are not significantly different; "a" goes to the best mean.',
    "Rounds of one conversation are resampled together where the intervals say cluster bootstrap; the tests " +
    "and rank intervals treat items as independent.",
  ];
}

/** Returns the scopes of a metric: all items, then every group of every field. */
function allScopes(result: MetricResult): ScopeResult[] {
  return [result.overall, ...result.fields.flatMap((f) => f.scopes)];
}

/** Returns `comparison.md`; `display` names the groups as the benchmark's tables do. */
export function comparisonMarkdown(comparison: Comparison, display?: GroupDisplay): string {
  const parts = [
    `# Model comparison: ${comparison.title}`,
    "",
    toMarkdown(entriesTable(comparison)),
  ];
  if (comparison.skipped.length) {
    parts.push(`Not compared (no item has a value in every run): ${comparison.skipped.join(", ")}.`, "");
  }
  for (const result of comparison.metrics) {
    parts.push(`## ${metricHeading(result.metric)}`, "");
    for (const table of Object.values(metricTables(comparison, result, display))) {
      parts.push(toMarkdown(table));
    }
  }
  parts.push("## Methods", "", ...methodLines(comparison).map((line) => `- ${line}`), "");
  return parts.join("\n");
}

/** Returns a number for CSV: `Infinity` spelled out, `null` as empty. */
function csvNumber(value: number | null | undefined): string | number | null {
  if (value === undefined || value === null) return null;
  return value === Infinity ? "Infinity" : value;
}

/** Returns `comparison.csv`: one row per pair of every scope of every metric. */
export function pairsCsv(comparison: Comparison): string {
  const header = [
    "metric",
    "field",
    "group",
    "a",
    "b",
    "n",
    "mean_a",
    "mean_b",
    "difference",
    "ci_low",
    "ci_high",
    "interval",
    "test",
    "statistic",
    "p",
    "p_holm",
    "p_bh",
    "effect",
    "effect_value",
    "effect_ci_low",
    "effect_ci_high",
    "cohens_dz",
    "letters_a",
    "letters_b",
  ];
  const rows = comparison.metrics.flatMap((result) =>
    allScopes(result).flatMap((scope) => {
      const letters = new Map(scope.models.map((m) => [m.label, m.letters]));
      return scope.pairs.map((p) => [
        result.metric.name,
        scope.field,
        scope.group,
        p.a,
        p.b,
        p.n,
        p.meanA,
        p.meanB,
        p.difference,
        csvNumber(p.ci95?.[0]),
        csvNumber(p.ci95?.[1]),
        p.interval,
        p.test,
        p.statistic,
        p.p,
        p.pHolm,
        p.pBh,
        p.effect.name,
        csvNumber(p.effect.value),
        csvNumber(p.effect.ci95?.[0]),
        csvNumber(p.effect.ci95?.[1]),
        csvNumber(p.cohensDz),
        letters.get(p.a) ?? "",
        letters.get(p.b) ?? "",
      ]);
    })
  );
  return csvText([header, ...rows]);
}

/** Returns `comparison_models.csv`: one row per model of every scope of every metric. */
export function modelsCsv(comparison: Comparison): string {
  const header = [
    "metric",
    "field",
    "group",
    "model",
    "n",
    "mean",
    "ci_low",
    "ci_high",
    "interval",
    "rank",
    "rank_low",
    "rank_high",
    "of",
    "letters",
  ];
  const rows = comparison.metrics.flatMap((result) =>
    allScopes(result).flatMap((scope) =>
      scope.models.map((m) => [
        result.metric.name,
        scope.field,
        scope.group,
        m.label,
        m.estimate.n,
        csvNumber(m.estimate.value),
        csvNumber(m.estimate.ci95?.[0]),
        csvNumber(m.estimate.ci95?.[1]),
        m.interval,
        m.rank.rank,
        m.rank.ranks[0],
        m.rank.ranks[1],
        m.rank.of,
        m.letters,
      ])
    )
  );
  return csvText([header, ...rows]);
}

/** Returns `comparison.json`: the whole comparison (an infinite odds ratio as the string `Infinity`). */
export function comparisonJson(comparison: Comparison): string {
  const replacer = (_key: string, value: unknown) => (value === Infinity ? "Infinity" : value);
  return `${JSON.stringify({ ...comparison, methods: methodLines(comparison) }, replacer, 2)}\n`;
}
