/**
 * The letters of a comparison as the paper tables read them: for a metric, optionally one group of a field,
 * and a model (the summary's model label), the model's letters among the compared models.
 * @module
 */
import type { Comparison } from "./analyze.ts";

/** Where a paper cell reads our value from: a metric, overall or in one group of a field. */
export interface LetterCell {
  /** The metric. */
  metric: string;
  /** The group field, for a value of one group. */
  field?: string;
  /** The group key. */
  group?: string;
}

/** Returns a model's letters in a cell, or `undefined` when the comparison has none for it. */
export type LetterLookup = (cell: LetterCell, model: string) => string | undefined;

/** Returns the key of a cell and model. */
function key(
  metric: string,
  field: string | null | undefined,
  group: string | null | undefined,
  model: string,
) {
  return [metric, field ?? "", group ?? "", model].join("\u0000");
}

/**
 * Returns the lookup of `comparison`'s letters by cell and model. A model that appears in more than one entry
 * (several conditions of it) has no letters: its label alone does not say which entry a paper cell means.
 */
export function letterLookup(comparison: Comparison): LetterLookup {
  const counts = Map.groupBy(comparison.entries, (e) => e.model);
  const modelOf = new Map(
    comparison.entries.filter((e) => counts.get(e.model)!.length === 1).map((e) => [e.label, e.model]),
  );
  const letters = new Map<string, string>();
  for (const result of comparison.metrics) {
    for (const scope of [result.overall, ...result.fields.flatMap((f) => f.scopes)]) {
      for (const model of scope.models) {
        const name = modelOf.get(model.label);
        if (name !== undefined) {
          letters.set(key(result.metric.name, scope.field, scope.group, name), model.letters);
        }
      }
    }
  }
  return (cell, model) => letters.get(key(cell.metric, cell.field, cell.group, model));
}
