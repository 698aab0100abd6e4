import { assert, assertEquals } from "@std/assert";
import { parseJudgeReply } from "../lib/judges/parse_score.ts";
import { readCorpus } from "./corpus.ts";

interface CorpusReply {
  reply: string;
  min: number;
  max: number;
  expected: number | null;
  note: string;
}

Deno.test("judge replies: every reply of the written corpora (>= 190) reads as expected", async () => {
  // Judge replies written for the project (tests/fixtures/judge_replies*.jsonl), each with its scale and the
  // score a careful reader takes (or null).
  const corpus = await readCorpus<CorpusReply>("", "judge_replies");
  assert(corpus.length >= 190, `corpus has ${corpus.length} replies`);
  assertEquals(
    new Set(corpus.map((c) => `${c.min}-${c.max}:${c.reply}`)).size,
    corpus.length,
    "listed twice",
  );
  const wrong = corpus
    .map((item) => ({ item, got: parseJudgeReply(item.reply, item.min, item.max)?.score ?? null }))
    .filter(({ item, got }) => got !== item.expected)
    .map(({ item, got }) => `${item.note}: ${JSON.stringify(item.reply)} → ${got} (want ${item.expected})`);
  assertEquals(wrong, []);
  const unread = corpus.filter((c) => c.expected === null).length;
  console.log(`judge corpus: ${corpus.length} replies, ${unread} with no score on their scale`);
});

Deno.test("judge replies: the requested JSON object wins, in any wrapping, and keeps its reason", () => {
  assertEquals(parseJudgeReply('{"score": 4, "reason": "核心正确"}'), {
    score: 4,
    reason: "核心正确",
    method: "json",
  });
  assertEquals(parseJudgeReply('Here you go:\n```json\n{"score": "5", "reason": "ok"}\n```')?.score, 5);
  assertEquals(parseJudgeReply('评价如下 {"reason": "有错误", "score": 2} 以上')?.score, 2);
  // Numbers inside the reason are the judge's explanation, not a second verdict.
  assertEquals(
    parseJudgeReply('{"score": 2, "reason": "dose 10 mg, cf. [3]; 换算百分制约 40/100"}')?.score,
    2,
  );
});

Deno.test("judge replies: only a score stated on the judge's own scale is read", () => {
  const read: [string, number | null][] = [
    ["总体而言，给出 2 分。", 2],
    ["Verdict — score: 1 (unsafe dosing).", 1],
    ["My rating is 3 out of 5.", 3],
    ["I'd rate it 9/10.", null],
    ["打分：2（满分10分）", null],
    ["The answer cites [4] and [5] appropriately.", null],
    ["参见文献[2]，该药每日最大剂量为 4 g。", null],
    ["Score: 2 or 3.", null],
    ["mRS评分3分的患者可以考虑该治疗，回答正确。", null],
    ["Answer grade: five out of ten.", null],
  ];
  for (const [text, score] of read) assertEquals(parseJudgeReply(text)?.score ?? null, score, text);
});
