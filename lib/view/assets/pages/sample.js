/**
 * One sample: its question, reference and benchmark data, then the same item under each condition of the run
 * side by side — the conversation as sent, the answer, each judge's verdict and rationale per repeat, the
 * human ratings and the calls.
 * @module
 */
import { html } from "../vendor.js";
import { useAsync, useReady } from "../components/async.js";
import { ConditionResult } from "../components/transcript.js";
import { loadSample } from "../sample_data.js";
import { groupLabel } from "../format.js";
import { link } from "../route.js";

/** The sample's question, reference, group fields and benchmark data. */
export function SampleHeader({ run, sample }) {
  const extra = Object.entries(sample.extra ?? {});
  return html`<div class="sample-head">
    <p class="fields">${
    Object.entries(sample.fields).map(([k, v]) =>
      html`
        <span class="kv"><b>${k}</b> ${v === null ? "–" : groupLabel(run, k, v)}</span>
      `
    )
  }${
    sample.conversation
      ? html`<span class="kv"><b>conversation</b> ${sample.conversation.id}, turn ${sample.conversation.turn}</span>`
      : null
  }</p>
    <h3>input</h3><div dir="auto" class="text question">${sample.input}</div>
    ${
    sample.reference !== null
      ? html`
        <h3>reference</h3>
        <div dir="auto" class="text reference">${sample.reference}</div>
      `
      : null
  }
    ${
    extra.length
      ? html`<details><summary>benchmark data (${extra.map(([k]) => k).join(", ")})</summary>${
        extra.map(([k, v]) =>
          html`
            <h4>${k}</h4>
            <pre>${typeof v === "string" ? v : JSON.stringify(v, null, 2)}</pre>
          `
        )
      }</details>`
      : null
  }
  </div>`;
}

/** The sample page (`#/sample?run=r0&id=…&cond=…`). */
export function SamplePage({ meta, route }) {
  const run = meta.runs.find((r) => r.key === route.params.get("run")) ?? meta.runs[0];
  const id = route.params.get("id");
  const data = useAsync(() => loadSample(run, id), [run.key, id]);
  useReady(data.value !== undefined);
  if (data.error) return html`<p class="error">${String(data.error)}</p>`;
  if (data.value === undefined) return html`<p>loading ${id} …</p>`;
  if (data.value === null) return html`<p class="error">${run.dir} has no sample ${id}</p>`;
  const { sample, results } = data.value;
  const wanted = route.params.get("cond");
  const conditions = [...new Set([...run.conditions, ...Object.keys(results)])];
  const ordered = wanted ? [wanted, ...conditions.filter((c) => c !== wanted)] : conditions;
  return html`
    <section class="sample-page">
      <h1>${sample.id} <small>${run.dir} · ${run.model}</small></h1>
      <p><a href=${link("samples", { run: run.key, cond: wanted })}>← samples</a></p>
      <${SampleHeader} run=${run} sample=${sample} />
      <div class=${ordered.length > 1 ? "conditions multi" : "conditions"}>${ordered.map((condition) =>
        html`
          <div class="condition" data-condition=${condition}>
            <h2>${condition}</h2>
            <${ConditionResult} result=${results[condition]} />
          </div>
        `
      )}</div>
    </section>
  `;
}
