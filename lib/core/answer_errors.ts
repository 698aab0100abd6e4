/**
 * Answer errors that are outcomes, not interruptions: a request longer than the model's context can never
 * succeed, so its error is the sample's final result (counted in n as the benchmark counts a failed answer,
 * never retried by `--resume`), as is every later turn of a conversation cut by one. Any other answer error
 * (a server down, a key refused) leaves the sample failed and the run incomplete.
 * @module
 */

/** Returns whether an answer error is a context-limit error (the provider's wording: "context length exceeded"). */
export function isContextError(error: string | null): boolean {
  return error !== null && /context length exceeded/i.test(error);
}

/** The error stored for a later turn of a conversation whose turn `turn` exceeded the model's context. */
export function contextCutTurnError(turn: number): string {
  return `not asked: turn ${turn} exceeded the model's context`;
}

/** Returns whether an answer error is final (a context-limit error, or a turn after one), not a failure. */
export function isFinalAnswerError(error: string | null): boolean {
  return isContextError(error) ||
    (error !== null && /^not asked: turn \d+ exceeded the model's context$/.test(error));
}
