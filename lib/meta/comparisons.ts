/**
 * Who is compared with whom, as lists of pairs grouped by item so a bootstrap can resample items: one rater
 * against another (a judge and a human, two humans), and leave-one-rater-out — each human against the
 * reading of the other humans, and a judge against that same reading, item by item and human by human, so the
 * judge's agreement and the human ceiling rest on the same pairs of the same items.
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { type Code, type FieldScale, readingOf } from "./fields.ts";
import { itemBootstrap } from "./item_bootstrap.ts";
import { tableStatistics } from "./contingency.ts";
import { pairStatistic, primaryStatistic, type Statistic, statisticsOf } from "./pair_stats.ts";

/** One rater's reading of each item (missing items: not rated). */
export type Readings = ReadonlyMap<string, Code | null>;

/** Aligned pairs of codes: `a[k]` and `b[k]` rate the same item (b is the reference of balanced F1). */
export interface PairList {
  /** Codes of the rater compared. */
  a: Code[];
  /** Codes of the reference. */
  b: Code[];
}

/** The pairs one item contributes to each series of a comparison. */
export type ItemPairs = PairList[];

/** One series of a comparison: its size and statistics, each with its bootstrap 95% CI over items. */
export interface SeriesResult {
  /** Items that contribute a pair. */
  items: number;
  /** Pairs (an item contributes one per held-out human in a leave-one-out series). */
  pairs: number;
  /** The statistics that apply to the field (n = pairs). */
  statistics: Partial<Record<Statistic, Estimate>>;
}

/** A comparison's series and, when asked, the difference of the primary statistic (series 1 − series 0). */
export interface ComparisonResult {
  /** The series, in the order given. */
  series: SeriesResult[];
  /** Primary statistic of series 1 minus that of series 0, with its paired bootstrap CI over items. */
  difference: Estimate | null;
}

/** Options of {@linkcode compareSeries}. */
export interface CompareOptions {
  /** Seed text of the bootstrap. */
  seed: string;
  /** Bootstrap resamples. */
  resamples?: number;
  /** Also estimate series 1 − series 0 of the primary statistic. */
  difference?: boolean;
}

/** Returns the pairs of `a` and `b` on `items`: one per item both read. */
export function pairUnits(items: readonly string[], a: Readings, b: Readings): ItemPairs[] {
  return items.map((id) => {
    const x = a.get(id) ?? null, y = b.get(id) ?? null;
    return [x === null || y === null ? { a: [], b: [] } : { a: [x], b: [y] }];
  });
}

/**
 * Returns leave-one-rater-out pairs on `items`: for each human who rated an item, the reading of the other
 * humans (by the field's rule) is the reference. Series 0 pairs the held-out human with it (the human
 * ceiling); with `rater`, series 1 pairs the rater with the same reference, and only items the rater read
 * count in either series, so both rest on the same pairs.
 */
export function leaveOneOutUnits(
  items: readonly string[],
  humans: readonly Readings[],
  level: FieldScale["level"],
  rater?: Readings,
): ItemPairs[] {
  return items.map((id) => {
    const ceiling: PairList = { a: [], b: [] }, judged: PairList = { a: [], b: [] };
    const own = rater ? (rater.get(id) ?? null) : null;
    if (rater && own === null) return [ceiling, judged];
    const values = humans.map((h) => h.get(id) ?? null);
    values.forEach((value, h) => {
      if (value === null) return;
      const reference = readingOf(values.filter((_, k) => k !== h), level);
      if (reference === null) return;
      ceiling.a.push(value);
      ceiling.b.push(reference);
      if (own !== null) {
        judged.a.push(own);
        judged.b.push(reference);
      }
    });
    return rater ? [ceiling, judged] : [ceiling];
  });
}

/** Returns the pairs of series `s` of `units` joined. */
function joined(units: readonly ItemPairs[], s: number): PairList {
  const a: Code[] = [], b: Code[] = [];
  for (const unit of units) {
    a.push(...unit[s].a);
    b.push(...unit[s].b);
  }
  return { a, b };
}

/** Interval fields with more distinct values than this are compared pair by pair instead of by table. */
const MAX_TABLE_CATEGORIES = 200;

/**
 * Returns the categories of the contingency tables of a comparison: binary 0, 1; ordinal the field's levels;
 * nominal and interval the codes that occur (sorted); `undefined` when an interval field has too many values.
 */
function tableCategories(units: readonly ItemPairs[], scale: FieldScale): Code[] | undefined {
  if (scale.level === "binary") return [0, 1];
  if (scale.level === "ordinal" && scale.levels) return [...scale.levels];
  const seen = new Set<Code>();
  for (const unit of units) for (const s of unit) for (const v of [...s.a, ...s.b]) seen.add(v);
  if (scale.level === "nominal") return [...seen].map(String).sort();
  if (seen.size > MAX_TABLE_CATEGORIES) return undefined;
  return [...seen].map(Number).sort((x, y) => x - y);
}

/**
 * Returns a function computing every statistic of every series (then, with `difference`, series 1 − series 0
 * of the primary statistic) from resampled items, and the items in the form it reads: each item's pairs as
 * contingency cells when the categories allow, else as the pairs themselves.
 */
function statisticVector(
  units: readonly ItemPairs[],
  scale: FieldScale,
  count: number,
  difference: boolean,
): { items: readonly unknown[]; vector: (items: readonly unknown[]) => (number | null)[] } {
  const statistics = statisticsOf(scale);
  const at = statistics.indexOf(primaryStatistic(scale));
  const withDifference = (values: (number | null)[]) => {
    if (difference) {
      const first = values[at], second = values[statistics.length + at];
      values.push(first === null || second === null ? null : second - first);
    }
    return values;
  };
  const found = tableCategories(units, scale);
  // A code outside the categories (none is expected) sends the comparison down the pair-by-pair path.
  const known = found && new Set<Code>(found);
  const categories = known && units.every((u) => u.every((s) => [...s.a, ...s.b].every((v) => known.has(v))))
    ? found
    : undefined;
  if (!categories) {
    return {
      items: units,
      vector: (sample) => {
        const values: (number | null)[] = [];
        for (let s = 0; s < count; s++) {
          const { a, b } = joined(sample as ItemPairs[], s);
          for (const st of statistics) values.push(pairStatistic(st, a, b, scale));
        }
        return withDifference(values);
      },
    };
  }
  const k = categories.length;
  const index = new Map(categories.map((c, i) => [c, i]));
  const cells = units.map((unit) =>
    unit.map((s) => Int32Array.from(s.a, (x, t) => index.get(x)! * k + index.get(s.b[t])!))
  );
  const tableScale = { categories, level: scale.level };
  const table = new Float64Array(k * k);
  return {
    items: cells,
    vector: (sample) => {
      const values: (number | null)[] = [];
      const items = sample as Int32Array[][];
      for (let s = 0; s < count; s++) {
        table.fill(0);
        for (let i = 0; i < items.length; i++) {
          const own = items[i][s];
          for (let c = 0; c < own.length; c++) table[own[c]]++;
        }
        values.push(...tableStatistics(statistics, table, tableScale));
      }
      return withDifference(values);
    },
  };
}

/**
 * Returns every statistic that applies to `scale` for each series of `units`, with a seeded bootstrap 95% CI
 * over items (items that contribute no pair are left out first), and with `difference` the paired difference
 * of the primary statistic, series 1 − series 0.
 */
export function compareSeries(
  units: readonly ItemPairs[],
  scale: FieldScale,
  options: CompareOptions,
): ComparisonResult {
  const used = units.filter((u) => u.some((s) => s.a.length > 0));
  const count = used[0]?.length ?? units[0]?.length ?? 1;
  const statistics = statisticsOf(scale);
  const { items, vector } = statisticVector(used, scale, count, options.difference ?? false);
  const estimates = itemBootstrap(items, vector, { seed: options.seed, resamples: options.resamples });
  const series = Array.from({ length: count }, (_, s) => {
    const pairs = joined(used, s).a.length;
    return {
      items: used.filter((u) => u[s].a.length > 0).length,
      pairs,
      statistics: Object.fromEntries(
        statistics.map((st, k) => [st, { ...estimates[s * statistics.length + k], n: pairs }]),
      ),
    };
  });
  const last = estimates[count * statistics.length];
  return {
    series,
    difference: options.difference && last ? { ...last, n: series[1]?.items ?? 0 } : null,
  };
}
