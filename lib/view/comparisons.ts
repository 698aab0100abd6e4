/**
 * The paired comparisons the viewer's Compare page shows: each ablation of a run against its baseline, and
 * each pair of runs of one benchmark in the conditions they share, on the items both answered — per group the
 * two means, the difference with its paired-bootstrap 95% CI and, for 0/1 metrics, McNemar's exact test
 * (lib/stats/compare.ts, as the eval's ablation tables compute them).
 * @module
 */
import type { SampleRow } from "../core/summary.ts";
import { pairedDifference } from "../stats/compare.ts";
import type { CompareSide, Comparison, PairedCell } from "./bundle_format.ts";

/** One side's per-sample rows, with what the comparison needs to know of its run. */
export interface ComparableRows {
  /** Run key and condition. */
  side: CompareSide;
  /** Benchmark name (only runs of one benchmark are compared). */
  benchmark: string;
  /** `true` for the run's baseline condition. */
  baseline: boolean;
  /** The metric compared (the run's primary metric with per-sample values). */
  metric: string;
  /** `true` for a rate shown in %. */
  percent: boolean;
  /** Group fields, each with its keys in display order. */
  groupOrder: Record<string, string[]>;
  /** The benchmark's per-sample rows. */
  rows: readonly SampleRow[];
}

/** Returns the pairs of sides to compare: ablation vs baseline within a run, and runs in a shared condition. */
export function comparisonPairs(sides: readonly ComparableRows[]): [ComparableRows, ComparableRows][] {
  const pairs: [ComparableRows, ComparableRows][] = [];
  for (const base of sides.filter((s) => s.baseline)) {
    for (const other of sides) {
      if (other.side.run === base.side.run && !other.baseline) pairs.push([base, other]);
    }
  }
  sides.forEach((a, i) => {
    for (const b of sides.slice(i + 1)) {
      if (a.side.run !== b.side.run && a.benchmark === b.benchmark && a.side.condition === b.side.condition) {
        pairs.push([a, b]);
      }
    }
  });
  return pairs;
}

/** The paired values of `metric` over the samples both sides scored, with the first side's group fields. */
function pairedValues(a: ComparableRows, b: ComparableRows, metric: string) {
  const other = new Map(b.rows.map((r) => [r.id, r.values[metric]]));
  const pairs: { x: number; y: number; fields: SampleRow["fields"] }[] = [];
  for (const row of a.rows) {
    const x = row.values[metric];
    const y = other.get(row.id);
    if (x === null || x === undefined || y === null || y === undefined) continue;
    pairs.push({ x, y, fields: row.fields });
  }
  return pairs;
}

function cell(key: string | null, pairs: { x: number; y: number }[], seed: string): PairedCell {
  const c = pairedDifference(pairs.map((p) => p.x), pairs.map((p) => p.y), seed);
  return { key, a: c.base, b: c.other, diff: c.diff, mcnemar: c.mcnemar };
}

/** Returns the paired comparison of side `b` against side `a` on `a`'s metric, overall and per group. */
export function compareSides(a: ComparableRows, b: ComparableRows): Comparison {
  const pairs = pairedValues(a, b, a.metric);
  const seed = `view:${a.side.run}:${a.side.condition}:${b.side.run}:${b.side.condition}`;
  const groups: Record<string, PairedCell[]> = {};
  for (const [field, keys] of Object.entries(a.groupOrder)) {
    const byKey = Map.groupBy(pairs, (p) => String(p.fields[field] ?? ""));
    groups[field] = keys.filter((k) => byKey.has(k)).map((k) =>
      cell(k, byKey.get(k)!, `${seed}:${field}:${k}`)
    );
  }
  return {
    a: a.side,
    b: b.side,
    metric: a.metric,
    percent: a.percent,
    all: cell(null, pairs, `${seed}:all`),
    groups,
  };
}
