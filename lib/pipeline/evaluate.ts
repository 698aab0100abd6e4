/**
 * The evaluation loop shared by every benchmark: conversations run concurrently, the turns of one
 * conversation in order (each with the conversation as the model actually saw it), and every answer is scored
 * as soon as it exists. At most `window` conversations are under way at once (enough to keep every role's
 * requests in flight), so the conversations' memory (prompts, answers, calls) does not grow with the number of
 * samples; and the garbage those leave is collected at checkpoints ({@linkcode collectGarbage}). All results go
 * to the run store; nothing is kept that the store does not hold. The condition under way, when it is new to
 * the store, is also held in memory as it is written (each answer's status and each score's row, not answers'
 * texts: `RunStore.holdView`; that grows with its samples), so that its aggregation does not read it back. A
 * resumed run replays every call from the store but writes and scores again only answers whose scores are not
 * all stored.
 * @module
 */
import { contextCutTurnError, isContextError, isFinalAnswerError } from "../core/answer_errors.ts";
import type { ChatMessage } from "../core/chat.ts";
import type { OutputStatus, StoredScore } from "../core/records.ts";
import { type Sample, toConversations } from "../core/sample.ts";
import type { RunView, ScoreContext, ScoreInput, Scorer, Solver } from "../core/task.ts";
import { redact } from "../providers/transport/redact.ts";
import { StopError } from "../providers/types.ts";
import type { Progress } from "../report/progress.ts";
import type { OutputScores, RunStore } from "../store/run_store.ts";
import type { Roles } from "./roles.ts";
import { SampleRowsAhead } from "./sample_rows.ts";

/**
 * How far the heap may grow past what was in use after the last collection before a checkpoint collects it.
 * Checkpoints are taken between a run's phases, where a phase has just left its garbage (every score read, every
 * row built); while calls are in flight V8 collects on its own, incrementally (the tasks cap its heap growth with
 * `--heap-growing-percent`, docs/scale.md), since a full collection there holds every answer that comes in.
 */
export const HEAP_SLACK_BYTES = 48 * 2 ** 20;
/**
 * Heap in use below which a checkpoint never collects: below it the garbage makes no peak worth the pause of a
 * full collection at the end of a run (at 33,735 one-call samples the heap there is ~75–92 MB, and collecting it
 * took ~120 ms of the tail for ~25 MB less peak RSS, 231 MB against 200; at 100,000 it is ~170 MB and is
 * collected, which keeps that run's peak under 350 MB).
 */
export const HEAP_FLOOR_BYTES = 128 * 2 ** 20;
/** The limits a checkpoint collects at: {@linkcode HEAP_SLACK_BYTES} and {@linkcode HEAP_FLOOR_BYTES}. */
const HEAP_LIMITS = { slack: HEAP_SLACK_BYTES, floor: HEAP_FLOOR_BYTES };
/**
 * How long after a run's first requests are made its background preparations begin (loading V8's full
 * collection, and in `executeEval` spawning the log export's worker and asking git for the code version): by
 * then those requests are on the wire. Each preparation holds this thread for a few to ~20 ms; begun earlier,
 * they would hold back the requests, which are sent only when this thread yields.
 */
export const BACKGROUND_DELAY_MS = 50;

/**
 * Runs `task` {@linkcode BACKGROUND_DELAY_MS} after the current task of the event loop (and its microtasks) has
 * ended, rather than after it began: a task that starts a run's conversations makes their first requests in its
 * microtasks, however long their preparation takes (tens of milliseconds at 33,735 samples), and they go on the
 * wire only once it has ended. Returns what cancels it.
 */
export function afterCurrentTask(task: () => void): () => void {
  let timer = setTimeout(() => {
    timer = setTimeout(task, BACKGROUND_DELAY_MS);
  }, 0);
  return () => clearTimeout(timer);
}

/** V8's full collection, once {@linkcode loadCollector} has exposed it. */
let fullCollection: (() => void) | undefined;
/** The loading of {@linkcode fullCollection}, once started. */
let collectorLoaded: Promise<void> | undefined;

/**
 * Exposes V8's full collection at run time (`--expose-gc` set, `gc` taken from a new context). Loaded in the
 * background, {@linkcode BACKGROUND_DELAY_MS} after a run's first requests are made (node:vm takes a while), so
 * that it never delays them; until then, or where it cannot be exposed, checkpoints collect nothing.
 */
export function loadCollector(): Promise<void> {
  collectorLoaded ??= Promise.all([import("node:v8"), import("node:vm")]).then(([v8, vm]) => {
    v8.default.setFlagsFromString("--expose-gc");
    const gc = vm.default.runInNewContext("gc");
    if (typeof gc === "function") fullCollection = () => gc();
  }).catch(() => {});
  return collectorLoaded;
}

/** Heap in use right after the last checkpoint's collection (0 before any). */
let heapAfterCollection = 0;

/**
 * A memory checkpoint: collects garbage when the heap in use has grown by more than {@linkcode HEAP_SLACK_BYTES}
 * since the last collection made here and is at least {@linkcode HEAP_FLOOR_BYTES} (a small run never
 * collects). Called between a run's phases, never while calls are in flight (a full collection at 33,735 samples
 * held the thread ~50 ms, and the answers that came in meanwhile); collects nothing until
 * {@linkcode loadCollector} is done. `limits` (for tests) replace the two.
 */
export function collectGarbage(limits: { slack: number; floor: number } = HEAP_LIMITS): void {
  if (!fullCollection) return;
  const inUse = Deno.memoryUsage().heapUsed;
  if (inUse < limits.floor || inUse - heapAfterCollection <= limits.slack) return;
  fullCollection();
  heapAfterCollection = Deno.memoryUsage().heapUsed;
}

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
  /**
   * Where to write the condition's `samples.jsonl` rows while it is evaluated, when the store holds it (a
   * condition new to the store): see lib/pipeline/sample_rows.ts. Without it, the rows are read afterwards.
   */
  rowsAhead?: string;
  /**
   * Background work of the run, begun with loading the full collection {@linkcode BACKGROUND_DELAY_MS} after
   * the first requests are made ({@linkcode afterCurrentTask}); not at all when the evaluation ends first.
   */
  background?: () => void;
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
  /** The condition's complete `samples.jsonl`, written as it was evaluated (at `rowsAhead`), if it was. */
  rowsFile?: string;
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

/** The task {@linkcode nextTurn} resolves in, while one is awaited. */
let turn: Promise<void> | undefined;

/**
 * Resolves in a timer task of the event loop, later than the task that asks (one timer serves every caller).
 * Deno puts the requests a task started on the wire when its thread yields: measured against the fake server,
 * work deferred this way no longer holds back the calls that a burst of answers freed up.
 */
function nextTurn(): Promise<void> {
  return turn ??= new Promise((resolve) =>
    setTimeout(() => {
      turn = undefined;
      resolve();
    }, 0)
  );
}

/** Runs every sample through the solver and the scorers, writing outputs and scores to the store. */
export async function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  const result: EvaluateResult = { answerErrors: 0, scoreFailures: 0, notStarted: 0 };
  const { progress, store, condition, roles, judgeRuns } = options;
  const unitCtx = { judgeRuns, members: (role: string) => roles.members(role) };
  // What a resumed run finds stored: samples whose answer error is their result (longer than the model's
  // context), never asked again; and answers with their score counts, not written or scored again when the
  // same call answers them and every score they owe is there.
  const settled = new Set<string>();
  const answered = new Map<string, OutputScores>();
  // A condition new to the store is held in memory as it is written, for its aggregation, and its rows of
  // samples.jsonl are written as its samples are done (such a condition has nothing stored to settle or replay).
  const rows = store.holdView(condition) && options.rowsAhead
    ? SampleRowsAhead.start(options.rowsAhead, condition, [...store.eachSample()], options.samples)
    : undefined;
  for (const output of store.outputScores(condition)) {
    if (output.answered) answered.set(output.sampleId, output);
    else if (isFinalAnswerError(output.error)) settled.add(output.sampleId);
  }
  const alreadyScored = (sample: Sample, callKey: string | null | undefined) => {
    const stored = answered.get(sample.id);
    answered.delete(sample.id);
    return !!stored && !!callKey && stored.callKey === callKey &&
      options.scorers.every((s) => (stored.scores[s.name] ?? 0) >= scorerUnits(s, unitCtx, sample));
  };

  // Returns once the conversation's answers are in (or it failed), with the scoring each answer owes, not begun.
  const runConversation = async (turns: Sample[]): Promise<(() => Promise<void>)[]> => {
    const history: ChatMessage[] = [];
    const scoring: (() => Promise<void>)[] = [];
    for (let i = 0; i < turns.length; i++) {
      const sample = turns[i];
      if (settled.has(sample.id)) {
        progress?.tick(turns.slice(i).reduce((sum, s) => sum + sampleUnits(s, options.scorers, unitCtx), 0));
        break;
      }
      const ctx = roles.context(sample, judgeRuns, options.auxiliary, condition);
      try {
        const solved = await options.solver.solve({ sample, history: [...history] }, ctx);
        if (alreadyScored(sample, solved.callKey)) {
          // Replayed from the store: the stored answer and its scores are this answer's.
          progress?.tick(sampleUnits(sample, options.scorers, unitCtx));
          history.push(...solved.turn);
          continue;
        }
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
        const input = { sample, answer: solved.answer, conversation: [...history], detail: solved.detail };
        const output = { text: solved.answer, error: null, detail: solved.detail ?? null };
        scoring.push(async () => {
          const stored: StoredScore[] = [];
          await scoreAnswer(options, ctx, input, result, stored);
          rows?.done(sample.id, output, stored);
        });
      } catch (err) {
        if (err instanceof StopError) {
          // Not a failure: the run stops here and a resumed run asks this turn and the later ones.
          result.stopped ??= err.reason;
          const skipped = turns.slice(i);
          result.notStarted += skipped.length;
          for (const s of skipped) rows?.done(s.id, undefined, []);
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
          rows?.done(later.id, { text: null, error, detail: null }, []);
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
    return scoring;
  };

  const conversations = toConversations(options.samples);
  let next = 0;
  const worker = async () => {
    // The scoring of this worker's last scored conversation, under way while it runs the next one.
    let scoring: Promise<unknown> | undefined;
    try {
      // A call refused by a spending limit (StopError) stops the loop: the conversations under way finish.
      while (next < conversations.length && result.stopped === undefined) {
        const sentBefore = roles.sent();
        const owed = await runConversation(conversations[next++]);
        if (owed.length === 0) continue;
        // Answers come in bursts, and the calls they free up are sent only when this thread yields: scoring and
        // the next conversation wait for a later task of the event loop, so that they never hold those back (a
        // replay from the store, which sends nothing, does not wait).
        if (roles.sent() > sentBefore) await nextTurn();
        await scoring;
        scoring = Promise.all(owed.map((score) => score()));
        // Awaited after the next conversation: not an unhandled failure meanwhile.
        scoring.catch(() => {});
      }
    } catch (err) {
      // Nothing of this worker's is left writing to the store once evaluate has failed.
      await scoring?.catch(() => {});
      throw err;
    }
    await scoring;
  };
  const workers = Math.max(1, Math.min(options.window ?? conversations.length, conversations.length));
  const running = Promise.all(Array.from({ length: workers }, worker));
  const cancelBackground = afterCurrentTask(() => {
    loadCollector();
    options.background?.();
  });
  try {
    await running;
  } catch (err) {
    rows?.discard();
    throw err;
  } finally {
    cancelBackground();
  }
  for (const turns of conversations.slice(next)) {
    result.notStarted += turns.length;
    for (const s of turns) rows?.done(s.id, undefined, []);
  }
  if (rows?.finish(store.holds(condition))) result.rowsFile = rows.path;
  return result;
}

async function scoreAnswer(
  options: EvaluateOptions,
  ctx: ScoreContext,
  input: ScoreInput,
  result: EvaluateResult,
  stored?: StoredScore[],
): Promise<void> {
  const { sample } = input;
  for (const scorer of options.scorers) {
    try {
      const values = await scorer.score(input, ctx);
      for (const value of values) {
        const score = { ...value, sampleId: sample.id, condition: options.condition, scorer: scorer.name };
        options.store.putScore(score);
        stored?.push(score);
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
  // What this process's run wrote of the condition, held as it was written: the same, without reading it back.
  const held = store.takeHeldView(condition);
  if (held) return { samples: store.samples(), outputs: held.outputs, scores: held.scores };
  const scores = new Map<string, StoredScore[]>();
  for (const score of store.eachScoreOf(condition)) {
    const list = scores.get(score.sampleId);
    if (list) list.push(score);
    else scores.set(score.sampleId, [score]);
  }
  const outputs = new Map<string, OutputStatus>();
  for (const output of store.outputStatus(condition)) outputs.set(output.sampleId, output);
  return { samples: store.samples(), outputs, scores };
}
