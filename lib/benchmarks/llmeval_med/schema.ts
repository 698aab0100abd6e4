/**
 * LLMEval-Med records: the published item shape, the category codes and the difficulty levels.
 * @module
 */
import { z } from "zod";

/** Category codes in the paper's order. */
export const CATEGORY_CODES = ["MK", "MLU", "MR", "MSE", "MTG"] as const;

/** A category code. */
export type CategoryCode = typeof CATEGORY_CODES[number];

/** Names under which each category appears (Chinese file keys, English names, codes) → code. */
export const CATEGORY_ALIASES: Record<string, CategoryCode> = {
  "医疗知识": "MK",
  "医疗语言理解": "MLU",
  "一般语言理解": "MLU",
  "医疗推理": "MR",
  "医疗安全伦理": "MSE",
  "医疗文本生成": "MTG",
  "Medical Knowledge": "MK",
  "Medical Language Understanding": "MLU",
  "Medical Reasoning": "MR",
  "Medical Ethics and Safety": "MSE",
  "Medical Safety and Ethics": "MSE",
  "Medical Text Generation": "MTG",
  MK: "MK",
  MLU: "MLU",
  MR: "MR",
  MSE: "MSE",
  MTG: "MTG",
};

/** Difficulty values as published (Chinese) or in English → normalised English level. */
export const DIFFICULTY_ALIASES: Record<string, "easy" | "medium" | "hard"> = {
  "易": "easy",
  "中": "medium",
  "难": "hard",
  easy: "easy",
  medium: "medium",
  hard: "hard",
  Easy: "easy",
  Medium: "medium",
  Hard: "hard",
};

/** Difficulty levels in table order. */
export const DIFFICULTY_ORDER = ["easy", "medium", "hard"] as const;

const text = z.string().trim().min(1, "expected non-empty text");

/**
 * zod schema of one published item (after bare `NaN` has been read as `null`). `sanswer` may be a number in
 * the real file (one item answers `131`); it is kept as text. `category` is only used by the JSONL form.
 */
export const LlmEvalMedItemSchema = z.object({
  category: z.string().optional(),
  category1: text,
  category2: text,
  scene: z.string().nullish(),
  round: z.number().int().min(1),
  problem: text,
  groupCode: z.number().int(),
  sanswer: z.union([z.string(), z.number().transform(String)]).nullish(),
  difficulty: z.string().refine((v) => v in DIFFICULTY_ALIASES, {
    message: `expected one of ${Object.keys(DIFFICULTY_ALIASES).join(", ")}`,
  }).nullish(),
  checklist: z.string().nullish(),
});

/** One published item. */
export type LlmEvalMedItem = z.infer<typeof LlmEvalMedItemSchema>;
