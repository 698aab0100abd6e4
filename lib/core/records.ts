/**
 * What the run store holds, as plain records: calls (every role's requests and replies), outputs (the answer
 * a solver gave for a sample in a condition) and scores (one per scorer, judge and repeat).
 * @module
 */
import type { ChatMessage, TokenUsage } from "./chat.ts";

/** A finished call as stored. */
export interface StoredCall {
  /** Content address: hash of model, parameters, messages and repeat number. */
  key: string;
  /** The role that made it: `model` (the system under test), `judge`, `translator`, `embed`, ... */
  role: string;
  /** Model name. */
  model: string;
  /** The messages and parameters sent. */
  request: { messages: ChatMessage[]; params: Record<string, unknown> };
  /** Reply text (an embedding is stored as its JSON vector). */
  text: string;
  /** Why generation stopped, if reported. */
  finishReason: string | null;
  /** Token usage, if reported. */
  usage: TokenUsage | null;
  /** The server's refusal text, if given; absent in stores of earlier versions. */
  refusal?: string | null;
  /** Reasoning the server gave apart from the answer, if any (never part of `text`); absent in earlier stores. */
  reasoning?: string | null;
  /** Attempts it took (1 = no retry). */
  attempts: number;
  /** Wall time of the successful attempt, in milliseconds. */
  latencyMs: number;
  /** ISO time it finished. */
  createdAt: string;
  /**
   * Where it was served, when the provider says: an endpoint of a pool (`host/path`) or a batch
   * (`batch:<id>`). `null`/absent for single endpoints and offline stand-ins.
   */
  endpoint?: string | null;
  /** The condition whose sample first needed it (cost accounting); absent in stores of earlier versions. */
  condition?: string | null;
}

/** The answer of the model under test to one sample in one condition. */
export interface StoredOutput {
  /** Sample id. */
  sampleId: string;
  /** Experimental condition, e.g. `default`, `cot`. */
  condition: string;
  /** The model call that produced it (`null` if it failed). */
  callKey: string | null;
  /** Answer text (`null` if it failed). */
  text: string | null;
  /** Error message when the call failed for good. */
  error: string | null;
  /** What the solver chose for this sample (few-shot exemplars, a role); `null` when nothing. */
  detail?: Record<string, unknown> | null;
}

/** Whether a sample was answered in a condition, without the answer's text (what aggregations need). */
export interface OutputStatus {
  /** Sample id. */
  sampleId: string;
  /** `true` when an answer is stored. */
  answered: boolean;
  /** Error message when it failed for good. */
  error: string | null;
}

/** A named value a score reports: a number (means, rates) or a category (distributions); `null` = none. */
export type NamedValue = number | string | null;

/** One score of one sample by one scorer, judge (or rater) and repeat. */
export interface StoredScore {
  /** Sample id. */
  sampleId: string;
  /** Experimental condition. */
  condition: string;
  /** Scorer name, e.g. `judge`, `metric`, `human:experts`. */
  scorer: string;
  /** The judge model or human rater behind it; `null` for scorers without one. */
  judge: string | null;
  /** Repeat number (1-based) for repeated judging; 1 otherwise. */
  run: number;
  /** The scorer's primary value, or `null` when no valid score could be obtained. */
  value: number | null;
  /** Every value the scorer reports by name (a rubric's fields), or `null` when it reports one. */
  values: Record<string, NamedValue> | null;
  /** `false` for judge errors: they are never counted as scores. */
  valid: boolean;
  /** Judge's reason or scorer's note. */
  reason: string | null;
  /** The last call behind this score, if any. */
  callKey: string | null;
  /** Scorer-specific detail (JSON), e.g. the judge's whole parsed verdict. */
  detail: unknown;
}

/** How the outputs of a condition ended, as `RunStore.outputOutcomeCounts` counts them. */
export interface OutputOutcomeCounts {
  /** Outputs stored (answers and answer errors). */
  outputs: number;
  /** Answers whose call ended at the token limit (`finish_reason` `length`). */
  truncated: number;
  /**
   * Answers whose call was refused: `finish_reason` `content_filter`, or a `refusal` with a reply that is empty
   * once trimmed.
   */
  refused: number;
  /** Answers not refused whose text is empty once trimmed. */
  empty_answers: number;
  /** The error of every answer that failed (for the caller to sort). */
  errors: string[];
}
