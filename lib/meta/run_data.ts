/**
 * Reads what a meta-evaluation needs from a run store, read-only: the samples' group fields, and for every
 * condition with human ratings (`human:*` scorers) each judge scorer whose values meet the ratings on some
 * field — every judging of every judge (repeats and errors included) and every human rater's values. A run
 * that holds no human ratings, or ratings no judge scorer shares a field with, is a one-line ConfigError.
 * @module
 */
import { BENCHMARKS } from "../benchmarks/registry.ts";
import { ConfigError } from "../core/errors.ts";
import type { NamedValue, StoredScore } from "../core/records.ts";
import type { RatingSpec } from "../core/task.ts";
import { RunStore } from "../store/run_store.ts";
import { BENCHMARK_FIELDS } from "./benchmark_fields.ts";
import { type MetaField, sharedField, sharedScale } from "./fields.ts";

/** Prefix of the scorers that hold human ratings. */
export const HUMAN_PREFIX = "human:";

/** A judge scorer and a human scorer of one condition, with the fields they are compared on. */
export interface RatedMetric {
  /** Condition the ratings and judgings belong to. */
  condition: string;
  /** The judge scorer, e.g. `medjudge`. */
  judgeScorer: string;
  /** The human scorer, e.g. `human:physicians`. */
  humanScorer: string;
  /** The fields compared, the benchmark's derived ones first. */
  fields: MetaField[];
  /** Samples some human of `humanScorer` rated, in sample order. */
  items: string[];
  /** Samples the judge scorer scored, in sample order (what error rates and repeat stability read). */
  judged: string[];
  /** Judges (models) of the scorer, in order of first appearance. */
  judges: string[];
  /** Human raters, in order of first appearance. */
  humans: string[];
  /** Every judging: judge → sample → its stored scores (every repeat, judge errors included). */
  judgings: Map<string, Map<string, StoredScore[]>>;
  /** Every rating: human → sample → the rating's named values. */
  ratings: Map<string, Map<string, Readonly<Record<string, NamedValue>>>>;
}

/** What a meta-evaluation reads of one run. */
export interface RunData {
  /** The run directory as given. */
  dir: string;
  /** Benchmark of the run (from its manifest), or `unknown`. */
  benchmark: string;
  /** Group fields of each sample (values as text; missing ones left out). */
  groups: Map<string, Record<string, string>>;
  /** The judge-scorer × human-scorer pairs with a field in common. */
  metrics: RatedMetric[];
}

/** Returns the command that imports human ratings into `dir`, for messages. */
export function importHint(dir: string): string {
  return `import them with: deno task import-ratings ${dir} FILE.csv --scorer human:NAME (or eval --human-eval FILE.csv)`;
}

/** Opens the run store of `dir` read-only; a directory without one is a one-line ConfigError. */
export function openRun(dir: string): RunStore {
  const path = `${dir}/run.sqlite`;
  const isFile = (p: string) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return undefined;
    }
  };
  const kind = isFile(dir);
  if (kind === undefined) {
    throw new ConfigError(`meta: no directory ${dir}; give the directory of an eval run`);
  }
  if (kind || !isFile(path)) {
    throw new ConfigError(`meta: ${dir} holds no run store (run.sqlite); give the directory of an eval run`);
  }
  try {
    return new RunStore(path, { readOnly: true });
  } catch (err) {
    throw new ConfigError(`meta: ${path} cannot be read as a run store (${(err as Error).message})`);
  }
}

/** Returns the declared human rating fields of `scorer` in the run's benchmark, if the benchmark declares them. */
async function ratingSpecOf(benchmark: string, scorer: string): Promise<RatingSpec | undefined> {
  const factory = BENCHMARKS[benchmark];
  if (!factory) return undefined;
  return (await factory()).ratings?.[scorer];
}

/** Appends `value` to the list at `key` of `map`, creating it. */
function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Returns the fields `judgeScorer`'s judgings and `humanScorer`'s ratings meet on. */
async function metricFields(
  benchmark: string,
  judgeScorer: string,
  humanScorer: string,
  judgings: readonly StoredScore[],
  ratings: readonly StoredScore[],
): Promise<MetaField[]> {
  const spec = await ratingSpecOf(benchmark, humanScorer);
  const extra = BENCHMARK_FIELDS[benchmark];
  const humanNames = spec?.fields.map((f) => f.name) ??
    [...new Set(ratings.flatMap((r) => Object.keys(r.values ?? {})))];
  const judgeNames = new Set(judgings.flatMap((s) => Object.keys(s.values ?? {})));
  const valid = judgings.filter((s) => s.valid);
  const derived = (extra?.derived?.(judgeScorer) ?? []).filter((field) =>
    ratings.some((r) => field.human(r.values ?? {}) !== null) && valid.some((s) => field.judge(s) !== null)
  );
  const shared = humanNames.filter((name) => judgeNames.has(name) && !derived.some((d) => d.name === name))
    .map((name) =>
      sharedField(sharedScale(
        name,
        spec?.fields.find((f) => f.name === name),
        extra?.nominal?.includes(name) ?? false,
        [...judgings.map((s) => s.values?.[name] ?? null), ...ratings.map((r) => r.values?.[name] ?? null)],
      ))
    );
  return [...derived, ...shared];
}

/**
 * Reads the run in `dir`: its samples' group fields and every judge-scorer × human-scorer pair that meets on
 * a field. Throws a one-line ConfigError when the run has no human ratings (naming the command that imports
 * them) or when no judge scorer shares a field with them.
 */
export async function readRun(dir: string): Promise<RunData> {
  const store = openRun(dir);
  try {
    let manifest: Record<string, unknown>;
    try {
      manifest = store.manifest() ?? {};
    } catch (err) {
      throw new ConfigError(
        `meta: ${dir}/run.sqlite cannot be read as a run store (${(err as Error).message})`,
      );
    }
    const benchmark = (manifest.identity as { benchmark?: string } | undefined)?.benchmark ?? "unknown";
    const order: string[] = [];
    const groups = new Map<string, Record<string, string>>();
    for (const sample of store.eachSample()) {
      order.push(sample.id);
      const fields: Record<string, string> = {};
      for (const [key, value] of Object.entries(sample.fields)) {
        if (value !== null) fields[key] = String(value);
      }
      groups.set(sample.id, fields);
    }
    const position = new Map(order.map((id, i) => [id, i]));
    const byCondition = new Map<
      string,
      { human: Map<string, StoredScore[]>; judge: Map<string, StoredScore[]> }
    >();
    for (const score of store.eachScore()) {
      if (!position.has(score.sampleId)) continue;
      const entry = byCondition.get(score.condition) ?? { human: new Map(), judge: new Map() };
      byCondition.set(score.condition, entry);
      if (score.scorer.startsWith(HUMAN_PREFIX)) {
        if (score.valid && score.values) push(entry.human, score.scorer, score);
      } else if (score.judge !== null) push(entry.judge, score.scorer, score);
    }
    const humanScorers = [...byCondition.values()].flatMap((c) => [...c.human.keys()]);
    if (humanScorers.length === 0) {
      throw new ConfigError(
        `meta: ${dir} has no human ratings (no ${HUMAN_PREFIX}* scores); ${importHint(dir)}`,
      );
    }
    const byPosition = (ids: Iterable<string>) =>
      [...new Set(ids)].sort((a, b) => position.get(a)! - position.get(b)!);
    const metrics: RatedMetric[] = [];
    for (const [condition, { human, judge }] of byCondition) {
      for (const [humanScorer, ratings] of human) {
        for (const [judgeScorer, judgings] of judge) {
          const fields = await metricFields(benchmark, judgeScorer, humanScorer, judgings, ratings);
          if (fields.length === 0) continue;
          const byJudge = new Map<string, Map<string, StoredScore[]>>();
          for (const s of judgings) {
            const bySample = byJudge.get(s.judge!) ?? new Map<string, StoredScore[]>();
            byJudge.set(s.judge!, bySample);
            push(bySample, s.sampleId, s);
          }
          const byHuman = new Map<string, Map<string, Readonly<Record<string, NamedValue>>>>();
          for (const r of ratings) {
            const bySample = byHuman.get(r.judge ?? humanScorer) ?? new Map();
            byHuman.set(r.judge ?? humanScorer, bySample);
            bySample.set(r.sampleId, r.values!);
          }
          metrics.push({
            condition,
            judgeScorer,
            humanScorer,
            fields,
            items: byPosition(ratings.map((r) => r.sampleId)),
            judged: byPosition(judgings.map((s) => s.sampleId)),
            judges: [...byJudge.keys()],
            humans: [...byHuman.keys()],
            judgings: byJudge,
            ratings: byHuman,
          });
        }
      }
    }
    if (metrics.length === 0) {
      const names = [...new Set(humanScorers)].join(", ");
      throw new ConfigError(
        `meta: ${dir}: no judge scorer of the run shares a field with the human ratings (${names}); ` +
          "the judge's values and the ratings must name the same fields",
      );
    }
    return { dir, benchmark, groups, metrics };
  } finally {
    store.close();
  }
}
