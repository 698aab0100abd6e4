/**
 * Tables and figures of the IRT commands: the calibrated items, test information with its standard error,
 * a CAT trace, and the rapid assessment set beside the full benchmark (Figure 11's kind).
 * @module
 */
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

/** The calibrated items as a table: parameters with standard errors, n, proportion correct and fit. */
export function itemsTable(fit: FitFile): Table {
  return {
    title: `${fit.model.toUpperCase()} item parameters (${fit.n_persons} examinees, ${fit.n_items} items)`,
    columns: ["item", "a (SE)", "b (SE)", "c (SE)", "n", "p correct", "infit", "outfit", "Q1 p"],
    rows: fit.items.map((it) => [
      it.item,
      withSe(it.a, it.se_a),
      withSe(it.b, it.se_b),
      fit.model === "3pl" ? withSe(it.c, it.se_c) : "0 (fixed)",
      it.n ?? null,
      fixed(it.p_correct),
      fixed(it.infit, 2),
      fixed(it.outfit, 2),
      fixed(it.q1_p),
    ]),
    notes: [
      `marginal ${usesPriors(fit) ? "MAP" : "ML"} by Bock–Aitkin EM, ` +
      `${fit.quadrature_nodes ?? 61} quadrature nodes; logLik ${fit.logLik.toFixed(3)}; ` +
      `${fit.converged ? "converged" : "NOT converged"} after ${fit.iterations} cycles`,
      `standard errors: ${fit.se_method ?? "louis"} observed information; b by the delta method`,
      "infit/outfit: mean squares at the EAP abilities (1 under the model; biased low when tests are short); " +
      "Q1: Yen's χ² over ten ability groups, only when the median examinee answered >= 20 items",
      ...(fit.warnings ?? []),
    ],
  };
}

/** Test information and its standard error 1/√I over θ ∈ [−4, 4], with the five most informative items. */
export function informationFigure(
  items: readonly (ItemParams & { item: string })[],
  title: string,
): FigureSpec {
  const info = THETAS.map((t) => testInformation(items, t));
  const top = [...items].sort((x, y) =>
    Math.max(...THETAS.map((t) => itemInformation(y, t))) -
    Math.max(...THETAS.map((t) => itemInformation(x, t)))
  ).slice(0, 5);
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
      `${(p.predicted * 100).toFixed(1)}%`,
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
