/**
 * The evaluation loop shared by every benchmark: conversations run concurrently, the turns of one
 * conversation in order (each with the conversation as the model actually saw it), and every answer is scored
 * as soon as it exists. At most `window` conversations are under way at once (enough to keep every role's
 * requests in flight), so memory does not grow with the number of samples. All results go to the run store;
 * nothing is kept that the store does not hold.
 * @module
 */
import { contextCutTurnError, isContextError, isFinalAnswerError } from "../core/answer_errors.ts";
import type { ChatMessage } from "../core/chat.ts";
import type { StoredScore } from "../core/records.ts";
import { type Sample, toConversations } from "../core/sample.ts";
import type { RunView, ScoreContext, ScoreInput, Scorer, Solver } from "../core/task.ts";
import { redact } from "../providers/transport/redact.ts";
import { StopError } from "../providers/types.ts";
import type { Progress } from "../report/progress.ts";
import type { RunStore } from "../store/run_store.ts";
import type { Roles } from "./roles.ts";

/** Inputs of {@linkcode evaluate}. */
export interface EvaluateOptions {
  /** Samples to run (already stored in `store`). */
  samples: readonly Sample[];
  /** Prompt pipeline. */
  solver: Solver;
  /** Scorers applied to every answer. */
  scorers: readonly Scorer[];
  /** The run's roles (model under test, judges, translators, embeddings, ...). */
  roles: Roles;
  /** Judge runs per answer. */
  judgeRuns: number;
  /** The task's auxiliary inputs by name, validated. */
  auxiliary: ReadonlyMap<string, readonly Sample[]>;
  /** Condition name the results are stored under. */
  condition: string;
  /** Run store. */
  store: RunStore;
  /** Progress display (counts one unit per answer and one per score). */
  progress?: Progress;
  /** Conversations under way at once (default: all). */
  window?: number;
}

/** Counts of what {@linkcode evaluate} could not finish; a later `--resume` retries exactly these. */
export interface EvaluateResult {
  /** Answers that failed for good (provider errors after retries, or an earlier turn failed). */
  answerErrors: number;
  /** Scores that could not be computed because a call failed for good (not judge errors). */
  scoreFailures: number;
  /** Samples not asked because the run had to stop (0 for a run that went through). */
  notStarted: number;
  /** Why the loop stopped early, if it did. */
  stopped?: string;
}

/** Returns the progress units of one scorer on one sample's answer (e.g. judge runs × judges). */
function scorerUnits(
  scorer: Scorer,
  ctx: Pick<ScoreContext, "judgeRuns" | "members">,
  sample: Sample,
): number {
  return scorer.units?.(ctx, sample) ?? 1;
}

/** Returns the progress units of one sample: its answer and every scorer's scores. */
function sampleUnits(
  sample: Sample,
  scorers: readonly Scorer[],
  ctx: Pick<ScoreContext, "judgeRuns" | "members">,
): number {
  return 1 + scorers.reduce((sum, s) => sum + scorerUnits(s, ctx, sample), 0);
}

/** Returns the number of progress units {@linkcode evaluate} will count for `samples`. */
export function progressUnits(
  samples: readonly Sample[],
  scorers: readonly Scorer[],
  ctx: Pick<ScoreContext, "judgeRuns" | "members">,
): number {
  return samples.reduce((sum, sample) => sum + sampleUnits(sample, scorers, ctx), 0);
}

/** Runs every sample through the solver and the scorers, writing outputs and scores to the store. */
export async function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  const result: EvaluateResult = { answerErrors: 0, scoreFailures: 0, notStarted: 0 };
  const { progress, store, condition, roles, judgeRuns } = options;
  const unitCtx = { judgeRuns, members: (role: string) => roles.members(role) };
  // Samples whose answer error is their result (longer than the model's context): never asked again.
  const settled = new Set(
    store.outputStatus(condition).filter((o) => !o.answered && isFinalAnswerError(o.error)).map((o) =>
      o.sampleId
    ),
  );

  const runConversation = async (turns: Sample[]) => {
    const history: ChatMessage[] = [];
    const scoring: Promise<void>[] = [];
    for (let i = 0; i < turns.length; i++) {
      const sample = turns[i];
      if (settled.has(sample.id)) {
        progress?.tick(turns.slice(i).reduce((sum, s) => sum + sampleUnits(s, options.scorers, unitCtx), 0));
        break;
      }
      const ctx = roles.context(sample, judgeRuns, options.auxiliary, condition);
      try {
        const solved = await options.solver.solve({ sample, history: [...history] }, ctx);
        store.putOutput({
          sampleId: sample.id,
          condition,
          callKey: solved.callKey,
          text: solved.answer,
          error: null,
          detail: solved.detail ?? null,
        });
        progress?.tick();
        history.push(...solved.turn);
        scoring.push(
          scoreAnswer(
            options,
            ctx,
            { sample, answer: solved.answer, conversation: [...history], detail: solved.detail },
            result,
          ),
        );
      } catch (err) {
        if (err instanceof StopError) {
          // Not a failure: the run stops here and a resumed run asks this turn and the later ones.
          result.stopped ??= err.reason;
          const skipped = turns.slice(i);
          result.notStarted += skipped.length;
          progress?.tick(skipped.reduce((sum, s) => sum + sampleUnits(s, options.scorers, unitCtx), 0));
          break;
        }
        const message = redact(err instanceof Error ? err.message : String(err));
        // This turn and every later turn of the conversation cannot be answered: they need this answer.
        for (const [j, later] of turns.slice(i).entries()) {
          const turn = sample.conversation?.turn ?? 1;
          const error = j === 0
            ? message
            : isContextError(message)
            ? contextCutTurnError(turn)
            : `not asked: turn ${turn} failed`;
          store.putOutput({ sampleId: later.id, condition, callKey: null, text: null, error });
        }
        const skipped = turns.slice(i);
        // A context-limit error is the sample's result, not a failure a resumed run could repair.
        const final = isContextError(message);
        if (!final) result.answerErrors += skipped.length;
        progress?.tick(
          skipped.reduce((sum, s) => sum + sampleUnits(s, options.scorers, unitCtx), 0),
          !final,
        );
        break;
      }
    }
    await Promise.all(scoring);
  };

  const conversations = toConversations(options.samples);
  let next = 0;
  const worker = async () => {
    // A call refused by a spending limit (StopError) stops the loop: the conversations under way finish.
    while (next < conversations.length && result.stopped === undefined) {
      await runConversation(conversations[next++]);
    }
  };
  const workers = Math.max(1, Math.min(options.window ?? conversations.length, conversations.length));
  await Promise.all(Array.from({ length: workers }, worker));
  for (const turns of conversations.slice(next)) result.notStarted += turns.length;
  return result;
}

async function scoreAnswer(
  options: EvaluateOptions,
  ctx: ScoreContext,
  input: ScoreInput,
  result: EvaluateResult,
): Promise<void> {
  const { sample } = input;
  for (const scorer of options.scorers) {
    try {
      const values = await scorer.score(input, ctx);
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
      const units = scorerUnits(scorer, ctx, sample);
      if (err instanceof StopError) {
        result.stopped ??= err.reason;
        options.progress?.tick(units);
        continue;
      }
      result.scoreFailures += units;
      options.store.logEvent("score_failed", {
        sample: sample.id,
        condition: options.condition,
        scorer: scorer.name,
        error: redact(err instanceof Error ? err.message : String(err)),
      });
      options.progress?.tick(units, true);
    }
  }
}

/** Reads one condition of the run store into the shape aggregations take (answers' texts are not read). */
export function readRunView(store: RunStore, condition: string): RunView {
  const scores = new Map<string, StoredScore[]>();
  for (const score of store.scores(condition)) {
    const list = scores.get(score.sampleId);
    if (list) list.push(score);
    else scores.set(score.sampleId, [score]);
  }
  return {
    samples: store.samples(),
    outputs: new Map(store.outputStatus(condition).map((o) => [o.sampleId, o])),
    scores,
  };
}
