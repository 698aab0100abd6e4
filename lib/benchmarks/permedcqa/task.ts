/**
 * PerMedCQA as a task: Persian consumer questions answered zero-shot by a physician persona, graded by MedJudge
 * against the expert's answer; results per ICD-11 category, question type, sex, age band and source; role
 * prompting by ICD-11 chapter and few-shot exemplars from the train split; physicians' ratings to validate the
 * judge.
 * @module
 */
import type { RatingSpec, Task } from "../../core/task.ts";
import { chatSolver } from "../../solvers/chat.ts";
import { aggregatePerMedCqa, groupOrder, HUMAN_PREFIX, perMedCqaRows } from "./aggregate.ts";
import { ICD11_TABLE, loadLabels } from "./labels.ts";
import { loadPerMedCqa, perMedCqaDataFile, trainBeside } from "./load.ts";
import { ANSWER_LANGUAGE, ANSWER_PERSONA_TEMPLATE, answerPersona, BASELINE_ROLE } from "./prompts.ts";
import { groupName, perMedCqaTables } from "./report.ts";
import { CLINICAL_IMPACT, CORRECTNESS, COVERAGE, MEDJUDGE, RUBRIC_FIELDS } from "./scorer.ts";
import { GROUP_FIELDS } from "./schema.ts";

/** The physicians' rating scorer. */
export const PHYSICIAN_SCORER = `${HUMAN_PREFIX}physicians`;

/** What physicians rate: MedJudge's three rubric fields, by category. */
export const PHYSICIAN_RATING_SPEC: RatingSpec = {
  description: "physicians' blinded ratings of model answers on MedJudge's rubric, to validate the judge",
  fields: [
    { name: "correctness", min: 1, max: CORRECTNESS.length, integer: true, levels: CORRECTNESS },
    { name: "coverage", min: 1, max: COVERAGE.length, integer: true, levels: COVERAGE },
    { name: "clinical_impact", min: 1, max: CLINICAL_IMPACT.length, integer: true, levels: CLINICAL_IMPACT },
  ],
};

/** Returns the PerMedCQA task. */
export async function createPerMedCqaTask(): Promise<Task> {
  const labels = await loadLabels();
  return {
    name: "permedcqa",
    title: "PerMedCQA",
    language: "fa",
    defaultDataPath: "data/permedcqa/Data",
    groupFields: GROUP_FIELDS,
    loadOptions: ["columns", "split"],
    description:
      "Persian consumer medical questions from online forums, answered by the model as a physician in Persian; " +
      "MedJudge (an LLM judge) compares each answer with the expert's: Correctness, Coverage, Clinical_impact, " +
      "Judge_confidence; acceptable = Correct, or Partially_correct with Negligible/Moderate impact. Results per " +
      "ICD-11 category (28), question type (25), sex, age band and source; --ablation role (specialist by " +
      "ICD-11 chapter), fewshot[:K] (train split) and pivot:en (with --translator).",
    generation: { maxTokens: 1024 },
    load: (path, options) => loadPerMedCqa(path, options),
    dataFile: perMedCqaDataFile,
    solver: chatSolver(answerPersona(BASELINE_ROLE)),
    // Pivot translation asks the same persona for answers in the pivot language.
    answerLanguage: { system: ANSWER_PERSONA_TEMPLATE.replace("{role}", BASELINE_ROLE) },
    scorers: [MEDJUDGE],
    auxiliary: [{
      name: "train",
      description:
        "the train split few-shot exemplars are drawn from (default: train.* beside the data; the shipped sample's with the shipped data)",
      defaultPath: "data/permedcqa/Data/train.json",
      locate: trainBeside,
      load: (path, options) => loadPerMedCqa(path, { ...options, requireLabels: false }),
    }],
    roleTable: {
      field: "icd11",
      roles: Object.fromEntries(labels.icd.entries.map((e) => [e.id, e.specialist])),
      fallback: BASELINE_ROLE,
      source: ICD11_TABLE,
      // The persona as a specialist, answering in Persian.
      system: ANSWER_PERSONA_TEMPLATE.replace("{language}", ANSWER_LANGUAGE),
    },
    ratings: { [PHYSICIAN_SCORER]: PHYSICIAN_RATING_SPEC },
    report: {
      metrics: [
        { name: "acceptable", label: "acceptable", percent: true },
        ...RUBRIC_FIELDS.flatMap((f) =>
          f.levels.map((l) => ({ name: `${f.name}:${l}`, label: `${f.name}: ${l}`, percent: true }))
        ),
      ],
      tables: (summaries) => perMedCqaTables(summaries, labels),
      groups: { order: groupOrder(labels), label: (field, key) => groupName(labels, field, key) },
    },
    rows: perMedCqaRows,
    aggregate: (rows, view, runLabels) => aggregatePerMedCqa(rows, view, runLabels, labels),
  };
}
