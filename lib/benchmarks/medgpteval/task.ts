/**
 * MedGPTEval as a task: Chinese multi-turn dialogues (four rounds, asked in order with the model's own answers)
 * and case reports, judged per aspect on the paper's 16-indicator rubric (a dialogue as a whole, on its last
 * round), with the veto; expert scores imported as `human:experts`; robustness sets A–E (`--robustness`)
 * classed R1–R3 by a consistency judge; Tables 3, 4 and 5 in the paper's layout.
 * @module
 */
import type { Task } from "../../core/task.ts";
import { REPHRASER } from "../../robustness/sets.ts";
import { chatSolver } from "../../solvers/chat.ts";
import { aggregateMedGptEval, GROUP_FIELDS, medGptEvalRows } from "./aggregate.ts";
import { EXPERT_RATING_SPEC, EXPERT_SCORER } from "./experts.ts";
import { medGptEvalFigures } from "./figures.ts";
import { loadMedGptEval } from "./load.ts";
import { medGptEvalTables } from "./report.ts";
import { ASPECT_SCORERS, CONSISTENCY_JUDGE } from "./scorer.ts";
import { QUESTION_CATEGORIES } from "./schema.ts";

/** Returns the MedGPTEval task. */
export function createMedGptEvalTask(): Promise<Task> {
  return Promise.resolve({
    name: "medgpteval",
    title: "MedGPTEval",
    language: "zh",
    defaultDataPath: "data/medgpteval",
    groupFields: GROUP_FIELDS,
    description:
      "Chinese medical dialogues (4 rounds, asked with the model's own answers) and case reports, rated on the " +
      "paper's rubric by an LLM judge per aspect: medical professional (6 indicators, max 8; accuracy or logic " +
      "0 vetoes the aspect), social comprehensive (4, max 5) and, for dialogues, contextual (3, max 3); " +
      "dialogue max 16, case report max 13. Expert scores: --human-eval or deno task import-ratings (item,rater," +
      "indicator,score). --robustness adds the paper's sets A-E made from the first-round dialogue questions " +
      "(10 variants each), answered alone and classed R1/R2/R3 against the clean answer by the judge.",
    generation: { maxTokens: 1024 },
    load: (path) => loadMedGptEval(path),
    solver: chatSolver(),
    robustness: {
      description: "first-round dialogue questions (the paper's extended data sets A-E)",
      where: { kind: "dialogue", round: 1 },
    },
    scorers: [...ASPECT_SCORERS, CONSISTENCY_JUDGE],
    roles: [{
      name: REPHRASER,
      description: "writes robustness sets A and B (--robustness)",
      required: false,
    }],
    ratings: { [EXPERT_SCORER]: EXPERT_RATING_SPEC },
    report: {
      metrics: [
        { name: "total", label: "total score", percent: false },
        { name: "medical", label: "medical professional", percent: false },
        { name: "social", label: "social comprehensive", percent: false },
        { name: "contextual", label: "contextual", percent: false },
      ],
      tables: medGptEvalTables,
      figures: medGptEvalFigures,
      groups: { order: { kind: ["dialogue", "case"], question_category: QUESTION_CATEGORIES } },
    },
    rows: medGptEvalRows,
    aggregate: aggregateMedGptEval,
  });
}
