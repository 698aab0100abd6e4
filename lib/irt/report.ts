/**
 * Tables and figures of the IRT commands: the calibrated items, test information with its standard error,
 * a CAT trace, and the rapid assessment set beside the full benchmark (Figure 11's kind).
 * @module
 */
import { csvText } from "../core/csv.ts";
import type { FigureSpec, Table } from "../core/report_spec.ts";
import { ciErrorBars, paperLayout } from "../report/figures.ts";
import { formatEstimate } from "../report/tables.ts";
import type { CatPerson } from "./cat.ts";
import type { FitFile } from "./fit_file.ts";
import { itemInformation, type ItemParams, testInformation } from "./model.ts";
import type { RapidAssessment } from "./subset.ts";

const THETAS = Array.from({ length: 81 }, (_, i) => -4 + i * 0.1);
const fixed = (x: number | null | undefined, digits = 3) =>
  x === null || x === undefined || !Number.isFinite(x) ? "" : x.toFixed(digits);
const withSe = (x: number, se: number | null | undefined) => `${fixed(x)}${se ? ` (${fixed(se)})` : ""}`;

/** Whether the fit used a prior on a or c (a MAP rather than an ML fit). */
function usesPriors(fit: FitFile): boolean {
  const priors = fit.priors as { slope?: unknown; guessing?: unknown } | undefined;
  return Boolean(priors?.slope || priors?.guessing);
}

/** A number rounded for a table cell (`null` when missing or not finite). */
const cell = (x: number | null | undefined, digits = 3) =>
  x === null || x === undefined || !Number.isFinite(x) ? null : Number(x.toFixed(digits));

/** The flag of a left-out item: why it has no estimate. */
const excludedFlag = (reason: string) => `left out of the calibration: ${reason}`;

/**
 * The calibrated items as a table, numbers in their own columns (a, SE(a), b, SE(b), [c, SE(c)]), then n,
 * proportion correct, fit and the flag of an unreliable estimate; items left out of the calibration last, with
 * why. Written as `item_parameters.{md,csv,tex}` beside the full numeric `items.csv`.
 */
export function itemsTable(fit: FitFile): Table {
  const guessing = fit.model === "3pl";
  const excluded = fit.excluded_items ?? [];
  return {
    title: `${fit.model.toUpperCase()} item parameters (${fit.n_persons} examinees, ${fit.n_items} items)`,
    columns: [
      "item",
      "a",
      "SE(a)",
      "b",
      "SE(b)",
      ...(guessing ? ["c", "SE(c)"] : []),
      "n",
      "p correct",
      "infit",
      "outfit",
      "Q1 p",
      "flag",
    ],
    rows: [
      ...fit.items.map((it) => [
        it.item,
        cell(it.a),
        cell(it.se_a),
        cell(it.b),
        cell(it.se_b),
        ...(guessing ? [cell(it.c), cell(it.se_c)] : []),
        it.n ?? null,
        cell(it.p_correct),
        cell(it.infit, 2),
        cell(it.outfit, 2),
        cell(it.q1_p),
        it.flag ?? "",
      ]),
      ...excluded.map((x) => [
        x.item,
        ...Array.from({ length: guessing ? 6 : 4 }, () => null),
        x.n,
        cell(x.n ? x.right / x.n : null),
        null,
        null,
        null,
        excludedFlag(x.reason),
      ]),
    ],
    notes: [
      `marginal ${usesPriors(fit) ? "MAP" : "ML"} by Bock–Aitkin EM` +
      `${fit.acceleration === "squarem" ? " (SQUAREM-accelerated)" : ""}, ` +
      `${fit.quadrature_nodes ?? 61} quadrature nodes; logLik ${fit.logLik.toFixed(3)}; ` +
      `${
        fit.converged ? "converged" : `NOT converged (stopped by ${fit.stopped_by ?? "the cycle cap"})`
      } after ` +
      `${fit.iterations} cycles${fit.e_steps === undefined ? "" : ` (${fit.e_steps} E-steps)`}`,
      `standard errors: ${fit.se_method ?? "louis"} observed information; b by the delta method` +
      (guessing ? "" : "; c = 0 (fixed)"),
      "infit/outfit: mean squares at the EAP abilities (1 under the model; biased low when tests are short); " +
      "Q1: Yen's χ² over ten ability groups, only when the median examinee answered >= 20 items",
      ...(fit.warnings ?? []),
    ],
  };
}

/**
 * `items.csv`: every item with its numbers in their own columns (item, a, se_a, b, se_b, c, se_c, d, se_d, n,
 * p_correct, infit, outfit, q1, q1_df, q1_p, flag), full precision; items left out of the calibration with empty
 * parameters and the reason as their flag.
 */
export function itemsCsv(fit: FitFile): string {
  const header = [
    "item",
    "a",
    "se_a",
    "b",
    "se_b",
    "c",
    "se_c",
    "d",
    "se_d",
    "n",
    "p_correct",
    "infit",
    "outfit",
    "q1",
    "q1_df",
    "q1_p",
    "flag",
  ];
  return csvText([
    header,
    ...fit.items.map((i) => [
      i.item,
      i.a,
      i.se_a,
      i.b,
      i.se_b,
      i.c,
      i.se_c,
      i.d ?? null,
      i.se_d ?? null,
      i.n ?? null,
      i.p_correct ?? null,
      i.infit ?? null,
      i.outfit ?? null,
      i.q1 ?? null,
      i.q1_df ?? null,
      i.q1_p ?? null,
      i.flag ?? null,
    ]),
    ...(fit.excluded_items ?? []).map((x) => [
      x.item,
      ...Array.from({ length: 8 }, () => null),
      x.n,
      x.n ? Number((x.right / x.n).toFixed(4)) : null,
      null,
      null,
      null,
      null,
      null,
      excludedFlag(x.reason),
    ]),
  ]);
}

/** Test information and its standard error 1/√I over θ ∈ [−4, 4], with the five most informative items. */
export function informationFigure(
  items: readonly (ItemParams & { item: string })[],
  title: string,
): FigureSpec {
  const info = THETAS.map((t) => testInformation(items, t));
  // Each item's peak information over the grid, computed once (not once per comparison of the sort).
  const peaks = new Map(
    items.map((item) => [item, Math.max(...THETAS.map((t) => itemInformation(item, t)))]),
  );
  const top = [...items].sort((x, y) => peaks.get(y)! - peaks.get(x)!).slice(0, 5);
  return {
    data: [
      { type: "scatter", mode: "lines", name: "test information", x: THETAS, y: info, line: { width: 3 } },
      {
        type: "scatter",
        mode: "lines",
        name: "standard error",
        x: THETAS,
        y: info.map((i) => 1 / Math.sqrt(i)),
        yaxis: "y2",
        line: { dash: "dash" },
      },
      ...top.map((item) => ({
        type: "scatter",
        mode: "lines",
        name: `item ${item.item}`,
        x: THETAS,
        y: THETAS.map((t) => itemInformation(item, t)),
        line: { width: 1 },
      })),
    ],
    layout: paperLayout({
      title: { text: title },
      xaxis: { title: { text: "ability θ" } },
      yaxis: { title: { text: "information" }, rangemode: "tozero" },
      yaxis2: { title: { text: "SE(θ)" }, overlaying: "y", side: "right", rangemode: "tozero" },
      legend: { orientation: "h", y: -0.25 },
      margin: { l: 70, r: 70, t: 50, b: 100 },
    }),
    width: 760,
    height: 460,
  };
}

/** One examinee's adaptive test: θ ± 1.96 SE after each item, right and wrong answers marked. */
export function catTraceFigure(test: CatPerson): FigureSpec {
  const x = test.items.map((_, i) => i + 1);
  return {
    data: [
      {
        type: "scatter",
        mode: "lines+markers",
        name: "θ estimate",
        x,
        y: test.items.map((s) => s.theta),
        error_y: { type: "data", array: test.items.map((s) => 1.96 * s.se), visible: true },
        marker: {
          size: 9,
          symbol: test.items.map((s) => (s.response ? "circle" : "x")),
        },
        text: test.items.map((s) => `${s.item}: ${s.response ? "right" : "wrong"}`),
      },
    ],
    layout: paperLayout({
      title: { text: `CAT trace: ${test.person} (${test.items_used} items, stop: ${test.stop})` },
      xaxis: { title: { text: "items administered" }, dtick: Math.max(1, Math.ceil(x.length / 15)) },
      yaxis: { title: { text: "θ (95% interval)" } },
      showlegend: false,
    }),
  };
}

/** Figure 11's kind: each examinee's full-benchmark accuracy beside the accuracy predicted from the subset. */
export function rapidFigure(report: RapidAssessment): FigureSpec {
  const order = [...report.persons].sort((a, b) => (b.full.value ?? 0) - (a.full.value ?? 0));
  const names = order.map((p) => p.person);
  return {
    data: [
      {
        type: "bar",
        name: `full benchmark (${report.fullItems} items)`,
        x: names,
        y: order.map((p) => (p.full.value ?? 0) * 100),
        error_y: { ...ciErrorBars(order.map((p) => p.full), 100), visible: true },
      },
      {
        type: "bar",
        name: `rapid assessment (${report.size} items): predicted from θ`,
        x: names,
        y: order.map((p) => p.predicted * 100),
      },
    ],
    layout: paperLayout({
      title: {
        text: `Rapid assessment vs full benchmark: Kendall τ ${formatEstimate(report.kendall, false, 2)}, ` +
          `Spearman ρ ${formatEstimate(report.spearman, false, 2)}`,
        font: { size: 14 },
      },
      barmode: "group",
      yaxis: { title: { text: "accuracy (%)" }, range: [0, 100] },
      legend: { orientation: "h", y: -0.3 },
      margin: { l: 70, r: 20, t: 60, b: 140 },
    }),
    width: 820,
    height: 480,
  };
}

/** The rapid assessment as a table: per examinee, full and subset accuracy, θ and the predicted accuracy. */
export function rapidTable(report: RapidAssessment): Table {
  return {
    title: `Rapid assessment: ${report.size} of ${report.fullItems} items`,
    columns: [
      "examinee",
      "full accuracy (95% CI)",
      "n",
      "subset accuracy (95% CI)",
      "n",
      "θ (SE)",
      "predicted",
    ],
    rows: report.persons.map((p) => [
      p.person,
      formatEstimate(p.full, true),
      p.full.n,
      formatEstimate(p.subset, true),
      p.subset.n,
      withSe(p.theta, p.se),
      Number.isFinite(p.predicted) ? `${(p.predicted * 100).toFixed(1)}%` : "–",
    ]),
    notes: [
      `rank agreement with the full benchmark over ${report.persons.length} examinees: Kendall τ-b ` +
      `${formatEstimate(report.kendall, false, 3)}, Spearman ρ ${
        formatEstimate(report.spearman, false, 3)
      } ` +
      "(95% CIs by Fisher's z with the Fieller–Hartley–Pearson variances)",
      "θ: EAP from the subset's responses alone; predicted: mean P(θ) over every item the examinee answered",
    ],
  };
}
