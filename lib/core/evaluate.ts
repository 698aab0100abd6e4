/**
 * The evaluation loop shared by every benchmark: conversations run concurrently, the turns of one
 * conversation in order (each with the model's own earlier answers), and every answer is scored as soon as it
 * exists. All results go to the run store; nothing is returned that the store does not hold.
 * @module
 */
import type { Judge } from "../judges/judge.ts";
import type { Caller } from "../providers/caller.ts";
import { redact } from "../providers/redact.ts";
import type { ChatMessage, GenerationParams } from "../providers/types.ts";
import type { Progress } from "../report/progress.ts";
import type { RunStore, StoredScore } from "../store/run_store.ts";
import { type Sample, toConversations } from "./sample.ts";
import type { Embedder, RunView, Scorer, Solver } from "./task.ts";

/** Inputs of {@linkcode evaluate}. */
export interface EvaluateOptions {
  /** Samples to run (already stored in `store`). */
  samples: readonly Sample[];
  /** Prompt pipeline. */
  solver: Solver;
  /** Scorers applied to every answer. */
  scorers: readonly Scorer[];
  /** Caller of the model under test (role `model`). */
  model: Caller;
  /** Generation parameters of the model under test. */
  generation: GenerationParams;
  /** Judge, for judge-scored benchmarks. */
  judge?: Judge;
  /** Judge runs per answer. */
  judgeRuns: number;
  /** Embeddings model for similarity scorers, if configured. */
  embedder?: Embedder;
  /** Condition name the results are stored under. */
  condition: string;
  /** Run store. */
  store: RunStore;
  /** Progress display (counts one unit per answer and one per score). */
  progress?: Progress;
}

/** Counts of what {@linkcode evaluate} could not finish; a later `--resume` retries exactly these. */
export interface EvaluateResult {
  /** Answers that failed for good (provider errors after retries, or an earlier turn failed). */
  answerErrors: number;
  /** Scores that could not be computed because a judge call failed for good (not judge errors). */
  scoreFailures: number;
}

/** Returns the progress units of one scorer on one answer: one per judge run for judge scorers, else one. */
function scorerUnits(scorer: Scorer, judgeRuns: number): number {
  return scorer.needsJudge ? judgeRuns : 1;
}

/** Returns the progress units of scoring one answer with every scorer. */
function scoreUnitsPerSample(scorers: readonly Scorer[], judgeRuns: number): number {
  return scorers.reduce((sum, s) => sum + scorerUnits(s, judgeRuns), 0);
}

/** Returns the number of progress units {@linkcode evaluate} will count for `samples`. */
export function progressUnits(
  samples: readonly Sample[],
  scorers: readonly Scorer[],
  judgeRuns: number,
): number {
  return samples.length * (1 + scoreUnitsPerSample(scorers, judgeRuns));
}

/** Runs every sample through solver, model and scorers, writing outputs and scores to the store. */
export async function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  const result: EvaluateResult = { answerErrors: 0, scoreFailures: 0 };
  const scoring: Promise<void>[] = [];
  const { progress, store, condition } = options;
  const scoreUnits = scoreUnitsPerSample(options.scorers, options.judgeRuns);

  const runConversation = async (turns: Sample[]) => {
    const history: ChatMessage[] = [];
    for (let i = 0; i < turns.length; i++) {
      const sample = turns[i];
      const messages = options.solver.build(sample, history);
      try {
        const { call } = await options.model.call({ ...options.generation, messages, sample });
        store.putOutput({ sampleId: sample.id, condition, callKey: call.key, text: call.text, error: null });
        progress?.tick();
        history.push({ role: "user", content: sample.input }, { role: "assistant", content: call.text });
        scoring.push(scoreAnswer(options, sample, call.text, result));
      } catch (err) {
        const message = redact(err instanceof Error ? err.message : String(err));
        // This turn and every later turn of the conversation cannot be answered: they need this answer.
        for (const [j, later] of turns.slice(i).entries()) {
          const error = j === 0 ? message : `not asked: turn ${sample.conversation?.turn ?? 1} failed`;
          store.putOutput({ sampleId: later.id, condition, callKey: null, text: null, error });
        }
        const skipped = turns.length - i;
        result.answerErrors += skipped;
        progress?.tick(skipped * (1 + scoreUnits), true);
        return;
      }
    }
  };

  await Promise.all(toConversations(options.samples).map(runConversation));
  await Promise.all(scoring);
  return result;
}

async function scoreAnswer(
  options: EvaluateOptions,
  sample: Sample,
  answer: string,
  result: EvaluateResult,
): Promise<void> {
  for (const scorer of options.scorers) {
    try {
      const values = await scorer.score({
        sample,
        answer,
        judge: options.judge,
        judgeRuns: options.judgeRuns,
        embedder: options.embedder,
      });
      for (const value of values) {
        options.store.putScore({
          ...value,
          sampleId: sample.id,
          condition: options.condition,
          scorer: scorer.name,
        });
      }
      options.progress?.tick(values.length);
    } catch (err) {
      const units = scorerUnits(scorer, options.judgeRuns);
      result.scoreFailures += units;
      options.store.logEvent("score_failed", {
        sample: sample.id,
        scorer: scorer.name,
        error: redact(err instanceof Error ? err.message : String(err)),
      });
      options.progress?.tick(units, true);
    }
  }
}

/** Reads one condition of the run store into the shape aggregations take. */
export function readRunView(store: RunStore, condition: string): RunView {
  const scores = new Map<string, StoredScore[]>();
  for (const score of store.scores(condition)) {
    const list = scores.get(score.sampleId);
    if (list) list.push(score);
    else scores.set(score.sampleId, [score]);
  }
  return {
    samples: store.samples(),
    outputs: new Map(store.outputs(condition).map((o) => [o.sampleId, o])),
    scores,
  };
}
