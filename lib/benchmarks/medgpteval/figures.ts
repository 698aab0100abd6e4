/**
 * MedGPTEval's figures: a radar of each model's aspect subtotals on dialogues and case reports (as a share of
 * each aspect's maximum, so the 8-, 5- and 3-point aspects share one scale), and the robustness stacked bars
 * (R1, R2, R3 per data set and model, as the paper's Table 5 reads).
 * @module
 */
import { ROBUSTNESS_SETS, SET_FIELD } from "../../robustness/sets.ts";
import type { FigureSpec } from "../../core/report_spec.ts";
import { type Summary, summaryName } from "../../core/summary.ts";
import { CLASS_LABELS, CONSISTENCY_CLASSES } from "../../robustness/consistency.ts";
import { PALETTE, paperLayout } from "../../report/figures.ts";
import { ASPECT_LABELS } from "./prompts.ts";
import { aspectMax, ASPECTS, ASPECTS_OF } from "./rubric.ts";

/** Colours of R1 (consistent), R2 (sound) and R3 (error). */
const CLASS_COLOURS = ["#009E73", "#E69F00", "#D55E00"];

/** Returns the radar of aspect subtotals (% of maximum), one trace per model and kind that has them. */
export function aspectRadar(summaries: readonly Summary[]): FigureSpec | undefined {
  const axes = ASPECTS.map((a) => ASPECT_LABELS[a].replace(" capabilities", ""));
  const data: Record<string, unknown>[] = [];
  summaries.forEach((summary, i) => {
    for (const kind of ["dialogue", "case"] as const) {
      const groups = summary.groups.kind?.[kind];
      if (!groups || (groups.total?.n ?? 0) === 0) continue;
      const r = ASPECTS.map((a) => {
        const value = ASPECTS_OF[kind].includes(a) ? groups[a]?.value : null;
        return value === null || value === undefined ? null : (100 * value) / aspectMax(a);
      });
      data.push({
        type: "scatterpolar",
        name: `${summaryName(summary)} · ${kind === "dialogue" ? "dialogues" : "case reports"}`,
        r: [...r, r[0]],
        theta: [...axes, axes[0]],
        fill: "toself",
        opacity: 0.55,
        line: { color: PALETTE[i % PALETTE.length], dash: kind === "case" ? "dash" : "solid" },
        connectgaps: false,
      });
    }
  });
  if (data.length === 0) return undefined;
  return {
    data,
    layout: paperLayout({
      title: { text: "MedGPTEval: aspect subtotals (% of each aspect's maximum)", font: { size: 16 } },
      polar: { radialaxis: { range: [0, 100], ticksuffix: "%" }, domain: { x: [0.12, 0.88] } },
      margin: { l: 150, r: 150, t: 70, b: 90 },
      legend: { orientation: "h", y: -0.15 },
    }),
    width: 720,
    height: 560,
  };
}

/** Returns the robustness stacked bars: per model and data set, the R1, R2 and R3 shares (%). */
export function robustnessBars(summaries: readonly Summary[]): FigureSpec | undefined {
  const bars = summaries.flatMap((summary) =>
    ROBUSTNESS_SETS.filter((set) => summary.groups[SET_FIELD]?.[set.id]).map((set) => ({
      x: summaries.length > 1 ? `${summaryName(summary)} · ${set.id}` : `Data set ${set.id}`,
      groups: summary.groups[SET_FIELD][set.id],
    }))
  );
  if (bars.length === 0) return undefined;
  const data = CONSISTENCY_CLASSES.map((cls, i) => ({
    type: "bar",
    name: `${cls} ${CLASS_LABELS[cls]}`,
    x: bars.map((b) => b.x),
    y: bars.map((b) => {
      const value = b.groups[`r${i + 1}`]?.value;
      return value === null || value === undefined ? null : 100 * value;
    }),
    text: bars.map((b) => `n=${b.groups[`r${i + 1}`]?.n ?? 0}`),
    textposition: "none",
    marker: { color: CLASS_COLOURS[i] },
    hovertemplate: "%{x}: %{y:.1f}% (%{text})<extra>%{fullData.name}</extra>",
  }));
  const offline = summaries.some((s) => s.offline) ? " — includes OFFLINE stand-ins" : "";
  return {
    data,
    layout: paperLayout({
      title: { text: `MedGPTEval robustness: R1 / R2 / R3 per data set${offline}`, font: { size: 16 } },
      barmode: "stack",
      yaxis: { title: { text: "share of variants (%)" }, range: [0, 100], gridcolor: "#e5e5e5" },
      xaxis: { type: "category", tickangle: bars.length > 8 ? -35 : 0, automargin: true },
      legend: { orientation: "h", y: -0.25 },
    }),
    width: Math.min(1400, Math.max(640, 70 * bars.length + 200)),
    height: 460,
  };
}

/** Returns the figures the summaries have data for. */
export function medGptEvalFigures(summaries: readonly Summary[]): Record<string, FigureSpec> {
  const figures: Record<string, FigureSpec> = {};
  const radar = aspectRadar(summaries);
  if (radar) figures.aspects_radar = radar;
  const bars = robustnessBars(summaries);
  if (bars) figures.robustness = bars;
  return figures;
}
