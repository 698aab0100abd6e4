/**
 * One sample's data: its record from the sample chunk of its position, and its results (every condition's
 * answer, conversation as sent, scores and calls) from the results chunk the row index names.
 * @module
 */
import { loadChunk } from "./chunks.js";

const positions = new WeakMap();

/** Returns the position of sample `id` in `rows`, or `undefined`. */
export function positionOf(rows, id) {
  if (!positions.has(rows)) positions.set(rows, new Map(rows.ids.map((x, i) => [x, i])));
  return positions.get(rows).get(id);
}

/** Returns the stored sample at `position` of `run`. */
export async function sampleAt(run, position) {
  const chunk = await loadChunk(`${run.key}/s${Math.floor(position / run.chunks.size)}`);
  return chunk.samples[position - chunk.start];
}

/** Returns the results of the sample at `position` of `run`, by condition (empty when it was never asked). */
export async function resultsAt(run, rows, position) {
  const chunk = await loadChunk(`${run.key}/o${rows.resultChunk[position]}`);
  return chunk.results[rows.ids[position]] ?? {};
}

/** Returns the row index, sample and results of sample `id` of `run` (`null` when the run has no such sample). */
export async function loadSample(run, id) {
  const rows = await loadChunk(`${run.key}/rows`);
  const position = positionOf(rows, id);
  if (position === undefined) return null;
  const [sample, results] = await Promise.all([sampleAt(run, position), resultsAt(run, rows, position)]);
  return { rows, position, sample, results };
}
