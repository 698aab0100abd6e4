import { assertEquals } from "@std/assert";
import { parseJudgeReply } from "../lib/judges/parse_score.ts";

Deno.test("judge replies: the requested JSON object wins, in any wrapping", () => {
  assertEquals(parseJudgeReply('{"score": 4, "reason": "核心正确"}'), {
    score: 4,
    reason: "核心正确",
    method: "json",
  });
  assertEquals(parseJudgeReply('Here you go:\n```json\n{"score": "5", "reason": "ok"}\n```')?.score, 5);
  assertEquals(parseJudgeReply('评价如下 {"reason": "有错误", "score": 2} 以上')?.score, 2);
});

Deno.test("judge replies: free-text fallbacks read the score", () => {
  const cases: [string, number][] = [
    ["理由：回答基本正确。评分：4", 4],
    ["得分为 3 分", 3],
    ["The answer misses the core point. Final score is 2.", 2],
    ["回答完整准确。[5]", 5],
    ["【4】", 4],
    ["score: 1 because it is unsafe", 1],
    ["I would rate this 4/5.", 4],
    ["综合来看给3分。", 3],
  ];
  for (const [text, score] of cases) assertEquals(parseJudgeReply(text)?.score, score, text);
  assertEquals(parseJudgeReply("综合来看给3分。")?.method, "text");
});

Deno.test("judge replies: out-of-range, non-integer or missing scores are not scores", () => {
  for (
    const text of [
      '{"score": 7, "reason": "x"}',
      '{"score": 3.5}',
      "I cannot grade this.",
      "[9]",
      "",
      "score: 0",
    ]
  ) {
    assertEquals(parseJudgeReply(text), null, text);
  }
});
