/**
 * Loads LLMEval-Med as published (an object of category → items, not strict JSON: bare `NaN`) or as JSONL
 * (one item per line with a `category` field, or a `category1` that names the category).
 * @module
 */
import { InputError } from "../../core/errors.ts";
import { parseLenientJson } from "../../core/lenient_json.ts";
import type { Sample } from "../../core/sample.ts";
import { parseRecord } from "../../core/validate.ts";
import { CATEGORY_ALIASES, DIFFICULTY_ALIASES, type LlmEvalMedItem, LlmEvalMedItemSchema } from "./schema.ts";
import { eachJsonlRecord } from "../../core/jsonl.ts";
import { readTextStrict } from "../../core/text_file.ts";

/** Samples plus what the loader had to tolerate, for the run's notes. */
export interface LoadResult {
  /** One sample per item, in file order. */
  samples: Sample[];
  /** Bare NaN/Infinity tokens read as "no value". */
  nonFiniteTokens: number;
}

/** Returns the Sample of a validated item under category key `categoryKey`. */
export function itemToSample(
  item: LlmEvalMedItem,
  categoryKey: string,
  where: { file: string; record: string },
): Sample {
  const code = CATEGORY_ALIASES[categoryKey];
  if (!code) {
    throw new InputError(
      { ...where, field: "category" },
      `unknown category "${categoryKey}"; expected one of ${Object.keys(CATEGORY_ALIASES).join(", ")}`,
    );
  }
  return {
    id: `${code}-${item.groupCode}-${item.round}`,
    benchmark: "llmeval-med",
    input: item.problem,
    reference: item.sanswer?.trim() ? item.sanswer : null,
    conversation: { id: `${code}-${item.groupCode}`, turn: item.round },
    fields: {
      category: code,
      category_name: categoryKey,
      category1: item.category1,
      category2: item.category2,
      scene: item.scene ?? null,
      difficulty: item.difficulty ? DIFFICULTY_ALIASES[item.difficulty] : null,
      round: item.round,
    },
    extra: { checklist: item.checklist?.trim() ? item.checklist : null },
  };
}

function checkConversations(samples: Sample[], file: string): void {
  const seen = new Set<string>();
  for (const s of samples) {
    if (seen.has(s.id)) {
      throw new InputError({ file, record: s.id }, "duplicate (category, groupCode, round)");
    }
    seen.add(s.id);
  }
  const rounds = new Map<string, number[]>();
  for (const s of samples) {
    const list = rounds.get(s.conversation!.id) ?? [];
    list.push(s.conversation!.turn);
    rounds.set(s.conversation!.id, list);
  }
  for (const [conversation, list] of rounds) {
    const sorted = [...list].sort((a, b) => a - b);
    const gap = sorted.findIndex((r, i) => r !== i + 1);
    if (gap !== -1) {
      throw new InputError(
        { file, record: `conversation ${conversation}`, field: "round" },
        `rounds must run 1..${sorted.length} without gaps (found ${sorted.join(", ")})`,
      );
    }
  }
}

/** Parses the published object-of-lists form. */
export function parseLlmEvalMedJson(text: string, file: string): LoadResult {
  const { value, nonFiniteTokens, objectLines } = parseLenientJson(text, file);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InputError({ file }, "expected a JSON object mapping each category to a list of items");
  }
  const samples: Sample[] = [];
  let itemIndex = 0;
  for (const [key, items] of Object.entries(value as Record<string, unknown>)) {
    if (!Array.isArray(items)) {
      throw new InputError({ file, record: `category "${key}"` }, "expected a list of items");
    }
    items.forEach((raw, i) => {
      const line = objectLines[2]?.[itemIndex++];
      const record = `${key}[${i}]${line ? ` (line ${line})` : ""}`;
      const item = parseRecord(LlmEvalMedItemSchema, raw, file, record);
      samples.push(itemToSample(item, key, { file, record }));
    });
  }
  checkConversations(samples, file);
  return { samples, nonFiniteTokens };
}

/** Parses the JSONL form: one item per line, category from `category` (or `category1`). */
export function parseLlmEvalMedJsonl(text: string, file: string): LoadResult {
  const samples: Sample[] = [];
  let nonFiniteTokens = 0;
  for (
    const { value: parsed, record } of eachJsonlRecord(text, file, (line) => parseLenientJson(line, file))
  ) {
    nonFiniteTokens += parsed.nonFiniteTokens;
    const item = parseRecord(LlmEvalMedItemSchema, parsed.value, file, record);
    samples.push(itemToSample(item, item.category ?? item.category1, { file, record }));
  }
  checkConversations(samples, file);
  return { samples, nonFiniteTokens };
}

/** Loads a `.json` (published form) or `.jsonl` file. Throws a one-line {@linkcode InputError} on bad input. */
export async function loadLlmEvalMed(path: string): Promise<LoadResult> {
  const text = await readTextStrict(path);
  const result = path.endsWith(".jsonl") ? parseLlmEvalMedJsonl(text, path) : parseLlmEvalMedJson(text, path);
  if (result.samples.length === 0) throw new InputError({ file: path }, "no items found");
  return result;
}
