/**
 * The JSONL format this toolkit defines for CliMedBench items (one JSON object per line), with its zod schema.
 * Documented for users in `data/climedbench/README.md`.
 * @module
 */
import { z } from "zod";
import { SCENARIO_CODES } from "./scenarios.ts";

const LABEL = /^[A-Z]$/;

/** zod schema of one line of a CliMedBench JSONL file. */
export const ClimedItemSchema = z.object({
  /** Unique item id, e.g. `ID1-0001`. */
  id: z.string().min(1),
  /** Scenario code: ID1–ID4, CPR, DS, SSO, CS, FIT, FTT, BKT, KE, MC, WTD. */
  scenario: z.enum(SCENARIO_CODES as [string, ...string[]]),
  /** Question type; default: the scenario's. */
  type: z.enum(["single_choice", "multiple_choice", "sequencing", "open"]).optional(),
  /** The case, question or text shown to the model (without the options). */
  question: z.string().min(1),
  /** Labelled options (choice) or steps (sequencing), label → text. */
  options: z.record(z.string().regex(LABEL, "option labels are single capital letters"), z.string().min(1))
    .optional(),
  /** Choice: the correct letter(s), e.g. `B` or `ACD`. Sequencing: the labels in the correct order, e.g. `DCBA`. */
  answer: z.string().regex(/^[A-Z]+$/, "answer is capital option letters, e.g. B, ACD or DCBA").optional(),
  /** Open questions: the reference answer. */
  reference: z.string().min(1).optional(),
  /** FIT: the erroneous reference answer shown with the question (letter). */
  misleading_answer: z.string().regex(/^[A-Z]+$/).optional(),
  /** Department / branch of medicine, e.g. `神经外科`. */
  department: z.string().min(1).nullable().optional(),
  /** Difficulty, when the source gives one. */
  difficulty: z.union([z.string(), z.number()]).nullable().optional(),
  /** Where the item came from. */
  source: z.string().optional(),
}).strict();

/** One CliMedBench item as written in the JSONL file. */
export type ClimedItem = z.infer<typeof ClimedItemSchema>;
