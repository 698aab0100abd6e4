/**
 * The runs page: every run of the bundle with its benchmark, model, judges, conditions, n, headline metrics
 * with their 95% CIs (each linking to the samples it counts), tokens and cost, truncation and error counts,
 * and its identity (data hash, prompt hashes, code version).
 * @module
 */
import { html } from "../vendor.js";
import { useReady } from "../components/async.js";
import { formatCost, formatCount, formatEstimate, shortHash } from "../format.js";
import { link } from "../route.js";

/** Counts of a summary shown as problems: count, label, and the samples-table flag that lists them. */
const PROBLEM_COUNTS = [
  ["truncated", "truncated", "truncated"],
  ["answer_errors", "answer errors", "answerError"],
  ["judge_errors", "judge errors", "judgeError"],
  ["extraction_failures", "extraction failures", "extractionFailure"],
  ["refused", "refused", "refused"],
  ["empty_answers", "empty answers", null],
  ["failed", "failed", null],
];

function Metrics({ run, summary }) {
  return html`<ul class="metrics">${
    run.metrics.slice(0, 3).map((metric) => {
      const estimate = summary.metrics[metric.name];
      return html`
        <li>
          <span class="metric-name">${metric.label}${metric.percent ? " (%)" : ""}</span>
          <a class="metric-value" href=${link("samples", {
            run: run.key,
            cond: summary.condition,
            count: metric.name,
          })}
          >${formatEstimate(estimate, metric.percent)}</a>
          <span class="n">n=${estimate?.n ?? 0}</span>
        </li>
      `;
    })
  }</ul>`;
}

function Problems({ run, summary }) {
  const present = PROBLEM_COUNTS.filter(([key]) => summary.counts[key] !== undefined);
  return html`<span class="problems">${
    present.map(([key, label, flag]) => {
      const text = `${label} ${summary.counts[key]}`;
      const href = link("samples", { run: run.key, cond: summary.condition, flag });
      return html`<span class=${summary.counts[key] ? "bad" : ""}>${
        flag ? html`<a href=${href}>${text}</a>` : text
      }</span>`;
    })
  }</span>`;
}

function Identity({ run }) {
  const prompts = Object.entries(run.identity.prompts);
  const code = run.identity.code;
  return html`
    <details class="identity">
      <summary>data ${shortHash(run.identity.dataSha256)} · ${prompts
        .length} prompt hashes · code ${shortHash(code.commit, 10)}${code.dirty ? " (changes)" : ""}</summary>
      <dl>
          <dt>data SHA-256</dt><dd><code>${run.identity.dataSha256 ?? "–"}</code> ${run.identity.dataPath ??
            ""}</dd>
          <dt>code</dt><dd><code>${code.commit ?? "–"}</code>${code.dirty
            ? " with uncommitted changes"
            : ""}</dd>
          <dt>created</dt><dd>${run.identity.createdAt ?? "–"} ${run.identity.runtime ?? ""}</dd>
          ${prompts.map(([name, hash]) =>
            html`
              <dt>prompt ${name}</dt>
              <dd><code>${hash}</code></dd>
            `
          )}
        </dl>
    </details>
  `;
}

function Usage({ run }) {
  const u = run.usage;
  return html`
    <span
      class="usage">${formatCount(u.calls)} calls · ${formatCount(u.promptTokens)} prompt + ${formatCount(
        u.completionTokens,
      )} completion tokens · cost ${formatCost(u.cost, u.currency)}</span>
  `;
}

/** One run: a header row, then one row per condition. */
function RunRows({ run }) {
  const summaries = run.summaries.length ? run.summaries : [null];
  return summaries.map((summary, i) =>
    html`<tr class=${i === 0 ? "run-first" : ""} data-run=${run.key}>
      ${
      i === 0
        ? html`
          <td rowspan=${summaries.length}>
                      <a href=${link("run", { run: run.key })}><strong>${run.dir}</strong></a><br />
                      <span class="benchmark">${run.benchmark}</span>${run.offline
                        ? html`
                          <span class="offline">OFFLINE</span>
                        `
                        : ""}
                    </td>
          <td rowspan=${summaries.length}>${run.model}</td>
          <td rowspan=${summaries.length}>${run.judges.join(" + ") || "–"}</td>
        `
        : null
    }
      <td>${summary?.condition ?? "–"}</td>
      <td class="num"><a href=${link("samples", { run: run.key, cond: summary?.condition })}>${
      summary?.n ?? run.samples
    }</a></td>
      <td>${summary ? html`<${Metrics} run=${run} summary=${summary} />` : "no summary"}</td>
      <td>${summary ? html`<${Problems} run=${run} summary=${summary} />` : ""}</td>
      ${
      i === 0
        ? html`
          <td rowspan=${summaries.length}>
            <${Usage} run=${run} />
            <${Identity} run=${run} />
          </td>
        `
        : null
    }
    </tr>`
  );
}

/** The runs page. */
export function RunsPage({ meta }) {
  useReady(true);
  return html`
    <section class="runs">
      <h1>Runs</h1>
      <table class="runs-table">
        <thead>
          <tr>
            <th>run</th>
            <th>model</th>
            <th>judge(s)</th>
            <th>condition</th>
            <th>n</th>
            <th>headline metrics [95% CI]</th>
            <th>truncation and errors</th>
            <th>cost, tokens, identity</th>
          </tr>
        </thead>
        <tbody>${meta.runs.map((run) => html`<${RunRows} key=${run.key} run=${run} />`)}</tbody>
      </table>
      <p class="note">Every value links to the samples it counts. Intervals: ${meta.runs[0]?.summaries[0]
        ?.ci_method ?? "95% CI"}.</p>
    </section>
  `;
}
