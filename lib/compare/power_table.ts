/**
 * Power answers as people read them: the one screen `deno task power` prints, and the table `reproduce`
 * writes per benchmark (one row per variance basis and n).
 * @module
 */
import type { Table } from "../core/report_spec.ts";
import type { DesignPair, MetricScale, PowerAnswer } from "./benchmark_power.ts";
import { pointOf } from "./benchmark_power.ts";

/** Returns a difference in the metric's units as spoken of: `3 points`, `7.7 points`, or `0.50 (3.1 pts)`. */
export function formatDifference(value: number | null, scale: MetricScale): string {
  if (value === null) return "none";
  const points = +(value / pointOf(scale)).toFixed(1);
  if (scale.percent) return `${points} points`;
  if (!scale.range) return value.toFixed(3);
  return `${value.toFixed(2)} (${points} pts)`;
}

/** Returns what a point is on a bounded score's scale (`undefined` for rates, where it is a percentage point). */
export function pointLine(scale: MetricScale): string | undefined {
  if (scale.percent || !scale.range) return undefined;
  return `a point (pt) is 1% of the ${scale.range[0]}–${scale.range[1]} range: ${pointOf(scale)}`;
}

/** Returns a count with thousands separators, or `–`. */
function formatCount(n: number | null): string {
  return n === null ? "–" : n.toLocaleString("en-US");
}

/** Returns a probability as a percentage. */
function formatPower(p: number | null): string {
  if (p === null) return "not possible";
  if (p > 0.999) return ">99.9%";
  return `${(p * 100).toFixed(1)}%`;
}

/** What the screen says besides the answer. */
export interface PowerContext {
  /** Benchmark title. */
  title: string;
  /** Metric label. */
  metric: string;
  /** The metric's scale. */
  scale: MetricScale;
  /** Where n comes from, e.g. `questions in the public test set — data/papers/…`. */
  nSource: string;
  /** Whether the design asked about is paired (`--paired`). */
  paired: boolean;
}

/** Returns one row of the screen: a label and the paired and unpaired values. */
function screenRow(
  label: string,
  pair: DesignPair,
  format: (v: number | null) => string,
  unpaired = "",
): string {
  return `  ${label.padEnd(36)} ${format(pair.paired).padEnd(24)} ${format(pair.unpaired)}${
    pair.unpaired === null ? "" : unpaired
  }`;
}

/** Returns the one screen `deno task power` prints. */
export function powerScreen(answer: PowerAnswer, context: PowerContext): string[] {
  const { scale } = context;
  const diff = (v: number | null) => formatDifference(v, scale);
  const kind = answer.basis.kind === "rate" ? "a rate" : "a graded score";
  const lines = [
    `power: ${context.title}, ${context.metric} (${kind}); two-sided α = ${answer.alpha}, power ${
      (answer.power * 100).toFixed(0)
    }%`,
    `  n = ${formatCount(answer.n)} ${context.nSource}`,
    `  variance: ${answer.basis.source}`,
    ...(pointLine(scale) ? [`  ${pointLine(scale)}`] : []),
    "",
    `  ${"".padEnd(36)} ${"paired (same items)".padEnd(24)} unpaired (independent samples)`,
    screenRow("minimum detectable difference", answer.detectable, diff),
  ];
  if (answer.delta) {
    lines.push(
      screenRow(`power to detect ${diff(answer.delta.difference)}`, answer.delta.power, formatPower),
    );
  }
  for (const needed of answer.needed) {
    lines.push(
      screenRow(`n needed for ${diff(needed.difference)}`, needed, (v) => formatCount(v), " per model"),
    );
  }
  if (answer.delta) {
    const design = context.paired ? "paired" : "unpaired";
    const power = context.paired ? answer.delta.power.paired : answer.delta.power.unpaired;
    const needed = context.paired ? answer.delta.needed.paired : answer.delta.needed.unpaired;
    lines.push(
      "",
      power === null
        ? `  ${design} design: ${
          diff(answer.delta.difference)
        } cannot be detected: it is larger than the share of items the models disagree on`
        : `  ${design} design: ${diff(answer.delta.difference)} is detected with ${
          formatPower(power)
        } power at n = ${formatCount(answer.n)}; ${(answer.power * 100).toFixed(0)}% power needs ${
          formatCount(needed)
        }${context.paired ? " paired items" : " items per model"}${
          context.paired ? "" : " (paired: give --paired)"
        }`,
    );
  }
  lines.push(
    "  normal approximations of lib/stats/power.ts: paired rates by Connor (1987), unpaired rates by Fleiss " +
      "(as R's power.prop.test), means by z; docs/comparing-models.md",
  );
  return lines;
}

/** One row of a benchmark's power table: a variance basis at one n. */
export interface PowerRow {
  /** What the variance is taken from, short (e.g. `observed: A vs B`, `conservative default`). */
  label: string;
  /** What n is (e.g. `this run`, `published set`). */
  at: string;
  /** The answer. */
  answer: PowerAnswer;
}

/** Returns a benchmark's power table: per basis and n, the detectable differences and the n needed. */
export function powerTable(
  title: string,
  metric: string,
  scale: MetricScale,
  rows: readonly PowerRow[],
): Table {
  const differences = rows[0]?.answer.needed.map((d) => formatDifference(d.difference, scale)) ?? [];
  return {
    title: `${title}: power for ${metric}, two-sided α = 0.05, 80% power`,
    columns: [
      "variance from",
      "n",
      "detectable, paired",
      "detectable, unpaired",
      ...differences.flatMap((d) => [`n for ${d}, paired`, `n for ${d}, unpaired (per model)`]),
    ],
    rows: rows.map((row) => [
      row.label,
      `${formatCount(row.answer.n)} (${row.at})`,
      formatDifference(row.answer.detectable.paired, scale),
      formatDifference(row.answer.detectable.unpaired, scale),
      ...row.answer.needed.flatMap((d) => [formatCount(d.paired), formatCount(d.unpaired)]),
    ]),
    notes: [
      ...new Set(rows.map((r) => r.answer.basis.source)),
      ...(pointLine(scale) ? [pointLine(scale)!] : []),
      "detectable: the smallest difference found with 80% power at that n; paired = the same items under both " +
      "models (as deno task compare tests them), unpaired = two independent samples of n each",
      "normal approximations (lib/stats/power.ts): paired rates by Connor (1987) from the discordance, unpaired " +
      "rates by Fleiss (as R's power.prop.test, moved towards 50%), means by z with the SDs",
    ],
  };
}
