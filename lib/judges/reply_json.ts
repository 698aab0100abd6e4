/**
 * Finding the JSON object a judge was asked to return inside its reply: the whole reply, a fenced code block,
 * or a balanced `{…}` after the judge's reasoning (callers strip `<think>…</think>` first: `afterReasoning`).
 * @module
 */

/** Returns the balanced `{…}` spans of `text`, in order (strings and escapes respected). */
function objectSpans(text: string): string[] {
  const spans: string[] = [];
  let depth = 0, start = -1, inString = false, escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === "{") {
      if (depth === 0) start = i;
      depth++;
    } else if (c === "}" && depth > 0) {
      depth--;
      if (depth === 0) spans.push(text.slice(start, i + 1));
    }
  }
  return spans;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Returns the JSON object of a judge's reply: the whole reply if it is one, else the last fenced block that is
 * one, else the last balanced `{…}` that parses; `undefined` when there is none.
 */
export function jsonObjectIn(reply: string): Record<string, unknown> | undefined {
  const text = reply.trim();
  const whole = parseObject(text);
  if (whole) return whole;
  const fenced = [...text.matchAll(/```(?:json)?\s*([\s\S]*?)```/gi)].map((m) => m[1].trim()).reverse();
  for (const block of fenced) {
    const value = parseObject(block);
    if (value) return value;
  }
  for (const span of objectSpans(text).reverse()) {
    const value = parseObject(span);
    if (value) return value;
  }
  return undefined;
}
