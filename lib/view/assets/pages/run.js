/**
 * One run: for a chosen condition, the benchmark's tables — one per group field (category, ICD-11, question
 * type, difficulty, scenario, …), every metric with its 95% CI and n, each cell linking to the samples it
 * counts — the raters' agreement and the juries when there are any, the summary's notes, and the run's
 * figures drawn with Plotly.
 * @module
 */
import { html } from "../vendor.js";
import { useReady } from "../components/async.js";
import { Figure } from "../components/figure.js";
import { formatEstimate, groupLabel } from "../format.js";
import { link, withParams } from "../route.js";

function GroupTable({ run, summary, field }) {
  const groups = summary.groups[field] ?? {};
  const keys = (run.groupOrder[field] ?? Object.keys(groups)).filter((k) => groups[k]);
  const metrics = run.metrics.filter((m) => keys.some((k) => groups[k][m.name]));
  const samples = (extra) => link("samples", { run: run.key, cond: summary.condition, ...extra });
  return html`
    <table class="group-table" data-field=${field}>
      <caption>${summary.benchmark}: by ${field}</caption>
      <thead>
        <tr><th>${field}</th>${metrics.map((m) =>
          html`
            <th>${m.label}${m.percent ? " (%)" : ""}</th>
            <th>n</th>
          `
        )}</tr>
      </thead>
      <tbody>
          ${keys.map((key) =>
            html`<tr>
        <td><a href=${samples({ [`g.${field}`]: key })}>${groupLabel(run, field, key)}</a></td>
        ${
              metrics.map((m) => {
                const estimate = groups[key][m.name];
                const href = samples({ [`g.${field}`]: key, count: m.name });
                return html`
                  <td class="num"><a href=${href}>${formatEstimate(estimate, m.percent)}</a></td>
                  <td class="num"><a href=${href}>${estimate?.n ?? 0}</a></td>
                `;
              })
            }
      </tr>`
          )}
          <tr class="total"><td><a href=${samples({})}>all</a></td>${metrics.map((m) => {
            const href = samples({ count: m.name });
            return html`
              <td class="num"><a href=${href}>${formatEstimate(summary.metrics[m.name], m.percent)}</a></td>
              <td class="num"><a href=${href}>${summary.metrics[m.name]?.n ?? 0}</a></td>
            `;
          })}</tr>
        </tbody>
    </table>
  `;
}

/** The raters' agreement; each cell links to the human-rated samples it is computed on. */
function AgreementTable({ run, summary }) {
  if (!summary.agreement?.length) return null;
  const rated = link("samples", { run: run.key, cond: summary.condition, flag: "humanRated" });
  return html`
    <table class="agreement">
      <caption>raters' agreement (judge vs humans, humans vs each other)</caption>
      <thead>
        <tr>
          <th>field</th>
          <th>rater a</th>
          <th>rater b</th>
          <th>agreement (%)</th>
          <th>Cohen's κ</th>
          <th>weighted κ</th>
        </tr>
      </thead>
      <tbody>${summary.agreement.map((a) =>
        html`
          <tr>
            <td>${a.field}</td>
            <td>${a.a}</td>
            <td>${a.b}</td>
            <td class="num"><a href=${rated}>${formatEstimate(a.percent, true)}</a></td>
            <td class="num"><a href=${rated}>${formatEstimate(a.kappa, false)}</a></td>
            <td class="num"><a href=${rated}>${formatEstimate(a.weighted_kappa, false)}</a></td>
          </tr>
        `
      )}</tbody>
    </table>
  `;
}

/** Each jury's judges; each cell links to the samples of the condition. */
function JuryTables({ run, summary }) {
  const samples = link("samples", { run: run.key, cond: summary.condition });
  return (summary.juries ?? []).map((jury) =>
    html`
      <table class="jury">
        <caption>jury of ${jury.scorer} (${jury.aggregate}); Krippendorff's α ${formatEstimate(
          jury.agreement.alpha,
          false,
          3,
        )}</caption>
        <thead>
          <tr><th>judge</th>${Object.keys(Object.values(jury.by_judge)[0] ?? {}).map((m) =>
            html`<th>${m}</th>`
          )}</tr>
        </thead>
        <tbody>${Object.entries(jury.by_judge).map(([judge, metrics]) =>
          html`<tr><td>${judge}</td>${
            Object.values(metrics).map((e) =>
              html`<td class="num"><a href=${samples}>${formatEstimate(e, false)}</a></td>`
            )
          }</tr>`
        )}</tbody>
      </table>
    `
  );
}

/** The page of one run (`#/run?run=r0&cond=…`). */
export function RunPage({ meta, route }) {
  const run = meta.runs.find((r) => r.key === route.params.get("run")) ?? meta.runs[0];
  const condition = route.params.get("cond") ?? run.conditions[0];
  const summary = run.summaries.find((s) => s.condition === condition) ?? run.summaries[0];
  useReady(true);
  if (!summary) return html`<p>${run.dir} has no summary yet.</p>`;
  return html`<section class="run">
    <h1>${run.dir} <small>${run.benchmark} · ${run.model}${run.offline ? " · OFFLINE" : ""}</small></h1>
    <p>
      condition: ${
    run.summaries.map((s) =>
      html`
        <a class=${s.condition === summary.condition ? "chip on" : "chip"} href=${withParams(route, {
          cond: s.condition,
        })}>${s.condition}</a>
      `
    )
  }
      · <a href=${link("samples", { run: run.key, cond: summary.condition })}>samples</a>
    </p>
    ${
    Object.keys(summary.groups).map((field) =>
      html`<${GroupTable} run=${run} summary=${summary} field=${field} />`
    )
  }
    <${AgreementTable} run=${run} summary=${summary} />
    <${JuryTables} run=${run} summary=${summary} />
    <ul class="notes">${summary.notes.map((n) => html`<li>${n}</li>`)}</ul>
    <h2>Figures</h2>
    ${
    run.figures.length
      ? run.figures.map((f) => html`<${Figure} key=${f.name} run=${run} figure=${f} />`)
      : html`<p>none written</p>`
  }
  </section>`;
}
