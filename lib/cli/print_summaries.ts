/**
 * What `eval` and `merge` print when a run's outputs are written: each condition's labels and metrics with
 * their n and 95% interval, and for a partial run what is missing.
 * @module
 */
import type { Summary } from "../core/summary.ts";
import { formatEstimate } from "../report/tables.ts";
import { type CompletenessCounts, partialRunNote } from "../pipeline/completeness.ts";

/** Prints a heading line per condition and one line per metric. */
export function printSummaries(summaries: readonly Summary[]): void {
  for (const s of summaries) {
    console.log(
      `${s.benchmark} | ${s.model} | ${s.condition} | judge ${s.judge ?? "none"}${
        s.offline ? " | OFFLINE" : ""
      }`,
    );
    if (s.complete === false) {
      console.log(`  ${partialRunNote(s.counts as unknown as CompletenessCounts)}`);
    }
    for (const [name, est] of Object.entries(s.metrics)) {
      console.log(`  ${name}: ${formatEstimate(est, false, 4)} (n=${est.n}, 95% CI)`);
    }
  }
}
