/**
 * CliMedBench metric speed at the full data size (33,735 items): ROUGE-1 over KE-like keyword answers,
 * Kendall's tau-b (with order parsing) over SSO-like sequencing answers and choice extraction over one short
 * reply style, each timed over 33,735 items; and one perturbation. `parsing_bench.ts` times extraction over
 * the written corpora's many reply styles.
 */
import { extractChoice } from "../lib/metrics/choice/extract.ts";
import { rouge1 } from "../lib/metrics/rouge.ts";
import { extractOrder, orderTau } from "../lib/metrics/sequence.ts";
import { loadCharacterTables, perturbText } from "../lib/ablations/perturb.ts";
import { parseAblation } from "../lib/ablations/condition.ts";

// Perturbations read the pinyin and traditional-form tables, loaded on demand.
await loadCharacterTables();

const N = 33_735;
const refs = Array.from({ length: N }, (_, i) => `慢性病；养老；医养结合；延续护理；病例${i % 97}`);
const answers = Array.from({ length: N }, (_, i) => `关键词：医养结合；慢性病护理；社区养老；第${i % 53}组`);
const labels = ["A", "B", "C", "D", "E", "F"];
const orders = Array.from({ length: N }, (_, i) => {
  const o = [...labels];
  for (let k = 0; k < 6; k++) {
    const j = (i * 7 + k * 3) % 6;
    [o[k], o[j]] = [o[j], o[k]];
  }
  return o;
});
const replies = orders.map((o, i) =>
  `分析各步骤的先后依据……\n顺序：${(i % 2 ? [...o].reverse() : o).join(">")}`
);
const choiceReplies = Array.from(
  { length: N },
  (_, i) => `选项A不符合，选项C也不对。\n答案：${"ABCDE"[i % 5]}`,
);

Deno.bench(`ROUGE-1 F1 over ${N} KE-style answers`, () => {
  let s = 0;
  for (let i = 0; i < N; i++) s += rouge1(answers[i], refs[i]).f1;
  if (!(s > 0)) throw new Error("no overlap");
});

Deno.bench(`Kendall tau-b (order parsing + tau) over ${N} sequencing answers`, () => {
  let s = 0;
  for (let i = 0; i < N; i++) s += orderTau(orders[i], extractOrder(replies[i], labels).order);
  if (!Number.isFinite(s)) throw new Error("bad tau");
});

Deno.bench(`choice extraction over ${N} replies`, () => {
  for (let i = 0; i < N; i++) extractChoice(choiceReplies[i]);
});

const text = "患者男，62岁，因反复胸闷2年，加重伴胸痛3小时入院。心电图示V1-V4导联ST段抬高。".repeat(4);
const spec = parseAblation("perturb:mixed@0.12").perturb!;
Deno.bench("mixed perturbation of a 160-character case, per item", () => {
  perturbText(text, spec, "bench");
});
