/**
 * The scorer of judge-scored benchmarks: grades every answer `judgeRuns` times (distinct, seeded calls) and
 * stores one score per run; judge errors are stored as invalid scores, never as numbers.
 * @module
 */
import type { Scorer } from "../core/task.ts";

/** Returns a scorer named `name` that asks the run's judge `judgeRuns` times per answer, concurrently. */
export function judgeScorer(name = "judge"): Scorer {
  return {
    name,
    needsJudge: true,
    async score({ sample, answer, judge, judgeRuns }) {
      if (!judge) throw new Error(`scorer "${name}" needs a judge`);
      const runs = Array.from({ length: judgeRuns }, (_, i) => i + 1);
      const verdicts = await Promise.all(runs.map((run) => judge.grade(sample, answer, run)));
      return verdicts.map((v, i) => ({
        run: runs[i],
        value: v.score,
        valid: v.score !== null,
        reason: v.reason,
        callKey: v.callKey,
        detail: { method: v.method, attempts: v.attempts },
      }));
    },
  };
}
