/**
 * When a model's reply counts as refused: the rule behind every `refused` count and flag (the summaries' counts,
 * the outcome lines of a run, the viewer's "refused" filter), so that they all count the same replies.
 * @module
 */

/** What a reply reported, as far as refusal goes. */
export interface ReplyEnd {
  /** Why generation stopped (`stop`, `length`, `content_filter`, ...), if reported. */
  finishReason: string | null;
  /** The server's refusal text, if it gave one. */
  refusal?: string | null;
  /** The reply's text. */
  text: string | null;
}

/**
 * Returns whether a reply was refused: filtered (`finish_reason` `content_filter`), or given a refusal with no
 * content (empty once trimmed). A refusal beside a real answer is an answer. The run store counts the same rule
 * in SQL (`refusedSql` in lib/store/run_store.ts); tests hold the two equal.
 */
export function isRefused(reply: ReplyEnd): boolean {
  if (reply.finishReason === "content_filter") return true;
  return !!reply.refusal && (reply.text ?? "").trim() === "";
}
