/**
 * A data set's make-up as a summary carries it: question counts per value of chosen fields, stored in
 * `summary.counts` as `dataset:FIELD=VALUE` → n, so tables and figures of the counts derive from the summary.
 * @module
 */
import type { Sample } from "../core/sample.ts";

/** Prefix of the data-set counts in `summary.counts`. */
export const DATASET_COUNT_PREFIX = "dataset:";

/** Returns the counts of `samples` by each of `fields` (a missing value counts as `unknown`). */
export function datasetCounts(samples: readonly Sample[], fields: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const field of fields) {
    for (const sample of samples) {
      const key = `${DATASET_COUNT_PREFIX}${field}=${sample.fields[field] ?? "unknown"}`;
      out[key] = (out[key] ?? 0) + 1;
    }
  }
  return out;
}

/** Returns the data-set counts among `counts`, by field then value, in the order they were stored. */
export function readDatasetCounts(
  counts: Readonly<Record<string, number>>,
): Map<string, Map<string, number>> {
  const byField = new Map<string, Map<string, number>>();
  for (const [key, n] of Object.entries(counts)) {
    if (!key.startsWith(DATASET_COUNT_PREFIX)) continue;
    const [field, value] = key.slice(DATASET_COUNT_PREFIX.length).split(/=(.*)/s);
    if (!byField.has(field)) byField.set(field, new Map());
    byField.get(field)!.set(value, n);
  }
  return byField;
}
