/**
 * Synthetic data at any size for the scale benchmark: CliMedBench choice items (one model call each) and
 * single-turn LLMEval-Med questions (one answer and one judge call each), written in the benchmarks' own file
 * formats so the whole loader → plan → run path is measured.
 * @module
 */

/** Writes `n` CliMedBench ID1 choice items as JSONL to `path`. */
export async function writeChoiceItems(path: string, n: number): Promise<void> {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    lines.push(JSON.stringify({
      id: `ID1-${String(i + 1).padStart(6, "0")}`,
      scenario: "ID1",
      question: `## 入院情况\n患者${i % 2 ? "男" : "女"}，${20 + (i % 60)}岁，因“反复胸闷${
        1 + (i % 9)
      }年”入院（病例${i}）。`,
      options: { A: "稳定型心绞痛", B: "急性前壁心肌梗死", C: "急性心包炎", D: "主动脉夹层" },
      answer: "ABCD"[i % 4],
      department: "心血管内科",
      difficulty: ["easy", "medium", "hard"][i % 3],
    }));
  }
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
}

/** Writes `n` single-turn LLMEval-Med questions (published JSON layout) to `path`. */
export async function writeOpenQuestions(path: string, n: number): Promise<void> {
  const items = Array.from({ length: n }, (_, i) => ({
    category1: "医疗知识",
    category2: "医学基础知识/医学考试",
    scene: "医学基础知识/医学考试_药理学",
    round: 1,
    problem: `第${i + 1}题：长期使用糖皮质激素的患者为什么不能突然停药？（编号${i}）`,
    groupCode: i + 1,
    sanswer: "长期使用外源性糖皮质激素会抑制下丘脑-垂体-肾上腺轴，突然停药可致肾上腺皮质功能不全。",
    difficulty: ["易", "中", "难"][i % 3],
    checklist: "核心需求：\n1. 说明负反馈抑制\n2. 说明停药风险",
  }));
  await Deno.writeTextFile(path, JSON.stringify({ "医疗知识": items }));
}
