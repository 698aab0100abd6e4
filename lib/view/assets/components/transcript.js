/**
 * How one sample's result in one condition is shown: the conversation as sent to the model (system prompt,
 * few-shot turns, translated turns — the model call's own messages), the answer, each judge's verdict and
 * rationale per repeat, the human ratings, and the calls with latency, tokens, retries and endpoint.
 * @module
 */
import { html } from "../vendor.js";
import { formatValue } from "../format.js";

/** Returns whether `scorer` holds human ratings. */
export function isHuman(scorer) {
  return scorer.startsWith("human:");
}

/** A message's text; `marked` (from the diff) replaces it with marked parts. */
function Text({ text, marked }) {
  return html`<div dir="auto" class="text">${marked ?? text}</div>`;
}

/** The messages sent, in order; `marks[i]` optionally holds message i's text with differences marked. */
export function Conversation({ messages, marks = [] }) {
  if (!messages?.length) return html`<p class="muted">no model call stored</p>`;
  return html`<ol class="conversation">${
    messages.map((m, i) =>
      html`
        <li
          class=${`message role-${m.role}`}><span class="role">${m.role}</span><${Text} text=${m
            .content} marked=${marks[i]} /></li>
      `
    )
  }</ol>`;
}

/** The answer (or why there is none). */
export function Answer({ result, marked }) {
  if (!result) return html`<p class="muted">not asked in this condition</p>`;
  if (result.answer === null) return html`<p class="error">no answer: ${result.error ?? "not run"}</p>`;
  return html`<div class="answer"><span class="role">answer</span><${Text} text=${result.answer} marked=${marked} /></div>`;
}

function NamedValues({ values }) {
  if (!values) return null;
  return html`<span class="named">${
    Object.entries(values).map(([k, v]) =>
      html`
        <span class="kv"><b>${k}</b> ${String(v ?? "–")}</span>
      `
    )
  }</span>`;
}

/** The parsed verdict a judge returned, field by field (its rationale included), when the score keeps it. */
function Verdict({ detail }) {
  const verdict = detail && typeof detail === "object" ? detail.verdict : null;
  if (!verdict || typeof verdict !== "object") return null;
  return html`
    <details class="verdict">
      <summary>verdict as parsed</summary>
      <dl>${Object.entries(verdict).map(([k, v]) =>
        html`
          <dt>${k}</dt>
          <dd>${typeof v === "string" ? v : JSON.stringify(v)}</dd>
        `
      )}</dl>
    </details>
  `;
}

/** Each judge's (or scorer's) verdicts, one row per repeat, with value, named values and rationale. */
export function JudgeScores({ scores }) {
  const judged = scores.filter((s) => !isHuman(s.scorer));
  if (!judged.length) return html`<p class="muted">no scores</p>`;
  return html`
    <table class="scores">
      <thead>
        <tr>
          <th>scorer</th>
          <th>judge</th>
          <th>repeat</th>
          <th>value</th>
          <th>verdict fields</th>
          <th>rationale</th>
        </tr>
      </thead>
      <tbody>${judged.map((s) =>
        html`
          <tr class=${s.valid ? "" : "invalid"}>
            <td>${s.scorer}</td>
            <td>${s.judge ?? "–"}</td>
            <td class="num">${s.run}</td>
            <td class="num">${s.valid
              ? formatValue(s.value, false, 2)
              : html`<span class="flag">judge error</span>`}</td>
            <td>
              <${NamedValues} values=${s.values} />
            </td>
            <td class="rationale">${s.reason ?? ""}<${Verdict} detail=${s.detail} /></td>
          </tr>
        `
      )}</tbody>
    </table>
  `;
}

/** The human ratings of the sample, one row per rater. */
export function HumanRatings({ scores }) {
  const rated = scores.filter((s) => isHuman(s.scorer));
  if (!rated.length) return null;
  return html`
    <table class="ratings">
      <caption>human ratings</caption>
      <thead>
        <tr>
          <th>ratings</th>
          <th>rater</th>
          <th>value</th>
          <th>fields</th>
          <th>note</th>
        </tr>
      </thead>
      <tbody>${rated.map((s) =>
        html`
          <tr>
            <td>${s.scorer}</td>
            <td>${s.judge ?? "–"}</td>
            <td class="num">${formatValue(s.value, false, 2)}</td>
            <td>
              <${NamedValues} values=${s.values} />
            </td>
            <td>${s.reason ?? ""}</td>
          </tr>
        `
      )}</tbody>
    </table>
  `;
}

/** The calls behind the answer and the scores. */
export function Calls({ result }) {
  const calls = [result.call, ...result.scoreCalls].filter(Boolean);
  if (!calls.length) return null;
  return html`
    <table class="calls">
      <caption>calls</caption>
      <thead>
        <tr>
          <th>role</th>
          <th>model</th>
          <th>latency (ms)</th>
          <th>prompt tokens</th>
          <th>completion tokens</th>
          <th>retries</th>
          <th>endpoint</th>
          <th>finish</th>
        </tr>
      </thead>
      <tbody>${calls.map((c) =>
        html`
          <tr>
            <td>${c.role}</td>
            <td>${c.model}</td>
            <td class="num">${Math.round(c.latencyMs)}</td>
            <td class="num">${c.usage?.prompt ?? "–"}</td>
            <td class="num">${c.usage?.completion ?? "–"}</td>
            <td class="num">${c.attempts - 1}</td>
            <td>${c.endpoint ?? "–"}</td>
            <td>${c.finishReason ?? "–"}</td>
          </tr>
        `
      )}</tbody>
    </table>
  `;
}

/** Everything of one condition: conversation, answer, reply details, scores, ratings and calls. */
export function ConditionResult({ result }) {
  if (!result) return html`<p class="muted">not asked in this condition</p>`;
  return html`<div class="condition-result">
    <h3>conversation as sent</h3>
    <${Conversation} messages=${result.call?.messages} />
    <${Answer} result=${result} />
    ${
    result.call?.text
      ? html`
        <details>
          <summary>model reply as received</summary>
          <pre>${result.call.text}</pre>
        </details>
      `
      : null
  }
    ${
    result.call?.reasoning
      ? html`
        <details>
          <summary>reasoning</summary>
          <pre>${result.call.reasoning}</pre>
        </details>
      `
      : null
  }
    ${result.call?.refusal ? html`<p class="error">refusal: ${result.call.refusal}</p>` : null}
    ${
    result.solver
      ? html`
        <details>
          <summary>solver choices</summary>
          <pre>${JSON.stringify(result.solver, null, 2)}</pre>
        </details>
      `
      : null
  }
    <h3>scores</h3>
    <${JudgeScores} scores=${result.scores} />
    <${HumanRatings} scores=${result.scores} />
    <${Calls} result=${result} />
  </div>`;
}
