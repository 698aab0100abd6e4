/**
 * How often a judge fails to give a usable verdict: its error rate (judgings stored as invalid — a reply that
 * never validated) and, per field, its abstention rate (valid judgings that give the field no value), each
 * with n and a Wilson 95% interval.
 * @module
 */
import type { StoredScore } from "../core/records.ts";
import type { Estimate } from "../core/summary.ts";
import { wilsonInterval } from "../stats/agreement.ts";
import type { MetaField } from "./fields.ts";

/** A judge's failures over a set of items. */
export interface JudgeFailures {
  /** The judge. */
  judge: string;
  /** Invalid judgings / judgings. */
  errors: Estimate;
  /** Per field: valid judgings without a value / valid judgings. */
  abstentions: Record<string, Estimate>;
}

/** Returns `count` of `n` as a rate with its Wilson 95% interval. */
export function wilsonRate(count: number, n: number): Estimate {
  return { value: n ? count / n : null, ci95: wilsonInterval(count, n), n };
}

/** Returns the error and abstention rates of `judge` over its judgings of `items`. */
export function judgeFailures(
  judge: string,
  judgings: ReadonlyMap<string, readonly StoredScore[]>,
  items: readonly string[],
  fields: readonly MetaField[],
): JudgeFailures {
  const all = items.flatMap((id) => judgings.get(id) ?? []);
  const valid = all.filter((s) => s.valid);
  return {
    judge,
    errors: wilsonRate(all.length - valid.length, all.length),
    abstentions: Object.fromEntries(
      fields.map((f) => [f.name, wilsonRate(valid.filter((s) => f.judge(s) === null).length, valid.length)]),
    ),
  };
}
