/**
 * Differences between two texts marked word by word (jsdiff over Intl.Segmenter words, so Chinese and
 * Persian are split where their words are): the left text with what only it has struck through, the right
 * text with what only it has highlighted.
 * @module
 */
import { diffArrays, html } from "../vendor.js";

const SEGMENTS = new Intl.Segmenter(undefined, { granularity: "word" });

/** Returns `text` cut into words, spaces and punctuation (joined, they give `text` back). */
export function segments(text) {
  return [...SEGMENTS.segment(text)].map((s) => s.segment);
}

/** Returns `[left, right]`: the two texts as preact nodes, differences marked; `null`s when they are equal. */
export function markDifferences(left, right) {
  if (left === right) return [null, null];
  const parts = diffArrays(segments(left ?? ""), segments(right ?? ""));
  const a = [], b = [];
  for (const part of parts) {
    const text = part.value.join("");
    if (part.added) b.push(html`<ins>${text}</ins>`);
    else if (part.removed) a.push(html`<del>${text}</del>`);
    else {
      a.push(text);
      b.push(text);
    }
  }
  return [a, b];
}
