/**
 * Filtering and sorting a run's row index (one entry per sample) for the samples table: a filter is a scan of
 * plain arrays, so it stays well under the 200 ms goal on 100,000 samples; the table then shows the resulting
 * positions through a virtualised window.
 * @module
 */

/** Table flags the filters offer: name → bit (lib/view/bundle_format.ts `FLAG`) and label. */
export const FLAGS = {
  judgeError: { bit: 4, label: "judge error" },
  disagreement: { bit: 32, label: "judge–human disagreement" },
  extractionFailure: { bit: 8, label: "extraction failure" },
  truncated: { bit: 16, label: "truncated" },
  answerError: { bit: 2, label: "answer error" },
  refused: { bit: 64, label: "refused" },
  humanRated: { bit: 128, label: "human-rated" },
  notRun: { bit: 1, label: "not run" },
};

/**
 * Returns the filter a samples URL describes: `g.FIELD=KEY` (group), `smin`/`smax` (score range), `flag`
 * (repeatable, all must hold), `count=METRIC` (samples a metric counts), `m.METRIC=VALUE` (a metric value).
 */
export function filterFromParams(params) {
  const groups = {};
  const metricValues = {};
  for (const [key, value] of params) {
    if (key.startsWith("g.")) groups[key.slice(2)] = value;
    if (key.startsWith("m.")) metricValues[key.slice(2)] = Number(value);
  }
  const number = (
    name,
  ) => (params.get(name) === null || params.get(name) === "" ? null : Number(params.get(name)));
  return {
    groups,
    scoreMin: number("smin"),
    scoreMax: number("smax"),
    flags: params.getAll("flag").filter((f) => f in FLAGS),
    counts: params.get("count") || null,
    metricValues,
  };
}

/**
 * Returns the positions of the rows of `condition` that pass `filter`, in sample order; `only` (a Set of
 * positions, e.g. search hits) restricts them further.
 * @param {object} rows the row index
 * @param {string} condition
 * @param {ReturnType<typeof filterFromParams>} filter
 * @param {Set<number> | null} [only]
 * @returns {Int32Array}
 */
export function filterRows(rows, condition, filter, only = null) {
  const columns = rows.conditions[condition];
  const n = rows.ids.length;
  const tests = [];
  for (const [field, key] of Object.entries(filter.groups)) {
    const column = rows.fields[field];
    if (!column) return new Int32Array(0);
    const code = column.values.findIndex((v) => String(v) === key);
    const codes = column.codes;
    tests.push((i) => codes[i] === code);
  }
  if (columns && (filter.scoreMin !== null || filter.scoreMax !== null)) {
    const lo = filter.scoreMin ?? -Infinity, hi = filter.scoreMax ?? Infinity;
    const score = columns.score;
    tests.push((i) => score[i] !== null && score[i] >= lo && score[i] <= hi);
  }
  if (filter.flags.length) {
    const mask = filter.flags.reduce((m, f) => m | FLAGS[f].bit, 0);
    const flags = columns?.flags ?? [];
    tests.push((i) => (flags[i] & mask) === mask);
  }
  if (filter.counts) {
    const values = columns?.metrics[filter.counts];
    tests.push(values ? (i) => values[i] !== null : () => false);
  }
  for (const [metric, wanted] of Object.entries(filter.metricValues)) {
    const values = columns?.metrics[metric];
    tests.push(values ? (i) => values[i] === wanted : () => false);
  }
  const out = new Int32Array(only ? only.size : n);
  let count = 0;
  const candidates = only ? [...only].sort((a, b) => a - b) : null;
  const total = candidates ? candidates.length : n;
  outer: for (let k = 0; k < total; k++) {
    const i = candidates ? candidates[k] : k;
    for (const test of tests) if (!test(i)) continue outer;
    out[count++] = i;
  }
  return out.subarray(0, count);
}

/** Returns the value a table column shows for row `i` (used to sort). */
export function columnValue(rows, condition, column, i) {
  const columns = rows.conditions[condition];
  if (column === "id") return rows.ids[i];
  if (column === "score") return columns?.score[i] ?? null;
  if (column === "flags") return columns?.flags[i] ?? 0;
  if (column.startsWith("metric:")) return columns?.metrics[column.slice(7)]?.[i] ?? null;
  if (column.startsWith("verdict:")) {
    const coded = columns?.verdict[column.slice(8)];
    return coded && coded.codes[i] >= 0 ? coded.values[coded.codes[i]] : null;
  }
  if (column.startsWith("field:")) {
    const coded = rows.fields[column.slice(6)];
    return coded && coded.codes[i] >= 0 ? coded.values[coded.codes[i]] : null;
  }
  return null;
}

/** Returns `positions` sorted by `column` (missing values last), ascending or `descending`. */
export function sortRows(rows, condition, positions, column, descending) {
  const keys = new Array(rows.ids.length);
  for (const i of positions) keys[i] = columnValue(rows, condition, column, i);
  const sign = descending ? -1 : 1;
  const compare = (a, b) => {
    const x = keys[a], y = keys[b];
    if (x === null || y === null) return x === y ? a - b : x === null ? 1 : -1;
    if (x < y) return -sign;
    if (x > y) return sign;
    return a - b;
  };
  return Int32Array.from(positions).sort(compare);
}
