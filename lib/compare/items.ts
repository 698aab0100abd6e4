/**
 * The items a comparison rests on: the samples (by id) that every entry has. Entries that share no sample are
 * not comparisons of models on the same items, and stop with one line naming the run and the counts.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { CompareEntry } from "./entries.ts";

/** The samples the entries have in common. */
export interface SharedItems {
  /** Sample ids every entry has, in the first entry's order. */
  ids: string[];
  /** Each entry's number of samples, in entry order. */
  counts: number[];
}

/** Returns the entry's label with its run directory (as messages name an entry). */
function named(entry: CompareEntry): string {
  return entry.label === entry.condition ? `${entry.run} (${entry.condition})` : entry.run;
}

/**
 * Returns the sample ids every entry has. Throws a one-line {@linkcode ConfigError} naming the run when an
 * entry shares no sample with the first one (the counts of both are given), or when no sample is in all of them.
 */
export function sharedItems(entries: readonly CompareEntry[]): SharedItems {
  const [first, ...others] = entries;
  const sets = entries.map((e) => new Set(e.rows.map((r) => r.id)));
  for (const [i, entry] of others.entries()) {
    const shared = [...sets[i + 1]].filter((id) => sets[0].has(id)).length;
    if (shared === 0) {
      throw new ConfigError(
        `compare: ${named(entry)} shares no sample with ${named(first)} (by sample id: 0 of its ${
          sets[i + 1].size
        } samples are among the ${sets[0].size} of ${named(first)}); compare runs on the same items`,
      );
    }
  }
  const ids = first.rows.map((r) => r.id).filter((id) => sets.every((s) => s.has(id)));
  if (ids.length === 0) {
    throw new ConfigError(
      `compare: no sample is in all ${entries.length} runs (by sample id; they have ${
        sets.map((s) => s.size).join(", ")
      } samples); compare runs on the same items`,
    );
  }
  return { ids, counts: sets.map((s) => s.size) };
}
