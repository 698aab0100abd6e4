/**
 * How the model under test's answers ended, from what the run store holds: truncated (`finish_reason`
 * `length`), refused (`content_filter`, or a `refusal` with no content), empty, or not given because the request
 * was longer than the model's context. Truncated, refused and empty answers are scored as given; context-limit
 * errors are answer errors, counted as failed samples.
 * @module
 */
import type { StoredCall } from "../core/records.ts";
import type { OutputOutcome } from "../store/run_store.ts";

/** Counts of the outcomes of one condition's answers. */
export interface AnswerOutcomes {
  /** Outputs stored (answers and answer errors). */
  outputs: number;
  /** Answers cut off at the token limit (`finish_reason: "length"`). */
  truncated: number;
  /** Answers refused or filtered (`finish_reason: "content_filter"`, or a `refusal` with empty content). */
  refused: number;
  /** Answers with no text that were not refused. */
  empty_answers: number;
  /** Answer errors of requests longer than the model's context. */
  context_errors: number;
}

/** Share of truncated answers above which a run warns to raise `--max-tokens`. */
export const TRUNCATION_WARNING_SHARE = 0.05;

/** Returns whether an answer error is a context-limit error (the provider's wording: "context length exceeded"). */
export function isContextError(error: string | null): boolean {
  return error !== null && /context length exceeded/i.test(error);
}

/** Returns whether a stored call was refused or filtered. */
export function isRefused(call: Pick<StoredCall, "finishReason" | "text" | "refusal">): boolean {
  return call.finishReason === "content_filter" || (!!call.refusal && call.text.trim() === "");
}

/** Counts the outcomes of a condition's outputs, each with what its call reported. */
export function answerOutcomes(outputs: readonly OutputOutcome[]): AnswerOutcomes {
  const counts: AnswerOutcomes = {
    outputs: outputs.length,
    truncated: 0,
    refused: 0,
    empty_answers: 0,
    context_errors: 0,
  };
  for (const output of outputs) {
    if (output.text === null) {
      if (isContextError(output.error)) counts.context_errors++;
      continue;
    }
    const { call } = output;
    const refused = call !== undefined && isRefused(call);
    if (call?.finishReason === "length") counts.truncated++;
    if (refused) counts.refused++;
    else if (output.text.trim() === "") counts.empty_answers++;
  }
  return counts;
}

function percent(part: number, whole: number): string {
  return whole ? `${(100 * part / whole).toFixed(1)}%` : "0.0%";
}

/** The summary note of `outcomes`, or `undefined` when every answer ended normally. */
export function outcomesNote(outcomes: AnswerOutcomes): string | undefined {
  const { outputs, truncated, refused, empty_answers, context_errors } = outcomes;
  if (truncated + refused + empty_answers + context_errors === 0) return undefined;
  return `model outputs: ${truncated} of ${outputs} truncated (${percent(truncated, outputs)}), ` +
    `${refused} refused (${percent(refused, outputs)}), ${empty_answers} empty (${
      percent(empty_answers, outputs)
    }), ` +
    `${context_errors} context-limit errors (${
      percent(context_errors, outputs)
    }); truncated, refused and empty ` +
    "answers are scored as given, context-limit errors count as failed";
}

/** The warning of a run whose model had more than 5% of its answers truncated, or `undefined`. */
export function truncationWarning(
  model: string,
  condition: string,
  outcomes: AnswerOutcomes,
): string | undefined {
  const { outputs, truncated } = outcomes;
  if (!outputs || truncated / outputs <= TRUNCATION_WARNING_SHARE) return undefined;
  return `${model} (${condition}): ${truncated} of ${outputs} answers truncated (${
    percent(truncated, outputs)
  }) ` +
    "at the token limit; raise --max-tokens";
}
