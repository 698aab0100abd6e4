/**
 * A live adaptive test of one model: the CAT picks an item from the calibrated pool, the benchmark's solver
 * asks the model exactly that sample through the run's caller and store, the benchmark's scorer scores it,
 * and the score (dichotomised if graded) updates θ. Only the selected items are ever sent; the run store holds
 * them like any run (collectable, resumable: `--resume` replays the stored calls and so the same test).
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import { baselineCondition, conditionSolver } from "../ablations/condition.ts";
import { type CatOptions, type CatPerson, catPerson, CatSession } from "../irt/cat.ts";
import type { ItemParams } from "../irt/model.ts";
import { evaluate } from "./evaluate.ts";
import type { EvalConfig } from "./eval_config.ts";
import { openRunStore, recordCodeVersion } from "./open_store.ts";
import { planEval } from "./plan.ts";
import { Roles } from "./roles.ts";

/** Settings of a live adaptive test beyond the run's own. */
export interface AdaptiveOptions extends CatOptions {
  /** Scorer whose value is the response (default the task's only scorer). */
  scorer?: string;
  /** Values at or above it count as right (default: only 1 is right). */
  threshold?: number;
}

/** What a live adaptive test returns. */
export interface AdaptiveResult {
  /** The test, in the shape of `cat.json`'s persons. */
  person: CatPerson;
  /** Pool items that are not in the benchmark's data (never asked). */
  missing: string[];
  /** Calls sent and answered from the store. */
  calls: { sent: number; cached: number };
}

/** Runs one adaptive test of `config.model` on `config.benchmark` over the calibrated `pool`. */
export async function adaptiveEval(
  config: EvalConfig,
  pool: ReadonlyMap<string, ItemParams>,
  options: AdaptiveOptions,
): Promise<AdaptiveResult> {
  const plan = await planEval({ ...config, renderFigures: false });
  const { task } = plan;
  const samples = new Map(plan.samples.map((s) => [s.id, s]));
  const missing = [...pool.keys()].filter((id) => !samples.has(id));
  const usable = new Map([...pool].filter(([id]) => samples.has(id)));
  if (usable.size === 0) {
    const few = (ids: string[]) =>
      ids.slice(0, 3).map((id) => `"${id}"`).join(", ") + (ids.length > 3 ? ", ..." : "");
    throw new ConfigError(
      `--items: none of the ${pool.size} calibrated items (${few([...pool.keys()])}) is a sample of ` +
        `${task.name}'s data (${plan.samples.length} samples: ${few(plan.samples.map((s) => s.id))})`,
    );
  }
  const scorer = options.scorer ?? (task.scorers.length === 1 ? task.scorers[0].name : undefined);
  if (!scorer || !task.scorers.some((s) => s.name === scorer)) {
    throw new ConfigError(`--scorer: name one of ${task.scorers.map((s) => s.name).join(", ")}`);
  }
  const condition = baselineCondition(config.condition ?? "default");
  const store = await openRunStore(plan);
  try {
    const roles = new Roles(plan.roles, store, plan.retry);
    for (const s of task.scorers) s.prepare?.(plan.samples);
    const auxiliary = new Map([...plan.auxiliary].map(([name, a]) => [name, a.samples]));
    const solver = conditionSolver(condition, task);
    const session = new CatSession(usable, options, config.model);
    store.logEvent("cat", { options, pool: usable.size, scorer });
    for (let item = session.next(); item; item = session.next()) {
      const sample = samples.get(item)!;
      if (sample.conversation && sample.conversation.turn > 1) {
        throw new ConfigError(
          `--items: ${item} is a later turn of a conversation; adaptive tests ask single items`,
        );
      }
      const outcome = await evaluate({
        samples: [sample],
        solver,
        scorers: task.scorers,
        roles,
        judgeRuns: plan.judgeRuns,
        auxiliary,
        condition: condition.name,
        store,
      });
      const values = store.scores(condition.name).filter((s) =>
        s.sampleId === item && s.scorer === scorer && s.valid && typeof s.value === "number"
      ).map((s) => s.value as number);
      if (outcome.answerErrors + outcome.scoreFailures > 0 || values.length === 0) {
        throw new ConfigError(
          `item ${item} could not be answered or scored (see ${plan.storePath}); rerun with --resume to continue`,
        );
      }
      const value = values.reduce((a, b) => a + b, 0) / values.length;
      const right = options.threshold === undefined ? value === 1 : value >= options.threshold;
      session.record(item, right ? 1 : 0);
    }
    // A session asks one item at a time: git is asked for the manifest's code version once they are done.
    await recordCodeVersion(store);
    const stats = Object.values(roles.stats());
    return {
      person: catPerson(config.model, session),
      missing,
      calls: {
        sent: stats.reduce((s, c) => s + c.sent, 0),
        cached: stats.reduce((s, c) => s + c.cached, 0),
      },
    };
  } finally {
    await recordCodeVersion(store).catch(() => {});
    store.close();
  }
}
