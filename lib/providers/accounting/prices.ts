/**
 * Prices of model tokens, for cost accounting and `--max-cost`: the table the project ships
 * (`data/prices.json`, USD per million tokens) with, optionally, a table of the user's laid over it
 * (`--prices FILE`, same layout, any of its fields; local servers cost nothing unless priced there).
 * @module
 */
import { z } from "zod";
import type { TokenUsage } from "../../core/chat.ts";
import { projectPath } from "../../core/fs.ts";
import { InputError } from "../../core/errors.ts";
import { readJsonTable } from "../../core/validate.ts";

/** The price of one model, in the table's currency per `per_tokens` tokens. */
export interface ModelPrice {
  /** Price of prompt (input) tokens. */
  input: number;
  /** Price of completion (output) tokens. */
  output: number;
}

const PriceFileSchema = z.object({
  currency: z.string().min(1).optional(),
  per_tokens: z.number().int().positive().optional(),
  as_of: z.string().optional(),
  source: z.string().optional(),
  batch_discount: z.number().min(0).max(1).optional(),
  models: z.record(
    z.string().min(1),
    z.object({ input: z.number().min(0), output: z.number().min(0) }).strict(),
  ).optional(),
}).strict();

/** A price file as read: every field optional (a file laid over the shipped table gives only what it changes). */
export type PriceFile = z.infer<typeof PriceFileSchema>;

/** A whole price table: its units and its models' prices. */
export type PriceTable = PriceFile & Required<Pick<PriceFile, "currency" | "per_tokens" | "models">>;

/** Where the shipped price table lives. */
export const DEFAULT_PRICES_PATH = projectPath("data/prices.json");

/** Reads and validates one price file; errors name the file and the field (an unknown field too). */
export async function readPriceFile(path: string): Promise<PriceFile> {
  return (await readJsonTable(path, PriceFileSchema, "price table"));
}

/** Returns `table` whole, or throws naming `path` and the first field a whole table needs. */
function wholeTable(table: PriceFile, path: string): PriceTable {
  for (const field of ["currency", "per_tokens", "models"] as const) {
    if (table[field] === undefined) {
      throw new InputError({ file: path, record: "price table", field }, "missing (a whole table states it)");
    }
  }
  return table as PriceTable;
}

/**
 * Returns the shipped table with `overridePath` laid over it: the fields the override gives replace the
 * shipped ones, its models are added to (or replace) the shipped models. An override in another currency or
 * per another number of tokens replaces the shipped table outright — prices are never converted — and must
 * then state both `currency` and `per_tokens`. Throws {@linkcode InputError} for a bad file.
 */
export async function loadPrices(overridePath?: string): Promise<PriceTable> {
  const base = wholeTable(await readPriceFile(DEFAULT_PRICES_PATH), DEFAULT_PRICES_PATH);
  if (!overridePath) return base;
  const own = await readPriceFile(overridePath);
  const other = (["currency", "per_tokens"] as const).filter((f) =>
    own[f] !== undefined && own[f] !== base[f]
  );
  if (other.length) {
    const missing = (["currency", "per_tokens"] as const).find((f) => own[f] === undefined);
    if (missing) {
      throw new InputError(
        { file: overridePath, record: "price table", field: missing },
        `missing: its ${other[0]} ${JSON.stringify(own[other[0]])} differs from the shipped table's ` +
          `${JSON.stringify(base[other[0]])}, so it replaces that table and must state both currency and ` +
          "per_tokens (prices are never converted)",
      );
    }
    return { ...own, currency: own.currency!, per_tokens: own.per_tokens!, models: own.models ?? {} };
  }
  const given = Object.fromEntries(Object.entries(own).filter(([, value]) => value !== undefined));
  return { ...base, ...given, models: { ...base.models, ...own.models } };
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
