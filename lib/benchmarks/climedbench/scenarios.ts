/**
 * The 14 CliMedBench scenarios as the paper's example sheets describe them (task family, resource, metric,
 * size), with the question type and answer format this toolkit uses for each, and the system prompts (written
 * for this project in the sheets' style).
 * @module
 */

/** Question types of CliMedBench. */
export type QuestionType = "single_choice" | "multiple_choice" | "sequencing" | "open";

/** Scoring metric of a scenario. */
export type ScenarioMetric = "accuracy" | "kendall_tau" | "rouge1" | "similarity";

/** One scenario. */
export interface Scenario {
  /** Code used in data files and tables, e.g. `ID1`, `SSO`. */
  code: string;
  /** Name on the example sheet. */
  name: string;
  /** Task family on the sheet (Clinical QA, Reasoning, ...). */
  task: string;
  /** Resource the items come from. */
  resource: string;
  /** Metric the paper scores it with. */
  metric: ScenarioMetric;
  /** Items in the full data set, from the sheet. */
  size: number;
  /** Default question type (an item may say `multiple_choice` instead of `single_choice`). */
  type: QuestionType;
  /** Header under which the labelled options or steps are listed in the input. */
  optionsHeader: string;
  /** System prompt of the model under test. */
  system: string;
}

const CASE_DOCTOR = "你是一名经验丰富的临床医生，熟悉住院病历的书写与诊疗规范。";

/** All scenarios in the order of the example sheets (ID#1–ID#4, CPR, DS, SSO, CS, FIT, FTT, BKT, KE, MC, WTD). */
export const SCENARIOS: readonly Scenario[] = [
  {
    code: "ID1",
    name: "In-hospital Diagnosis (Period #1)",
    task: "Clinical QA",
    resource: "Medical Case",
    metric: "accuracy",
    size: 2639,
    type: "single_choice",
    optionsHeader: "## 选项",
    system: `${CASE_DOCTOR}下面给出一名患者入院时的病历摘要，请判断最符合的诊断，从选项中作答。`,
  },
  {
    code: "ID2",
    name: "In-hospital Diagnosis (Period #2)",
    task: "Clinical QA",
    resource: "Medical Case",
    metric: "accuracy",
    size: 6693,
    type: "single_choice",
    optionsHeader: "## 选项",
    system:
      `${CASE_DOCTOR}下面给出一名患者住院期间的检查与病程记录，请判断接下来最恰当的诊疗判断，从选项中作答。`,
  },
  {
    code: "ID3",
    name: "In-hospital Diagnosis (Period #3)",
    task: "Clinical QA",
    resource: "Medical Case",
    metric: "accuracy",
    size: 1748,
    type: "single_choice",
    optionsHeader: "## 选项",
    system: `${CASE_DOCTOR}下面给出一名患者手术或治疗前后的病历记录，请选出最恰当的处理或结论。`,
  },
  {
    code: "ID4",
    name: "In-hospital Diagnosis (Period #4)",
    task: "Clinical QA",
    resource: "Medical Case",
    metric: "accuracy",
    size: 2728,
    type: "single_choice",
    optionsHeader: "## 选项",
    system: `${CASE_DOCTOR}下面给出一名患者出院前的病历记录，请选出最恰当的出院诊断或医嘱。`,
  },
  {
    code: "CPR",
    name: "Clinical Pathway Reasoning",
    task: "Reasoning",
    resource: "Medical Case",
    metric: "kendall_tau",
    size: 95,
    type: "sequencing",
    optionsHeader: "## 经历步骤",
    system:
      "你是一名医学专家。下面列出一名患者一次住院中经历的若干步骤，顺序已被打乱。请推断这些步骤实际发生的先后顺序。",
  },
  {
    code: "DS",
    name: "Discharge Summary",
    task: "Summary",
    resource: "Medical Case",
    metric: "accuracy",
    size: 4644,
    type: "single_choice",
    optionsHeader: "## 选项",
    system: `${CASE_DOCTOR}下面是一名患者住院过程的病历记录，请选出对本次住院概括最准确的出院小结。`,
  },
  {
    code: "SSO",
    name: "Surgical Steps Organization",
    task: "Reasoning",
    resource: "Medical Case",
    metric: "kendall_tau",
    size: 472,
    type: "sequencing",
    optionsHeader: "## 遮挡文本",
    system:
      "你是一名熟悉各科手术流程的主治医师。下面是一份真实手术记录，其中若干步骤被遮挡并打乱。请给出被遮挡步骤的正确先后顺序。",
  },
  {
    code: "CS",
    name: "Case Summary",
    task: "Summary",
    resource: "Online Consultation",
    metric: "accuracy",
    size: 320,
    type: "single_choice",
    optionsHeader: "## 选项",
    system: "你是一名在线问诊平台的医生。下面是一段医患对话，请选出对这次问诊概括最准确的一项。",
  },
  {
    code: "FIT",
    name: "False Info Test",
    task: "Hallucination",
    resource: "NMLEC",
    metric: "accuracy",
    size: 3003,
    type: "single_choice",
    optionsHeader: "## 选项",
    system:
      "你是一名医学专家。下面是一道医学单选题，附有一个参考答案，但参考答案不一定正确。请独立判断正确选项并说明理由。",
  },
  {
    code: "FTT",
    name: "False Treatment Test",
    task: "Hallucination",
    resource: "NMLEC",
    metric: "accuracy",
    size: 1114,
    type: "single_choice",
    optionsHeader: "## 选项",
    system: "你是一名医学专家。下面是一道关于治疗方案的单选题，若所有方案都不恰当，请选择“以上都不是”。",
  },
  {
    code: "BKT",
    name: "Basic Knowledge Test",
    task: "Knowledge Apply",
    resource: "NMLEC",
    metric: "accuracy",
    size: 4160,
    type: "single_choice",
    optionsHeader: "## 选项",
    system: "你是一名医学专家。请回答下面这道医学考试题。",
  },
  {
    code: "KE",
    name: "Keyword Extraction",
    task: "Information Retrieval",
    resource: "Paper",
    metric: "rouge1",
    size: 713,
    type: "open",
    optionsHeader: "",
    system: "你是一名医学文献专家。请阅读下面的论文摘要，给出这篇论文的关键词。",
  },
  {
    code: "MC",
    name: "Medicine Consultation",
    task: "Toxicity Detection",
    resource: "Textbook",
    metric: "accuracy",
    size: 661,
    type: "single_choice",
    optionsHeader: "## 选项",
    system: "你是一名临床药师。请判断下面用药情境中的做法，从选项中选出正确的一项。",
  },
  {
    code: "WTD",
    name: "Wrong Treatment Detection",
    task: "Toxicity Detection",
    resource: "Textbook",
    metric: "similarity",
    size: 807,
    type: "open",
    optionsHeader: "",
    system: "你是一名医学专家。下面是医疗场景中的一段文字，请评价其中的处理是否恰当，并简要说明理由。",
  },
];

/** Scenario codes in sheet order. */
export const SCENARIO_CODES: readonly string[] = SCENARIOS.map((s) => s.code);

/** Returns the scenario with `code`. */
export function scenarioByCode(code: string): Scenario {
  const found = SCENARIOS.find((s) => s.code === code);
  if (!found) throw new Error(`unknown CliMedBench scenario ${code}`);
  return found;
}

/** Short metric labels as the paper's Table 2 prints them. */
export const METRIC_LABELS: Record<ScenarioMetric, string> = {
  accuracy: "ACC.",
  kendall_tau: "Kendall's τ",
  rouge1: "ROUGE-1",
  similarity: "Similarity",
};
