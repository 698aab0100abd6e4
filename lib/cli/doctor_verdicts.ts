/**
 * The verdict checks `deno task doctor --benchmark B` sends a judge: per judge scorer of B, the scorer's own
 * prompt for a sample of B's shipped data, and the scorer's own reader of the reply (lib/providers/doctor/
 * verdict_check.ts sends them and says what was read).
 * @module
 */
import { getTask } from "../benchmarks/registry.ts";
import type { ChatMessage } from "../core/chat.ts";
import { ConfigError } from "../core/errors.ts";
import { projectPath } from "../core/fs.ts";
import type { Sample } from "../core/sample.ts";
import type { Task } from "../core/task.ts";
import {
  DEFAULT_JUDGE_MAX_TOKENS,
  isJudgeScorer,
  type JudgeScorer,
  validVerdict,
} from "../judges/judge_scorer.ts";
import { roleDefault } from "../pipeline/role_keys.ts";
import type { VerdictCheck, VerdictRead } from "../providers/doctor/verdict_check.ts";
import { robustnessSamples, robustnessSources, variantOf } from "../robustness/sets.ts";

/** Parses `--role-opt`: only `judge.max-tokens=N` (N >= 1), the last one given; `undefined` when none is. */
export function judgeMaxTokensFlag(values: readonly string[] | undefined): number | undefined {
  let limit: number | undefined;
  for (const value of values ?? []) {
    const n = Number(value.match(/^judge\.max-tokens=(\d+)$/)?.[1]);
    if (!Number.isSafeInteger(n) || n < 1) {
      throw new ConfigError(
        `--role-opt: doctor takes judge.max-tokens=N only (N >= 1, the judge's token limit), got "${value}"`,
      );
    }
    limit = n;
  }
  return limit;
}

/** The answer judged for a sample without a reference answer: short, plausible, cautious. */
const STAND_IN_ANSWER =
  "This needs a doctor's examination: please see one soon, and at once if it gets worse.";

/** Returns the answer a verdict check judges for `sample`: its reference answer, else the stand-in. */
function answerOf(sample: Sample): string {
  return sample.reference ?? STAND_IN_ANSWER;
}

/** Returns the conversation up to and including `sample`'s turn, each turn answered by {@linkcode answerOf}. */
function conversationOf(sample: Sample, samples: readonly Sample[]): ChatMessage[] {
  const at = sample.conversation;
  const turns = at
    ? samples.filter((s) => s.conversation?.id === at.id && s.conversation.turn <= at.turn)
      .sort((a, b) => a.conversation!.turn - b.conversation!.turn)
    : [sample];
  return turns.flatMap((turn): ChatMessage[] => [
    { role: "user", content: turn.input },
    { role: "assistant", content: answerOf(turn) },
  ]);
}

/** One robustness variant (set C: punctuation errors, made without a rephraser), for judges of variants only. */
function oneVariant(task: Task, samples: readonly Sample[]): Sample[] {
  if (!task.robustness) return [];
  const sources = robustnessSources(task.robustness, samples).slice(0, 1);
  return robustnessSamples(sources, { sets: ["C"], variants: 1, seed: "doctor" });
}

/** What the robustness solver records for a variant's answer (the clean answer taken as the same). */
function detailOf(sample: Sample, answer: string): Record<string, unknown> | undefined {
  const info = variantOf(sample);
  if (!info) return undefined;
  const { set, index, source } = info;
  return { robustness: { set, index, question: sample.input, original: source.input, clean_answer: answer } };
}

/** Returns a reader of replies as a run's judge scorer reads them ({@linkcode validVerdict}), with its values. */
function verdictReader(spec: JudgeScorer["spec"]): (reply: string) => VerdictRead | undefined {
  return (reply) => {
    const verdict = validVerdict(spec, reply);
    if (verdict === null) return undefined;
    const values = Object.entries(spec.values ?? {}).map(([name, pick]) => [name, pick(verdict)]);
    return { value: spec.value(verdict), values: Object.fromEntries(values) };
  };
}

/** Samples a scorer's prompts are built for, the shortest kept: enough to find a short one. */
const CANDIDATE_SAMPLES = 20;

/** Characters of a request's messages. */
function promptLength(messages: readonly ChatMessage[]): number {
  return messages.reduce((total, m) => total + m.content.length, 0);
}

/**
 * Returns the verdict checks of `benchmark` (any name eval takes): per judge scorer of the judge role, its own
 * prompt for a sample of the shipped data it judges (the shortest of the first {@linkcode CANDIDATE_SAMPLES}),
 * with the sample's reference answer as the answer judged, the scorer's token limit (`maxTokens` when given),
 * the judge's seed and the scorer's JSON mode. Sends nothing.
 */
export async function verdictChecks(
  benchmark: string,
  maxTokens: number | undefined,
): Promise<VerdictCheck[]> {
  const task = await getTask(benchmark).catch((err) => {
    throw err instanceof ConfigError ? new ConfigError(`--benchmark: ${err.message}`) : err;
  });
  const scorers = task.scorers.filter(isJudgeScorer).filter((scorer) => scorer.roles.includes("judge"));
  if (!scorers.length) {
    throw new ConfigError(
      `--benchmark ${benchmark}: it has no judge scorer, so there is no verdict to check`,
    );
  }
  const samples = await task.load(projectPath(task.defaultDataPath));
  const pool = [...samples, ...oneVariant(task, samples)];
  const checks = scorers.flatMap(({ name, spec }): VerdictCheck[] => {
    const prompts = pool.filter((s) => spec.applies?.(s) ?? true).slice(0, CANDIDATE_SAMPLES).map(
      (sample) => {
        const answer = answerOf(sample);
        const messages = spec.prompt(
          sample,
          answer,
          conversationOf(sample, samples),
          detailOf(sample, answer),
        );
        return { sample, messages };
      },
    );
    if (!prompts.length) return [];
    const { sample, messages } = prompts.reduce((a, b) =>
      promptLength(b.messages) < promptLength(a.messages) ? b : a
    );
    return [{
      benchmark: task.name,
      scorer: name,
      expects: spec.expects,
      sample: sample.id,
      messages,
      maxTokens: maxTokens ?? spec.maxTokens ?? DEFAULT_JUDGE_MAX_TOKENS,
      seed: roleDefault("judge", "seed") ?? 0,
      jsonMode: spec.jsonMode ?? true,
      read: verdictReader(spec),
    }];
  });
  // A check list left empty would report the judge usable without having asked it anything.
  if (!checks.length) {
    throw new ConfigError(
      `--benchmark ${benchmark}: none of its shipped samples is one its judge scorers judge, so there is no ` +
        "verdict to check",
    );
  }
  return checks;
}
