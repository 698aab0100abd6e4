/**
 * What a chat completion's first choice says besides its text: a refusal, the reasoning that reasoning parsers
 * (vLLM, SGLang) and DeepSeek's API put apart from the answer, and whether a missing content is an answer.
 * @module
 */

/** The parts of a choice this reads (as the OpenAI client or a batch output line gives them). */
export interface ChoiceLike {
  message?: {
    content?: string | null;
    refusal?: string | null;
    reasoning_content?: unknown;
    reasoning?: unknown;
  } | null;
  finish_reason?: string | null;
}

/** A choice read into an answer: its text (empty when refused or filtered), refusal and reasoning. */
export interface ReadChoice {
  /** The answer text; `""` for a filtered or refused reply without content. */
  text: string;
  /** The server's `refusal` text, if given. */
  refusal?: string;
  /** The reasoning text (`reasoning_content` or `reasoning`), if given and not empty. */
  reasoning?: string;
}

/**
 * Returns the answer of `choice`, or `undefined` when it has no content and is neither a refusal nor filtered
 * (a malformed reply, worth another attempt).
 */
export function readChoice(choice: ChoiceLike | undefined): ReadChoice | undefined {
  const message = choice?.message;
  if (!message) return undefined;
  const refusal = typeof message.refusal === "string" && message.refusal ? message.refusal : undefined;
  const content = message.content;
  if (typeof content !== "string" && refusal === undefined && choice?.finish_reason !== "content_filter") {
    return undefined;
  }
  const reasoning = [message.reasoning_content, message.reasoning].find((r): r is string =>
    typeof r === "string" && r.length > 0
  );
  return {
    text: typeof content === "string" ? content : "",
    ...(refusal !== undefined ? { refusal } : {}),
    ...(reasoning !== undefined ? { reasoning } : {}),
  };
}
