/**
 * A comparison as tables: per metric, the models (mean with CI, rank interval, letters) and the pairwise
 * differences (n, CI, test, p, Holm and BH adjusted p, effect size), overall and per group field, each with
 * footnotes naming the methods that produced it.
 * @module
 */
import type { Cell, GroupDisplay, MetricDisplay, Table } from "../core/report_spec.ts";
import { formatEstimate, groupLabel } from "../report/tables.ts";
import { RESAMPLES } from "../stats/bootstrap.ts";
import type { Comparison, MetricResult, ScopeResult } from "./analyze.ts";
import type { EffectSize, PairResult } from "./pairwise.ts";

/** Returns a value in the metric's display units (percent for rates) with its usual decimals. */
export function formatValue(value: number, metric: MetricDisplay): string {
  return metric.percent ? (value * 100).toFixed(1) : value.toFixed(2);
}

/** Returns a p-value as printed: 3 decimals, or 2 significant digits in exponent form below 0.001. */
export function formatP(p: number): string {
  return p >= 0.001 ? p.toFixed(3) : p.toExponential(1);
}

/** Returns an effect size as printed: `OR 3.00 [1.21, 8.09]`, `OR ∞ [2.1, ∞]`, `r = 0.42`, or `–`. */
export function formatEffect(effect: EffectSize): string {
  const f = (v: number) => (v === Infinity ? "∞" : v.toFixed(2));
  if (effect.value === null) return "–";
  if (effect.name === "odds ratio") {
    return `OR ${f(effect.value)}${effect.ci95 ? ` [${f(effect.ci95[0])}, ${f(effect.ci95[1])}]` : ""}`;
  }
  return `r = ${effect.value.toFixed(2)}`;
}

/** Returns the difference B − A with its interval, in the metric's display units. */
function formatDifference(pair: PairResult, metric: MetricDisplay): string {
  return formatEstimate(
    { value: pair.difference, ci95: pair.ci95, n: pair.n },
    metric.percent,
    metric.percent ? 1 : 2,
  );
}

/** Returns the header of a metric: its label, `(%)` for rates. */
export function metricHeading(metric: MetricDisplay): string {
  return `${metric.label}${metric.percent ? " (%)" : ""}`;
}

/** Returns the distinct texts of `values`, joined for a footnote. */
function distinct(values: readonly string[]): string {
  return [...new Set(values)].join("; ");
}

/** The footnotes of a models table. */
function modelNotes(result: MetricResult, scopes: readonly ScopeResult[], comparisons: number): string[] {
  return [
    `mean [95% CI]: ${
      distinct(scopes.flatMap((s) => s.models.map((m) => m.interval)))
    } (as the run summaries ` +
    "choose intervals), over the items every model has a value for",
    `rank: ${result.higherIsBetter ? "highest" : "lowest"} mean first; its 95% interval from ${RESAMPLES} ` +
    "bootstrap resamples of the items, drawn once for all models so they stay paired (ties count both ways)",
    `letters: models sharing a letter are not significantly different (paired ${
      result.binary ? "McNemar" : "Wilcoxon"
    } test, Holm-adjusted p > 0.05 over the table's ${comparisons} pairwise comparison(s)); "a" is the best mean`,
  ];
}

/** The footnotes of a pairs table. */
function pairNotes(result: MetricResult, scopes: readonly ScopeResult[]): string[] {
  const pairs = scopes.flatMap((s) => s.pairs);
  const exactness = distinct(pairs.map((p) => p.pMethod ?? "").filter(Boolean));
  return [
    `B − A: mean of the per-item differences; 95% CI: ${
      distinct(pairs.map((p) => p.interval))
    } of the differences (paired: items resampled with both values)`,
    result.binary
      ? "test: McNemar's exact test (b = right for A only, c = right for B only; binomial, two-sided); effect: " +
        "conditional odds ratio c / b with its exact 95% interval (Clopper–Pearson of c out of b + c)"
      : `test: Wilcoxon signed-rank (zero differences dropped; ${exactness}); effect: matched-pairs ` +
        "rank-biserial r = (W+ − W−) / (W+ + W−), from −1 to 1, positive when B is higher",
    `p_holm: Holm's step-down adjustment over the table's ${pairs.length} comparison(s) (family-wise error); ` +
    "p_bh: Benjamini–Hochberg's step-up adjustment (false discovery rate)",
  ];
}

/** Returns the name a table shows for a scope's group (the benchmark's label for its key). */
function groupName(scope: ScopeResult, display: GroupDisplay): string {
  return groupLabel(display, scope.field!, scope.group!);
}

/** Returns the rows of the models of a scope (a group column first when `group`). */
function modelRows(scope: ScopeResult, metric: MetricDisplay, group: GroupDisplay | null): Cell[][] {
  return scope.models.map((m) => [
    ...(group ? [groupName(scope, group)] : []),
    m.label,
    m.estimate.n,
    formatEstimate(m.estimate, metric.percent, metric.percent ? 1 : 2),
    m.rank.label,
    m.letters,
  ]);
}

/** Returns the rows of the pairs of a scope (a group column first when `group`). */
function pairRows(scope: ScopeResult, metric: MetricDisplay, group: GroupDisplay | null): Cell[][] {
  return scope.pairs.map((p) => [
    ...(group ? [groupName(scope, group)] : []),
    p.a,
    p.b,
    p.n,
    formatValue(p.meanA, metric),
    formatValue(p.meanB, metric),
    formatDifference(p, metric),
    p.test,
    p.statistic,
    formatP(p.p),
    formatP(p.pHolm),
    formatP(p.pBh),
    formatEffect(p.effect),
  ]);
}

const MODEL_COLUMNS = ["model", "n", "mean [95% CI]", "rank (95% interval)", "letters"];
const PAIR_COLUMNS = [
  "A",
  "B",
  "n",
  "mean A",
  "mean B",
  "B − A [95% CI]",
  "test",
  "statistic",
  "p",
  "p_holm",
  "p_bh",
  "effect size",
];

/** Returns the models table and the pairs table of one metric's scopes (all items, or one group field). */
function scopeTables(
  title: string,
  result: MetricResult,
  scopes: readonly ScopeResult[],
  field: string | null,
  display: GroupDisplay = {},
): { models: Table; pairs: Table } {
  const grouped = field !== null;
  const group = grouped ? display : null;
  const where = grouped ? `by ${field}` : `all ${scopes[0].n} items`;
  const comparisons = scopes.reduce((sum, s) => sum + s.pairs.length, 0);
  return {
    models: {
      title: `${title}: ${metricHeading(result.metric)}, ${where} — models`,
      columns: [...(grouped ? [field] : []), ...MODEL_COLUMNS],
      rows: scopes.flatMap((s) => modelRows(s, result.metric, group)),
      notes: modelNotes(result, scopes, comparisons),
    },
    pairs: {
      title: `${title}: ${metricHeading(result.metric)}, ${where} — pairwise differences B − A`,
      columns: [...(grouped ? [field] : []), ...PAIR_COLUMNS],
      rows: scopes.flatMap((s) => pairRows(s, result.metric, group)),
      notes: pairNotes(result, scopes),
    },
  };
}

/**
 * One metric's tables, overall then per group field, by name (`<metric>_models`, `<metric>_<field>_pairs`, …);
 * `display` names the groups as the benchmark's tables do.
 */
export function metricTables(
  comparison: Comparison,
  result: MetricResult,
  display?: GroupDisplay,
): Record<string, Table> {
  const tables: Record<string, Table> = {};
  const name = result.metric.name;
  const overall = scopeTables(comparison.title, result, [result.overall], null);
  tables[`${name}_models`] = overall.models;
  tables[`${name}_pairs`] = overall.pairs;
  for (const { field, scopes } of result.fields) {
    const byField = scopeTables(comparison.title, result, scopes, field, display);
    tables[`${name}_${field}_models`] = byField.models;
    tables[`${name}_${field}_pairs`] = byField.pairs;
  }
  return tables;
}

/** Returns the table naming the entries: label, model, condition, run directory and its samples. */
export function entriesTable(comparison: Comparison): Table {
  return {
    title: `${comparison.title}: what is compared`,
    columns: ["label", "model", "condition", "run", "samples"],
    rows: comparison.entries.map((e) => [
      e.label,
      `${e.model}${e.offline ? " [offline]" : ""}`,
      e.condition,
      e.run,
      e.samples,
    ]),
    notes: [
      `${comparison.items} samples are in every run (matched by sample id); each metric is compared on those ` +
      "with a value in every run",
    ],
  };
}
