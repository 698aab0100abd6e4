/**
 * CliMedBench prompts: the scenario's system prompt, the item, and an answer-format line, either asking for
 * the answer directly (vanilla) or for step-by-step reasoning first (chain of thought, `--ablation cot`).
 * @module
 */
import type { Sample } from "../../core/sample.ts";
import type { Solver } from "../../core/task.ts";
import { messagesSolver } from "../../solvers/context.ts";
import { type QuestionType, scenarioByCode, SCENARIOS } from "./scenarios.ts";

/** Prompt style: answer directly, or reason step by step before the final answer. */
export type PromptStyle = "vanilla" | "cot";

const DIRECT: Record<QuestionType, string> = {
  single_choice: "请直接给出唯一正确选项的字母，格式为“答案：X”。",
  multiple_choice: "本题可能有多个正确选项，请直接给出全部正确选项的字母，格式为“答案：ACD”。",
  sequencing: "请直接给出所有标签的正确先后顺序，格式为“顺序：B>A>D>C”。",
  open: "",
};

const COT: Record<QuestionType, string> = {
  single_choice: "请先一步一步地分析病情与各个选项，写出推理过程；最后单独一行写出“答案：X”。",
  multiple_choice:
    "请先一步一步地分析每个选项是否正确，写出推理过程；最后单独一行写出“答案：”加全部正确选项字母。",
  sequencing:
    "请先一步一步地分析各步骤之间的先后依据，写出推理过程；最后单独一行写出“顺序：”加用>连接的全部标签。",
  open: "请先一步一步地思考，写出分析过程，再给出你的最终回答。",
};

const OPEN_TASK: Record<string, string> = {
  KE: "请列出这篇论文的关键词，关键词之间用分号分隔。",
  WTD: "请给出你的判断和理由。",
};

/** Returns the answer-format line of a sample in `style`. */
function formatLine(sample: Sample, style: PromptStyle): string {
  const type = sample.fields.question_type as QuestionType;
  const scenario = String(sample.fields.scenario);
  const task = type === "open" ? OPEN_TASK[scenario] ?? "" : "";
  const format = style === "cot" ? COT[type] : DIRECT[type];
  return [task, format].filter(Boolean).join("");
}

/** Returns the CliMedBench solver in `style`: scenario system prompt, then the item with its format line. */
export function climedSolver(style: PromptStyle): Solver {
  const templates: Record<string, string> = {};
  for (const s of SCENARIOS) templates[`system:${s.code}`] = s.system;
  for (const [type, text] of Object.entries(style === "cot" ? COT : DIRECT)) {
    templates[`format:${type}`] = text;
  }
  for (const [code, text] of Object.entries(OPEN_TASK)) templates[`task:${code}`] = text;
  return messagesSolver(style === "cot" ? "climedbench-cot" : "climedbench", templates, (sample, history) => {
    const scenario = scenarioByCode(String(sample.fields.scenario));
    const line = formatLine(sample, style);
    return [
      { role: "system", content: scenario.system },
      ...history,
      { role: "user", content: line ? `${sample.input}\n\n${line}` : sample.input },
    ];
  });
}
