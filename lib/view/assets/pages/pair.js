/**
 * One item of a comparison, side by side: the question once, then each side's conversation as sent, answer
 * and scores, with the differences between the two sides marked word by word.
 * @module
 */
import { html } from "../vendor.js";
import { useAsync, useReady } from "../components/async.js";
import { markDifferences } from "../components/diff.js";
import { Answer, Calls, Conversation, HumanRatings, JudgeScores } from "../components/transcript.js";
import { loadSample } from "../sample_data.js";
import { sideLabel } from "../format.js";
import { link } from "../route.js";
import { SampleHeader } from "./sample.js";

/** Returns each side's messages and answer with the differences marked. */
function marked(left, right) {
  const messagesA = left?.call?.messages ?? [], messagesB = right?.call?.messages ?? [];
  const marksA = [], marksB = [];
  for (let i = 0; i < Math.max(messagesA.length, messagesB.length); i++) {
    [marksA[i], marksB[i]] = markDifferences(messagesA[i]?.content ?? "", messagesB[i]?.content ?? "");
    if (!messagesA[i]) marksA[i] = null;
    if (!messagesB[i]) marksB[i] = null;
  }
  const [answerA, answerB] = markDifferences(left?.answer ?? "", right?.answer ?? "");
  return { a: { messages: marksA, answer: answerA }, b: { messages: marksB, answer: answerB } };
}

function Side({ meta, side, result, marks }) {
  return html`<div class="side" data-side=${side.run + ":" + side.condition}>
    <h2>${sideLabel(meta, side)}</h2>
    <h3>conversation as sent</h3>
    <${Conversation} messages=${result?.call?.messages} marks=${marks.messages} />
    <${Answer} result=${result} marked=${marks.answer} />
    <h3>scores</h3>
    <${JudgeScores} scores=${result?.scores ?? []} />
    <${HumanRatings} scores=${result?.scores ?? []} />
    ${result ? html`<${Calls} result=${result} />` : null}
  </div>`;
}

/** The side-by-side page (`#/pair?c=INDEX&id=ID`). */
export function PairPage({ meta, route }) {
  const index = Number(route.params.get("c") ?? 0);
  const comparison = meta.comparisons[index];
  const id = route.params.get("id");
  const data = useAsync(async () => {
    const runA = meta.runs.find((r) => r.key === comparison.a.run);
    const runB = meta.runs.find((r) => r.key === comparison.b.run);
    return await Promise.all([loadSample(runA, id), loadSample(runB, id)]);
  }, [index, id]);
  useReady(data.value !== undefined);
  if (data.error) return html`<p class="error">${String(data.error)}</p>`;
  if (!data.value) return html`<p>loading ${id} …</p>`;
  const [a, b] = data.value;
  if (!a || !b) return html`<p class="error">${id} is not in both runs</p>`;
  const left = a.results[comparison.a.condition], right = b.results[comparison.b.condition];
  const marks = marked(left, right);
  const runA = meta.runs.find((r) => r.key === comparison.a.run);
  return html`
    <section class="pair-page">
      <h1>${id} <small>${sideLabel(meta, comparison.a)} vs ${sideLabel(meta, comparison.b)}</small></h1>
      <p><a href=${link("compare", { c: index })}>← comparison</a></p>
      <${SampleHeader} run=${runA} sample=${a.sample} />
      <div class="side-by-side">
        <${Side} meta=${meta} side=${comparison.a} result=${left} marks=${marks.a} />
        <${Side} meta=${meta} side=${comparison.b} result=${right} marks=${marks.b} />
      </div>
    </section>
  `;
}
