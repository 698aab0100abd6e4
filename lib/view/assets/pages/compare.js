/**
 * Compare: two runs, or two conditions of one run, on the items both answered. Per group, the two means, the
 * paired difference with its bootstrap 95% CI and McNemar's exact test (computed when the bundle was
 * written, as the eval's ablation tables are); the items that flipped, each linking to the two transcripts
 * side by side. Every cell links to the pairs it counts.
 * @module
 */
import { html } from "../vendor.js";
import { useAsync, useReady } from "../components/async.js";
import { loadChunk } from "../chunks.js";
import { formatEstimate, formatP, formatValue, groupLabel, sideLabel } from "../format.js";
import { positionOf } from "../sample_data.js";
import { link, withParams } from "../route.js";

/** Returns the comparison of the route, or `undefined`. */
function comparisonOf(meta, route) {
  return meta.comparisons[Number(route.params.get("c") ?? 0)];
}

/**
 * Returns the pairs of a comparison: `{ id, a, b, key }` for every sample both sides have a value for, `key`
 * being its group under `field` in side a's run.
 */
export async function pairsOf(comparison, field) {
  const [rowsA, rowsB] = await Promise.all([
    loadChunk(`${comparison.a.run}/rows`),
    loadChunk(`${comparison.b.run}/rows`),
  ]);
  const valuesA = rowsA.conditions[comparison.a.condition]?.metrics[comparison.metric] ?? [];
  const valuesB = rowsB.conditions[comparison.b.condition]?.metrics[comparison.metric] ?? [];
  const column = field ? rowsA.fields[field] : null;
  const pairs = [];
  rowsA.ids.forEach((id, i) => {
    const j = positionOf(rowsB, id);
    if (j === undefined || valuesA[i] === null || valuesA[i] === undefined || valuesB[j] === null) return;
    const key = column && column.codes[i] >= 0 ? String(column.values[column.codes[i]]) : null;
    pairs.push({ id, a: valuesA[i], b: valuesB[j], key });
  });
  return pairs;
}

function CellLink({ route, field, gkey, children }) {
  return html`<a href=${withParams(route, { field, gkey, show: "all" })}>${children}</a>`;
}

function McNemarLine({ cell }) {
  if (!cell.mcnemar) return html`<span class="mcnemar">McNemar: not a 0/1 metric</span>`;
  const m = cell.mcnemar;
  return html`<span class="mcnemar">McNemar b = ${m.b}, c = ${m.c}, p = ${formatP(m.p)}</span>`;
}

function GroupRows({ run, comparison, field, route }) {
  const percent = comparison.percent;
  return (comparison.groups[field] ?? []).map((cell) => {
    // Every cell links to the pairs of its group.
    const linked = (content) =>
      html`<${CellLink} route=${route} field=${field} gkey=${cell.key}>${content}<//>`;
    const cells = [
      formatValue(cell.a, percent),
      formatValue(cell.b, percent),
      formatEstimate(cell.diff, percent),
      cell.mcnemar ? `${cell.mcnemar.b}/${cell.mcnemar.c}` : "–",
      cell.mcnemar ? formatP(cell.mcnemar.p) : "–",
    ];
    return html`<tr>
      <td>${linked(groupLabel(run, field, cell.key))}</td>
      <td class="num">${linked(cell.diff.n)}</td>
      ${cells.map((text) => html`<td class="num">${linked(text)}</td>`)}
    </tr>`;
  });
}

function PairList({ meta, comparison, pairs, route, index }) {
  const gkey = route.params.get("gkey");
  const inGroup = pairs.filter((p) => gkey === null || p.key === gkey);
  const onlyA = inGroup.filter((p) => p.a > p.b);
  const onlyB = inGroup.filter((p) => p.a < p.b);
  const item = (p) =>
    html`<li><a href=${link("pair", { c: index, id: p.id })}>${p.id}</a> <span class="muted">${
      formatValue(p.a, false, 2)
    } → ${formatValue(p.b, false, 2)}</span></li>`;
  const a = sideLabel(meta, comparison.a), b = sideLabel(meta, comparison.b);
  return html`<div class="flipped" data-flipped=${onlyA.length + onlyB.length}>
    <h2>Items that flipped${gkey !== null ? ` (${route.params.get("field")} = ${gkey})` : ""}: ${
    onlyA.length + onlyB.length
  } of ${inGroup.length} pairs</h2>
    <div class="columns">
      <div><h3>higher under ${a} (b = ${onlyA.length})</h3><ul class="flip-a">${
    onlyA.slice(0, 500).map(item)
  }</ul></div>
      <div><h3>higher under ${b} (c = ${onlyB.length})</h3><ul class="flip-b">${
    onlyB.slice(0, 500).map(item)
  }</ul></div>
    </div>
    ${
    route.params.get("show") === "all"
      ? html`
        <h3>all ${inGroup.length} pairs</h3>
        <ul class="all-pairs">${inGroup.slice(0, 2000).map(item)}</ul>
      `
      : html`<p><a href=${withParams(route, { show: "all" })}>show all ${inGroup.length} pairs</a></p>`
  }
  </div>`;
}

/** The compare page (`#/compare?c=INDEX&field=FIELD&gkey=KEY`). */
export function ComparePage({ meta, route }) {
  const index = Number(route.params.get("c") ?? 0);
  const comparison = comparisonOf(meta, route);
  const fields = comparison ? Object.keys(comparison.groups) : [];
  const field = route.params.get("field") ?? fields[0] ?? null;
  const pairs = useAsync(
    () => (comparison ? pairsOf(comparison, field) : []),
    [index, field],
  );
  useReady(!comparison || pairs.value !== undefined);
  if (!comparison) {
    return html`
      <section>
        <h1>Compare</h1>
        <p>Nothing to compare: give two runs of one benchmark, or a run with an ablation.</p>
      </section>
    `;
  }
  const run = meta.runs.find((r) => r.key === comparison.a.run);
  const all = comparison.all;
  const percent = comparison.percent;
  return html`<section class="compare-page">
    <h1>Compare</h1>
    <label>comparison <select name="c" onChange=${(
    e,
  ) => (location.hash = link("compare", { c: e.target.value }))}>${
    meta.comparisons.map((c, i) =>
      html`<option value=${i} selected=${i === index}>${sideLabel(meta, c.b)} vs ${
        sideLabel(meta, c.a)
      } (${c.metric})</option>`
    )
  }</select></label>
    <p class="summary-line">${[
    html`<b>${sideLabel(meta, comparison.b)}</b>`,
    " vs ",
    html`<b>${sideLabel(meta, comparison.a)}</b>`,
    `, ${comparison.metric}${percent ? " (%)" : ""}: ${formatValue(all.b, percent)} vs ${
      formatValue(all.a, percent)
    } over `,
    html`<a href=${withParams(route, { gkey: null, show: "all" })}>${all.diff.n} pairs</a>`,
    `; difference ${formatEstimate(all.diff, percent)}; `,
    html`<${McNemarLine} cell=${all} />`,
  ]}</p>
    <p>by ${
    fields.map((f) =>
      html`
        <a class=${f === field ? "chip on" : "chip"} href=${withParams(route, {
          field: f,
          gkey: null,
        })}>${f}</a>
      `
    )
  }</p>
    ${
    field
      ? html`
        <table class="compare-table">
          <thead>
            <tr>
              <th>${field}</th>
              <th>pairs</th>
              <th>${sideLabel(meta, comparison.a)}</th>
              <th>${sideLabel(meta, comparison.b)}</th>
              <th>difference [95% CI]</th>
              <th>McNemar b/c</th>
              <th>McNemar p</th>
            </tr>
          </thead>
          <tbody>
            <${GroupRows} run=${run} comparison=${comparison} field=${field} route=${route} />
          </tbody>
        </table>
      `
      : null
  }
    <p class="note">${
    `difference = ${sideLabel(meta, comparison.b)} − ${sideLabel(meta, comparison.a)} over the same items, ` +
    "paired percentile bootstrap (2000 resamples, seeded); McNemar's exact test for 0/1 metrics: " +
    `b = higher under ${sideLabel(meta, comparison.a)} only, c = higher under ${
      sideLabel(meta, comparison.b)
    } only.`
  }</p>
    ${
    pairs.value
      ? html`<${PairList} meta=${meta} comparison=${comparison} pairs=${pairs.value} route=${route} index=${index} />`
      : html`<p>loading pairs …</p>`
  }
  </section>`;
}
