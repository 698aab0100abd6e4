/**
 * Baseline vs ablation, sample by sample: per group (e.g. scenario) the baseline and condition means, the
 * paired difference with its bootstrap 95% CI and, for 0/1 metrics, McNemar's exact test (the paper's
 * Figures 5 and 7 as tables).
 * @module
 */
import type { SampleRow } from "../core/summary.ts";
import { formatEstimate, groupLabel, orderedKeys } from "./tables.ts";
import type { GroupDisplay, Table } from "../core/report_spec.ts";
import { type PairedComparison, pairedDifference } from "../stats/compare.ts";

/** Options of {@linkcode pairedTable}. */
export interface PairedTableOptions {
  /** Metric compared. */
  metric: string;
  /** `true` for rates shown in %. */
  percent: boolean;
  /** Group field (rows), e.g. `scenario`. */
  field: string;
  /** Baseline and condition names, for headers. */
  baseline: string;
  /** Condition name. */
  condition: string;
  /** Model label, for the title. */
  model: string;
  /** Order and names of the groups. */
  display?: GroupDisplay;
  /** Further footnotes (what the condition did: translator, exemplars, role table). */
  notes?: readonly string[];
}

function pairs(
  base: readonly SampleRow[],
  other: readonly SampleRow[],
  metric: string,
): [number[], number[]] {
  const otherById = new Map(other.map((r) => [r.id, r.values[metric]]));
  const a: number[] = [], b: number[] = [];
  for (const row of base) {
    const x = row.values[metric];
    const y = otherById.get(row.id);
    if (x === null || x === undefined || y === null || y === undefined) continue;
    a.push(x);
    b.push(y);
  }
  return [a, b];
}

/** Returns the paired comparison of `metric` over the samples present in both conditions. */
function comparePaired(
  base: readonly SampleRow[],
  other: readonly SampleRow[],
  metric: string,
  seed: string,
): PairedComparison {
  const [a, b] = pairs(base, other, metric);
  return pairedDifference(a, b, seed);
}

/** Returns the per-group and overall paired comparison table of a condition against the baseline. */
export function pairedTable(
  base: readonly SampleRow[],
  other: readonly SampleRow[],
  options: PairedTableOptions,
): Table {
  const k = options.percent ? 100 : 1;
  const fmt = (v: number | null) => (v === null ? "–" : (v * k).toFixed(1));
  const keys = orderedKeys(
    base.map((r) => r.fields[options.field]).filter((v) => v !== null && v !== undefined).map(String),
    options.field,
    options.display,
  );
  const row = (label: string, rowsA: readonly SampleRow[], rowsB: readonly SampleRow[]) => {
    const c = comparePaired(rowsA, rowsB, options.metric, `${options.condition}:${label}`);
    return [
      label,
      c.diff.n,
      fmt(c.base),
      fmt(c.other),
      formatEstimate(c.diff, options.percent, 1),
      c.mcnemar ? `${c.mcnemar.b}/${c.mcnemar.c}` : "–",
      c.mcnemar ? c.mcnemar.p.toPrecision(3) : "–",
    ];
  };
  const inGroup = (rows: readonly SampleRow[], key: string) =>
    rows.filter((r) => String(r.fields[options.field]) === key);
  return {
    title: `${options.model}: ${options.condition} vs ${options.baseline}, ${options.metric}${
      options.percent ? " (%)" : ""
    } by ${options.field} (paired)`,
    columns: [
      options.field,
      "pairs",
      options.baseline,
      options.condition,
      "difference [95% CI]",
      "McNemar b/c",
      "McNemar p",
    ],
    rows: [
      ...keys.map((key) => {
        const cells = row(key, inGroup(base, key), inGroup(other, key));
        cells[0] = groupLabel(options.display, options.field, key);
        return cells;
      }),
      row("all", base, other),
    ],
    notes: [
      "difference = condition − baseline over the same samples, paired percentile bootstrap (2000 resamples, seeded)",
      "McNemar's exact test for 0/1 metrics: b = right under the baseline only, c = right under the condition only",
      ...(options.notes ?? []),
    ],
  };
}
