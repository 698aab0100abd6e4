/**
 * The meta-evaluation of one run: for every judge scorer that meets human ratings on some field, field by
 * field — each judge (and the jury of several) against each human and the humans against each other; the
 * human ceiling (each human against the reading of the others) and each judge against the same reading, with
 * a verdict; the same per group of items (category, ICD-11 chapter, …); the judges' error and abstention
 * rates; their stability across repeats; and an isotonic calibration of the judge's score onto the humans'
 * scale, fitted on a seeded share of the items and evaluated on the rest. Every interval is seeded.
 * @module
 */
import type { Estimate } from "../core/summary.ts";
import { RESAMPLES } from "../stats/bootstrap.ts";
import { calibrate, type Calibration, type CalibrationPoint, splitItems } from "./calibration.ts";
import {
  compareSeries,
  leaveOneOutUnits,
  pairUnits,
  type Readings,
  type SeriesResult,
} from "./comparisons.ts";
import { type JudgeFailures, judgeFailures } from "./error_rates.ts";
import {
  type Code,
  type FieldScale,
  isNumeric,
  judgeReading,
  type MetaField,
  readingOf,
  scaleOf,
} from "./fields.ts";
import { primaryStatistic, type Statistic, statisticsOf } from "./pair_stats.ts";
import type { RatedMetric, RunData } from "./run_data.ts";
import { type RepeatStability, repeatStability } from "./stability.ts";
import { MIN_VERDICT_ITEMS, type Verdict, verdictOf } from "./verdict.ts";

/** Label of the jury (the judges' readings combined by the field's rule) among the raters. */
export const JURY = "jury";

/** Group fields with more values than this among the rated items are not broken down. */
export const MAX_GROUPS = 30;

/** How every interval of a meta-evaluation is computed (the footnote of `meta.md`, `ci_method` of `meta.json`). */
export const META_CI_METHOD =
  "95% intervals. Agreement statistics (percent agreement, κ, quadratic κ, α, ρ, balanced F1) and their " +
  "differences: seeded percentile bootstrap over items (an item keeps all its pairs), 2000 resamples unless " +
  "stated; resamples where a statistic is undefined are left out. Error, abstention and all-repeats-agree " +
  "rates: Wilson score interval. α between repeats: bootstrap over items. Repeat share of variance: bootstrap " +
  "over items of the one-way random-effects decomposition. Calibration: each replicate refits the isotonic " +
  "map on a resample of the labelled items and evaluates it on a resample of the held-out items.";

/** Settings of a meta-evaluation. */
export interface MetaOptions {
  /** Seed text of the calibration split and of every bootstrap. */
  seed: string;
  /** Share of the rated items the calibration is fitted on, in (0, 1). */
  calibrate: number;
  /** Bootstrap resamples (default {@linkcode RESAMPLES}). */
  resamples?: number;
}

/** Two raters' agreement on a field. */
export interface PairReport {
  /** Rater compared (a judge, the jury or a human). */
  a: string;
  /** Reference rater (a human). */
  b: string;
  /** Which kind of pair. */
  kind: "judge-human" | "jury-human" | "human-human";
  /** Items both rated, and the statistics. */
  result: SeriesResult;
}

/** A judge (or the jury) against the human ceiling on the same pairs. */
export interface VersusReport {
  /** The judge, or {@linkcode JURY}. */
  rater: string;
  /** The reference: the other humans' reading (leave-one-out), or the only human. */
  reference: "leave-one-out" | "one human";
  /** The humans' agreement with the same reference on the same pairs (`null` with one human). */
  ceiling: SeriesResult | null;
  /** The rater's agreement with the reference. */
  own: SeriesResult;
  /** Rater − ceiling of the primary statistic, paired over items. */
  difference: Estimate | null;
  /** The verdict line. */
  verdict: Verdict;
}

/** The ceiling and the judges of one group of items. */
export interface GroupReport {
  /** Group field, e.g. `category`. */
  groupField: string;
  /** Its value. */
  group: string;
  /** Rated items in the group. */
  items: number;
  /** The human ceiling on the group's items (`null` with one human). */
  ceiling: SeriesResult | null;
  /** Each judge and the jury against it. */
  versus: VersusReport[];
}

/** Everything about one field of a metric. */
export interface FieldReport {
  /** The field. */
  field: FieldScale;
  /** The statistic the verdict compares. */
  primary: Statistic;
  /** The statistics reported. */
  statistics: Statistic[];
  /** Each judge and the jury against each human; each pair of humans. */
  pairs: PairReport[];
  /** The human ceiling on all items (each human against the others' reading), `null` with one human. */
  ceiling: SeriesResult | null;
  /** Each judge and the jury against the ceiling, with verdicts. */
  versus: VersusReport[];
  /** The same per group of items. */
  groups: GroupReport[];
  /** Each judge's stability across repeats (none when judged once). */
  stability: RepeatStability[];
  /** The isotonic calibration of the judge's (jury's) score onto the humans' mean (numeric fields). */
  calibration: (Calibration & { source: string; fraction: number }) | null;
}

/** A judge scorer against a human scorer. */
export interface MetricReport {
  /** Condition. */
  condition: string;
  /** Judge scorer. */
  judgeScorer: string;
  /** Human scorer. */
  humanScorer: string;
  /** Judges. */
  judges: string[];
  /** Human raters. */
  humans: string[];
  /** Items some human rated. */
  items: number;
  /** Items the judge scorer scored. */
  judged: number;
  /** Group fields broken down. */
  groupFields: string[];
  /** Error and abstention rates of each judge over the items it scored, overall and per group. */
  failures: {
    overall: JudgeFailures[];
    groups: { groupField: string; group: string; judges: JudgeFailures[] }[];
  };
  /** The fields. */
  fields: FieldReport[];
}

/** The meta-evaluation of a run. */
export interface MetaReport {
  /** Run directory. */
  run: string;
  /** Benchmark. */
  benchmark: string;
  /** Seed text. */
  seed: string;
  /** Bootstrap resamples. */
  resamples: number;
  /** Calibration share. */
  calibrate: number;
  /** How the intervals are computed. */
  ci_method: string;
  /** The metrics. */
  metrics: MetricReport[];
  /** Every verdict line (overall, per field and rater), as printed. */
  verdicts: string[];
}

/**
 * Returns the group fields of `items` worth a breakdown — 2 to {@linkcode MAX_GROUPS} values, and on average
 * at least two items per value (not an item id) — with each item's value.
 */
function groupFieldsOf(
  items: readonly string[],
  groups: RunData["groups"],
): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  const names = [...new Set(items.flatMap((id) => Object.keys(groups.get(id) ?? {})))];
  for (const name of names) {
    const byId = new Map<string, string>();
    for (const id of items) {
      const value = groups.get(id)?.[name];
      if (value !== undefined) byId.set(id, value);
    }
    const distinct = new Set(byId.values()).size;
    if (distinct >= 2 && distinct <= MAX_GROUPS && distinct * 2 <= byId.size) out.set(name, byId);
  }
  return out;
}

/** Returns the values of a group field in the order of the items. */
function groupValues(byId: ReadonlyMap<string, string>): string[] {
  return [...new Set(byId.values())];
}

/** The raters' readings of one field. */
interface FieldReadings {
  /** Each judge's reading, then the jury's when there are several judges. */
  raters: { label: string; kind: "judge" | "jury"; readings: Readings }[];
  /** Each human's code. */
  humans: { label: string; readings: Readings }[];
}

/** Returns every rater's reading of `field` on the metric's items. */
function readingsOf(metric: RatedMetric, field: MetaField): FieldReadings {
  const judges = metric.judges.map((judge) => {
    const judgings = metric.judgings.get(judge)!;
    const readings = new Map<string, Code | null>(
      metric.items.map((id) => [id, judgeReading(field, judgings.get(id) ?? [])]),
    );
    return { label: judge, kind: "judge" as const, readings };
  });
  const raters: FieldReadings["raters"] = [...judges];
  if (judges.length > 1) {
    const jury = new Map<string, Code | null>(
      metric.items.map((id) => [id, readingOf(judges.map((j) => j.readings.get(id) ?? null), field.level)]),
    );
    raters.push({ label: JURY, kind: "jury", readings: jury });
  }
  const humans = metric.humans.map((human) => {
    const ratings = metric.ratings.get(human)!;
    return {
      label: human,
      readings: new Map<string, Code | null>([...ratings].map(([id, values]) => [id, field.human(values)])),
    };
  });
  return { raters, humans };
}

/**
 * Returns the ceiling and each rater's comparison with it on `items` (a verdict needs
 * {@linkcode MIN_VERDICT_ITEMS} items; `resamples` 0 gives point estimates only).
 */
function ceilingAndVersus(
  items: readonly string[],
  field: MetaField,
  readings: FieldReadings,
  seed: string,
  resamples: number,
): { ceiling: SeriesResult | null; versus: VersusReport[] } {
  const primary = primaryStatistic(field);
  const humans = readings.humans.map((h) => h.readings);
  const several = humans.length >= 2;
  const ceiling = several
    ? compareSeries(leaveOneOutUnits(items, humans, field.level), field, {
      seed: `${seed}:ceiling`,
      resamples,
    })
      .series[0]
    : null;
  const versus = readings.raters.map((rater): VersusReport => {
    const where = `${seed}:${rater.label}`;
    if (!several) {
      const own =
        compareSeries(pairUnits(items, rater.readings, humans[0]), field, { seed: where, resamples })
          .series[0];
      return {
        rater: rater.label,
        reference: "one human",
        ceiling: null,
        own,
        difference: null,
        verdict: verdictOf(rater.label, primary, own.items, own.statistics[primary], undefined, null),
      };
    }
    const result = compareSeries(leaveOneOutUnits(items, humans, field.level, rater.readings), field, {
      seed: where,
      resamples,
      difference: true,
    });
    const [like, own] = result.series;
    return {
      rater: rater.label,
      reference: "leave-one-out",
      ceiling: like,
      own,
      difference: result.difference,
      verdict: verdictOf(
        rater.label,
        primary,
        own.items,
        own.statistics[primary],
        like.statistics[primary],
        result.difference,
      ),
    };
  });
  return { ceiling, versus };
}

/** Returns every pair's agreement: each judge and the jury with each human, then each pair of humans. */
function pairReports(
  items: readonly string[],
  field: MetaField,
  readings: FieldReadings,
  seed: string,
  resamples: number,
): PairReport[] {
  const pairs: PairReport[] = [];
  const compare = (a: string, b: string, x: Readings, y: Readings, kind: PairReport["kind"]) =>
    pairs.push({
      a,
      b,
      kind,
      result:
        compareSeries(pairUnits(items, x, y), field, { seed: `${seed}:${a}:${b}`, resamples }).series[0],
    });
  for (const rater of readings.raters) {
    for (const human of readings.humans) {
      compare(
        rater.label,
        human.label,
        rater.readings,
        human.readings,
        rater.kind === "jury" ? "jury-human" : "judge-human",
      );
    }
  }
  readings.humans.forEach((a, i) => {
    for (const b of readings.humans.slice(i + 1)) {
      compare(a.label, b.label, a.readings, b.readings, "human-human");
    }
  });
  return pairs;
}

/** Returns the calibration points of a numeric field: the judges' mean score and the humans' mean per item. */
function calibrationPoints(
  metric: RatedMetric,
  field: MetaField,
  readings: FieldReadings,
): CalibrationPoint[] {
  const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;
  const points: CalibrationPoint[] = [];
  for (const id of metric.items) {
    const judgeMeans = metric.judges.flatMap((judge) => {
      const codes = (metric.judgings.get(judge)!.get(id) ?? []).filter((s) => s.valid).map((s) =>
        field.judge(s)
      )
        .filter((v): v is number => typeof v === "number");
      return codes.length ? [mean(codes)] : [];
    });
    const humanCodes = readings.humans.map((h) => h.readings.get(id) ?? null).filter((v): v is number =>
      typeof v === "number"
    );
    if (judgeMeans.length && humanCodes.length) points.push({ id, x: mean(judgeMeans), y: mean(humanCodes) });
  }
  return points;
}

/** Returns the report of one field of a metric. */
function fieldReport(
  metric: RatedMetric,
  field: MetaField,
  groupFields: ReadonlyMap<string, ReadonlyMap<string, string>>,
  labelled: ReadonlySet<string>,
  options: MetaOptions,
): FieldReport {
  const resamples = options.resamples ?? RESAMPLES;
  const seed =
    `${options.seed}:${metric.condition}:${metric.judgeScorer}:${metric.humanScorer}:${field.name}`;
  const readings = readingsOf(metric, field);
  const overall = ceilingAndVersus(metric.items, field, readings, seed, resamples);
  const groups: GroupReport[] = [];
  for (const [groupField, byId] of groupFields) {
    for (const group of groupValues(byId)) {
      const items = metric.items.filter((id) => byId.get(id) === group);
      const where = `${seed}:group:${groupField}=${group}`;
      // A group too small for a verdict gets point estimates only (its intervals would say little).
      const own = items.length < MIN_VERDICT_ITEMS ? 0 : resamples;
      groups.push({
        groupField,
        group,
        items: items.length,
        ...ceilingAndVersus(items, field, readings, where, own),
      });
    }
  }
  const stability = metric.judges.flatMap((judge) => {
    const result = repeatStability(field, judge, metric.judgings.get(judge)!, metric.judged, {
      seed: `${seed}:stability:${judge}`,
      resamples,
    });
    return result ? [result] : [];
  });
  let calibration: FieldReport["calibration"] = null;
  if (isNumeric(field.level) && options.calibrate > 0) {
    const source = metric.judges.length > 1
      ? `jury mean of ${metric.judges.length} judges`
      : metric.judges[0];
    calibration = {
      source,
      fraction: options.calibrate,
      ...calibrate(calibrationPoints(metric, field, readings), labelled, groupFields, {
        seed: `${seed}:calibration`,
        resamples,
      }),
    };
  }
  return {
    field: scaleOf(field),
    primary: primaryStatistic(field),
    statistics: statisticsOf(field),
    pairs: pairReports(metric.items, field, readings, seed, resamples),
    ceiling: overall.ceiling,
    versus: overall.versus,
    groups,
    stability,
    calibration,
  };
}

/** Returns the meta-evaluation of one judge scorer against one human scorer. */
export function analyzeMetric(
  metric: RatedMetric,
  groups: RunData["groups"],
  options: MetaOptions,
): MetricReport {
  const groupFields = groupFieldsOf(metric.items, groups);
  const labelled = splitItems(
    metric.items,
    options.calibrate,
    `${options.seed}:split:${metric.condition}:${metric.humanScorer}`,
  );
  const failuresOn = (items: readonly string[]) =>
    metric.judges.map((judge) => judgeFailures(judge, metric.judgings.get(judge)!, items, metric.fields));
  const judgedGroups = groupFieldsOf(metric.judged, groups);
  return {
    condition: metric.condition,
    judgeScorer: metric.judgeScorer,
    humanScorer: metric.humanScorer,
    judges: metric.judges,
    humans: metric.humans,
    items: metric.items.length,
    judged: metric.judged.length,
    groupFields: [...groupFields.keys()],
    failures: {
      overall: failuresOn(metric.judged),
      groups: [...judgedGroups].flatMap(([groupField, byId]) =>
        groupValues(byId).map((group) => ({
          groupField,
          group,
          judges: failuresOn(metric.judged.filter((id) => byId.get(id) === group)),
        }))
      ),
    },
    fields: metric.fields.map((field) => fieldReport(metric, field, groupFields, labelled, options)),
  };
}

/** Returns the name of a metric in verdict lines: `medjudge vs human:physicians` (and its condition if not the default). */
export function metricName(metric: Pick<MetricReport, "judgeScorer" | "humanScorer" | "condition">): string {
  const condition = metric.condition === "default" ? "" : ` [${metric.condition}]`;
  return `${metric.judgeScorer} vs ${metric.humanScorer}${condition}`;
}

/** Returns the meta-evaluation of a run read by `readRun`. */
export function analyzeRun(run: RunData, options: MetaOptions): MetaReport {
  const metrics = run.metrics.map((m) => analyzeMetric(m, run.groups, options));
  const verdicts = metrics.flatMap((m) =>
    m.fields.flatMap((f) => f.versus.map((v) => `${metricName(m)} · ${f.field.name}: ${v.verdict.text}`))
  );
  return {
    run: run.dir,
    benchmark: run.benchmark,
    seed: options.seed,
    resamples: options.resamples ?? RESAMPLES,
    calibrate: options.calibrate,
    ci_method: META_CI_METHOD,
    metrics,
    verdicts,
  };
}
