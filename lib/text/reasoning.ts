/**
 * Model replies with visible reasoning (`<think>…</think>`): only what follows the reasoning is the answer.
 * @module
 */

/**
 * Returns what follows the last `</think>` (servers may strip the opening tag); a reply whose reasoning never
 * closes was cut off before any answer and gives `""`. Replies without reasoning are returned as they are.
 */
export function afterReasoning(text: string): string {
  const close = text.toLowerCase().lastIndexOf("</think>");
  if (close >= 0) return text.slice(close + "</think>".length);
  return /<think>/i.test(text) ? "" : text;
}
