/**
 * MedGPTEval's two data sets in the formats this project defines (`data/medgpteval/README.md`): multi-turn
 * dialogues (four patient turns each) and case reports (one question with the patient's history), both JSONL.
 * @module
 */
import { z } from "zod";

/** The paper's six question categories. */
export const QUESTION_CATEGORIES = [
  "clinical manifestations",
  "treatment",
  "ancillary tests",
  "lifestyle habits",
  "etiology",
  "prognosis",
] as const;

/** Rounds of a dialogue, as in the paper. */
export const DIALOGUE_ROUNDS = 4;

const text = z.string().trim().min(1);

/** zod schema of one dialogue. */
export const DialogueSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]+$/, "letters, digits, - and _ only"),
  disease_type: text,
  question_category: z.enum(QUESTION_CATEGORIES),
  rounds: z.array(text).length(DIALOGUE_ROUNDS),
});

/** A dialogue. */
export type Dialogue = z.infer<typeof DialogueSchema>;

/** zod schema of one case report. */
export const CaseReportSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]+$/, "letters, digits, - and _ only"),
  disease_type: text,
  question_category: z.enum(QUESTION_CATEGORIES),
  age: z.number().int().min(0).max(120),
  sex: z.enum(["female", "male"]),
  personal_history: text,
  family_history: text,
  symptoms: text,
  medication_history: text,
  question: text,
});

/** A case report. */
export type CaseReport = z.infer<typeof CaseReportSchema>;

/** File names inside a MedGPTEval data directory. */
export const FILES = { dialogues: "dialogues.jsonl", cases: "case_reports.jsonl" } as const;
