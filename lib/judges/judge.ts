/**
 * Judges grade an answer against a rubric. An LLM judge is a provider plus a prompt builder plus the score
 * parser; an offline judge computes a score without a model and is labelled as such.
 * @module
 */
import type { Sample } from "../core/sample.ts";
import type { Caller } from "../providers/caller.ts";
import type { ChatMessage } from "../providers/types.ts";
import { parseJudgeReply } from "./parse_score.ts";

/** What a judge says about one answer in one run. */
export interface Verdict {
  /** Score on the judge's scale, or `null` for a judge error (never counted as a score). */
  score: number | null;
  /** The reason given, or the error. */
  reason: string;
  /** Key of the last judge call, if a model was called. */
  callKey: string | null;
  /** Judge calls made for this verdict (retries after unreadable replies included). */
  attempts: number;
  /** How the score was read (`json`, `text`, `offline`), or `error`. */
  method: string;
}

/** Anything that grades an answer to a sample. */
export interface Judge {
  /** Name shown in manifests and tables. */
  readonly label: string;
  /** `true` when no LLM is involved; results must then be labelled as offline. */
  readonly offline: boolean;
  /** Grades `answer` to `sample` in judge run `run` (1-based). */
  grade(sample: Sample, answer: string, run: number): Promise<Verdict>;
}

/** Options of {@linkcode LlmJudge}. */
export interface LlmJudgeOptions {
  /** Builds the judge's messages for a sample and an answer. */
  buildPrompt: (sample: Sample, answer: string) => ChatMessage[];
  /** Score scale (default 1–5). */
  scale?: { min: number; max: number };
  /** Judge calls per verdict before giving up on unreadable replies (default 3). */
  maxAttempts?: number;
  /** Seed of run 1; run r uses `seed + r - 1` so repeated runs are distinct but reproducible (default 0). */
  seed?: number;
  /** Judge sampling temperature (default: server default). */
  temperature?: number;
  /** Upper bound on judge tokens (default 1024). */
  maxTokens?: number;
  /** Ask for JSON mode (default `true`; servers that refuse it are asked again without it). */
  jsonMode?: boolean;
}

/** A judge backed by a chat model reached through a {@linkcode Caller} (so its calls are stored and resumable). */
export class LlmJudge implements Judge {
  /** Always `false`. */
  readonly offline = false;
  /** The judge model's label. */
  readonly label: string;

  /** Wraps `caller` (role `judge`) with the prompt builder and parsing options. */
  constructor(readonly caller: Caller, readonly options: LlmJudgeOptions) {
    this.label = caller.provider.label;
  }

  /**
   * Asks the judge; an unreadable reply is asked again (a distinct call: new repeat number and seed) up to
   * `maxAttempts` times, then returned as a judge error with `score: null`. Provider failures propagate.
   */
  async grade(sample: Sample, answer: string, run: number): Promise<Verdict> {
    const { min, max } = this.options.scale ?? { min: 1, max: 5 };
    const maxAttempts = this.options.maxAttempts ?? 3;
    const messages = this.options.buildPrompt(sample, answer);
    let lastKey: string | null = null;
    let lastText = "";
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const { call } = await this.caller.call({
        messages,
        temperature: this.options.temperature,
        maxTokens: this.options.maxTokens ?? 1024,
        seed: (this.options.seed ?? 0) + (run - 1) + 1000 * (attempt - 1),
        jsonMode: this.options.jsonMode ?? true,
      }, run * 100 + attempt);
      lastKey = call.key;
      lastText = call.text;
      const parsed = parseJudgeReply(call.text, min, max);
      if (parsed) {
        return {
          score: parsed.score,
          reason: parsed.reason,
          callKey: call.key,
          attempts: attempt,
          method: parsed.method,
        };
      }
    }
    return {
      score: null,
      reason: `no valid ${min}-${max} score in ${maxAttempts} replies; last: ${lastText.slice(0, 200)}`,
      callKey: lastKey,
      attempts: maxAttempts,
      method: "error",
    };
  }
}
