/**
 * Prices of model tokens, for cost accounting and `--max-cost`: the table the project ships
 * (`data/prices.json`, USD per million tokens) with, optionally, a table of the user's laid over it
 * (`--prices FILE`, same layout; local servers cost nothing unless priced there).
 * @module
 */
import { z } from "zod";
import type { TokenUsage } from "../core/chat.ts";
import { projectPath } from "../core/fs.ts";
import { InputError } from "../core/errors.ts";
import { readTextStrict } from "../core/text_file.ts";
import { parseRecord } from "../core/validate.ts";

/** The price of one model, in the table's currency per `per_tokens` tokens. */
export interface ModelPrice {
  /** Price of prompt (input) tokens. */
  input: number;
  /** Price of completion (output) tokens. */
  output: number;
}

const PriceFileSchema = z.object({
  currency: z.string().min(1),
  per_tokens: z.number().int().positive(),
  as_of: z.string().optional(),
  source: z.string().optional(),
  batch_discount: z.number().min(0).max(1).optional(),
  models: z.record(
    z.string().min(1),
    z.object({ input: z.number().min(0), output: z.number().min(0) }).strict(),
  ),
}).strict();

/** A price table as read from a file. */
export type PriceTable = z.infer<typeof PriceFileSchema>;

/** Where the shipped price table lives. */
export const DEFAULT_PRICES_PATH = projectPath("data/prices.json");

/** Reads and validates one price file; errors name the file and the field. */
export async function readPriceFile(path: string): Promise<PriceTable> {
  const text = await readTextStrict(path);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InputError({ file: path }, `not valid JSON (${err instanceof Error ? err.message : err})`);
  }
  return parseRecord(PriceFileSchema, raw, path, "price table");
}

/**
 * Returns the shipped table with `overridePath`'s models laid over it (the override's currency must match).
 * Throws {@linkcode InputError} for a bad file.
 */
export async function loadPrices(overridePath?: string): Promise<PriceTable> {
  const base = await readPriceFile(DEFAULT_PRICES_PATH);
  if (!overridePath) return base;
  const own = await readPriceFile(overridePath);
  if (own.currency !== base.currency || own.per_tokens !== base.per_tokens) {
    // Convert nothing silently: a table in other units replaces the shipped one outright.
    return own;
  }
  return { ...base, ...own, models: { ...base.models, ...own.models } };
}

/**
 * Returns the price of `model`: its own entry, else the longest entry it extends with `-…` (so
 * `gpt-4o-2024-08-06` is priced as `gpt-4o` and `gpt-4o-mini` as itself), else `undefined`.
 */
export function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  if (table.models[model]) return table.models[model];
  let best: string | undefined;
  for (const name of Object.keys(table.models)) {
    if (model.startsWith(`${name}-`) && (!best || name.length > best.length)) best = name;
  }
  return best ? table.models[best] : undefined;
}

/** Returns the cost of `usage` at `price` in the table's currency; `batch` applies the table's batch discount. */
export function costOf(table: PriceTable, price: ModelPrice, usage: TokenUsage, batch = false): number {
  const full = (usage.prompt * price.input + usage.completion * price.output) / table.per_tokens;
  return batch ? full * (1 - (table.batch_discount ?? 0)) : full;
}
