/**
 * The rates of robustness sets from per-variant rows: R1, R2 and R3 shares per set (A … E) and per anomaly
 * category (ASR, NSR, IESR pooling C–E), each with n and a 95% Wilson interval widened by the design effect of
 * the variants' clustering within their source question ({@linkcode clusteredRate}).
 * @module
 */
import type { StoredScore } from "../core/records.ts";
import type { Estimate, SampleRow } from "../core/summary.ts";
import type { JudgeScorerSpec } from "../judges/judge_scorer.ts";
import { CONSISTENCY_CLASSES, CONSISTENCY_SCORER } from "./consistency.ts";
import { judgedValue } from "../judges/jury.ts";
import { clusteredRate } from "../stats/clustered.ts";
import { CATEGORY_FIELD, ROBUSTNESS_CATEGORIES, ROBUSTNESS_SETS, SET_FIELD } from "./sets.ts";

/** The rate metrics: shares of R1, R2 and R3. */
export const RATE_METRICS = ["r1", "r2", "r3"] as const;

/** Returns a variant's 0/1 value per class from its consistency verdicts (all `null` when it has no class). */
export function classValues(
  scores: readonly StoredScore[],
  spec: Pick<JudgeScorerSpec<unknown>, "reduce" | "jury">,
  runs: number,
): Record<typeof RATE_METRICS[number], number | null> {
  const own = scores.filter((s) => s.scorer === CONSISTENCY_SCORER);
  const value = judgedValue(own, spec, runs, (s) => s.values?.category ?? null).value;
  const index = CONSISTENCY_CLASSES.indexOf(value as typeof CONSISTENCY_CLASSES[number]);
  const of = (i: number) => (index < 0 ? null : index === i ? 1 : 0);
  return { r1: of(0), r2: of(1), r3: of(2) };
}

/** Returns the source question of a variant id (`<source>~A03` → `<source>`). */
export function variantSource(id: string): string {
  return id.slice(0, id.lastIndexOf("~"));
}

/** How every robustness note starts (tables about other results leave them out). */
export const ROBUSTNESS_NOTE = "robustness";

/** The robustness part of a summary. */
export interface RobustnessRates {
  /** Estimates per set (`robustness_set`) and per category (`robustness_category`), by metric. */
  groups: Record<string, Record<string, Record<string, Estimate>>>;
  /** Variants made, classed, and without a class (answer or judge failed, or a jury tie). */
  counts: Record<string, number>;
  /** How the intervals were computed, with each set's design effect. */
  notes: string[];
}

/** Returns the rates of the variant rows (rows whose fields carry a set); empty when there are none. */
export function robustnessRates(rows: readonly SampleRow[]): RobustnessRates {
  const variants = rows.filter((r) => typeof r.fields[SET_FIELD] === "string");
  if (variants.length === 0) return { groups: {}, counts: {}, notes: [] };
  const classed = variants.filter((r) => r.values.r1 !== null);
  const designs: string[] = [];
  const estimates = (members: readonly SampleRow[], label: string) => {
    const out: Record<string, Estimate> = {};
    for (const metric of RATE_METRICS) {
      const clusters = Map.groupBy(
        members.filter((r) => r.values[metric] !== null),
        (r) => variantSource(r.id),
      );
      const rate = clusteredRate([...clusters.values()].map((list) => list.map((r) => r.values[metric]!)));
      out[metric] = rate.estimate;
      if (metric === "r1" && rate.estimate.n > 0) {
        designs.push(
          `${label}: ${rate.clusters} question(s), deff ${rate.designEffect.toFixed(2)}` +
            (rate.icc === null ? " (ρ not estimable)" : ` (ρ ${rate.icc.toFixed(2)})`),
        );
      }
    }
    return out;
  };
  const groups: RobustnessRates["groups"] = { [SET_FIELD]: {}, [CATEGORY_FIELD]: {} };
  for (const set of ROBUSTNESS_SETS) {
    const members = classed.filter((r) => r.fields[SET_FIELD] === set.id);
    if (variants.some((r) => r.fields[SET_FIELD] === set.id)) {
      groups[SET_FIELD][set.id] = estimates(members, `set ${set.id}`);
    }
  }
  for (const category of Object.keys(ROBUSTNESS_CATEGORIES)) {
    const members = classed.filter((r) => r.fields[CATEGORY_FIELD] === category);
    if (variants.some((r) => r.fields[CATEGORY_FIELD] === category)) {
      groups[CATEGORY_FIELD][category] = estimates(members, category);
    }
  }
  return {
    groups,
    counts: {
      robustness_variants: variants.length,
      robustness_classed: classed.length,
      robustness_unclassed: variants.length - classed.length,
    },
    notes: [
      `${ROBUSTNESS_NOTE}: R1/R2/R3 = shares of a set's classed variants; 95% Wilson intervals on n/deff, deff = 1 + (m-1)·ρ ` +
      "for the variants' clustering within their source question (ρ: one-way ANOVA ICC, truncated at 0)",
      `${ROBUSTNESS_NOTE} design effects (R1): ${designs.join("; ")}`,
    ],
  };
}
