/**
 * How numbers are shown: estimates as `61.2 [55.1, 67.0]` (rates in %), p-values, tokens, cost, labels of
 * groups and conditions.
 * @module
 */

/** Returns `value` scaled (×100 for a rate) with `digits` decimals, or `–`. */
export function formatValue(value, percent, digits = 1) {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  return (percent ? value * 100 : value).toFixed(digits);
}

/** Returns an estimate as `value [lo, hi]`, or `–` without data. */
export function formatEstimate(estimate, percent, digits = percent ? 1 : 2) {
  if (!estimate || estimate.value === null) return "–";
  const f = (v) => formatValue(v, percent, digits);
  return estimate.ci95
    ? `${f(estimate.value)} [${f(estimate.ci95[0])}, ${f(estimate.ci95[1])}]`
    : f(estimate.value);
}

/** Returns a p-value with three significant digits. */
export function formatP(p) {
  return p === null || p === undefined ? "–" : p < 0.001 ? p.toExponential(2) : p.toPrecision(3);
}

/** Returns an integer with thousands separators, or `unknown`. */
export function formatCount(n) {
  return n === null || n === undefined ? "unknown" : n.toLocaleString("en-US");
}

/** Returns a cost in its currency, or `unknown`. */
export function formatCost(cost, currency) {
  return cost === null || cost === undefined ? "unknown" : `${cost.toFixed(cost < 1 ? 4 : 2)} ${currency}`;
}

/** Returns the display name of group `key` of `field` in `run`. */
export function groupLabel(run, field, key) {
  return run.groupLabels[field]?.[key] ?? String(key);
}

/**
 * Returns a side of a comparison as `model · condition`, naming the run's folder instead of the model when
 * two runs of the benchmark have the same model.
 */
export function sideLabel(meta, side) {
  const run = meta.runs.find((r) => r.key === side.run);
  const twins = meta.runs.filter((r) => r.benchmark === run.benchmark && r.model === run.model).length > 1;
  const name = twins ? run.dir.replace(/\/+$/, "").split("/").pop() : run.model;
  return `${name}${side.condition === run.conditions[0] ? "" : ` · ${side.condition}`}`;
}

/** Returns the first `n` characters of a hash. */
export function shortHash(hash, n = 12) {
  return hash ? hash.slice(0, n) : "–";
}
