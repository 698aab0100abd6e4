/**
 * An item bank for `irt cat` and `irt subset`: the calibrated items alone, from this toolkit's `fit.json` or
 * from a calibration made elsewhere (e.g. R's mirt). Accepted: JSON with an `items` array (`{"model":"3pl",
 * "items":[{"item":"Q1","a":1.2,"b":0.3,"c":0.2}]}`, a full `fit.json` included), a bare JSON array of items,
 * or CSV with a header (`item,a,b,c`; `item,a,d,g` for slope-intercept). Column and key names: the item as
 * `item`, `id` or `name` (or an unnamed first CSV column, as R's `write.csv` writes row names); `a` or `a1`;
 * `b`; `c` or `g` (the guessing probability); `d`; `u` (must be 1: no 4PL). Slope-intercept parameters
 * (z = aθ + d, as mirt reports by default) are read only when stated (`slope-intercept`), and then b = −d/a.
 * Mistakes are one line naming the file, the line or entry, and the field.
 * @module
 */
import { parseCsv } from "../core/csv.ts";
import { InputError } from "../core/errors.ts";
import { readTextStrict } from "../core/text_file.ts";
import type { ItemParams } from "./model.ts";

/** How a bank states its parameters: a, b, c (`irt`) or a, d, g with z = aθ + d (`slope-intercept`). */
export type Parameterization = "irt" | "slope-intercept";

/** The parameterizations, for flags and messages. */
export const PARAMETERIZATIONS: readonly Parameterization[] = ["irt", "slope-intercept"];

/** A read item bank. */
export interface ItemBank {
  /** Item id → a, b, c, in the bank's order. */
  items: Map<string, ItemParams>;
  /** The bank's `model` when it states one. */
  model: string | null;
  /** Calibration examinees' abilities when the bank carries them (a `fit.json`); empty otherwise. */
  thetas: number[];
  /** What was read, e.g. `CSV, slope-intercept (b = −d/a), 5 items`. */
  format: string;
  /** Notes on items a test will not use (a ≤ 0). */
  warnings: string[];
}

const NAMES = {
  item: ["item", "id", "name"],
  a: ["a", "a1"],
  b: ["b"],
  c: ["c", "g"],
  d: ["d"],
  u: ["u"],
} as const;

type Field = keyof typeof NAMES;

/** One entry as raw values by field, with where it came from. */
interface RawItem {
  where: string;
  values: Partial<Record<Field, unknown>>;
  /** The key or column each field was read from (for messages). */
  keys: Partial<Record<Field, string>>;
}

function fieldOf(name: string): Field | undefined {
  const lower = name.trim().toLowerCase();
  return (Object.keys(NAMES) as Field[]).find((f) => (NAMES[f] as readonly string[]).includes(lower));
}

/** Reads and validates an item bank file (see the module doc for the formats). */
export async function readItemBank(path: string, parameterization?: Parameterization): Promise<ItemBank> {
  return parseItemBank(await readTextStrict(path), path, parameterization);
}

/** Parses item-bank text; `file` names it in errors. */
export function parseItemBank(text: string, file: string, parameterization?: Parameterization): ItemBank {
  const trimmed = text.trimStart();
  const json = trimmed.startsWith("{") || trimmed.startsWith("[");
  const { raw, model, thetas } = json ? fromJson(text, file) : fromCsv(text, file);
  if (raw.length === 0) throw new InputError({ file }, "no items");
  const has = (field: Field) => raw.some((r) => r.values[field] !== undefined);
  const form = parameterization ?? "irt";
  if (form === "irt" && !has("b") && has("d")) {
    throw new InputError(
      { file, field: "b" },
      "no b, but d is given: for slope-intercept parameters (z = aθ + d) state --parameterization slope-intercept",
    );
  }
  const items = new Map<string, ItemParams>();
  const warnings: string[] = [];
  const nonPositive: string[] = [];
  for (const entry of raw) {
    const number = (field: Field, fallback?: number): number => {
      const value = entry.values[field];
      const key = entry.keys[field] ?? NAMES[field][0];
      if (value === undefined || value === null || value === "") {
        if (fallback !== undefined) return fallback;
        throw new InputError({ file, record: entry.where, field: key }, "missing");
      }
      const n = typeof value === "number" ? value : typeof value === "string" ? Number(value.trim()) : NaN;
      if (!Number.isFinite(n)) {
        throw new InputError(
          { file, record: entry.where, field: key },
          `expected a number, got ${show(value)}`,
        );
      }
      return n;
    };
    const raw = entry.values.item;
    const id = typeof raw === "string" ? raw.trim() : typeof raw === "number" ? String(raw) : "";
    if (!id) {
      throw new InputError(
        { file, record: entry.where, field: entry.keys.item ?? "item" },
        "missing item id",
      );
    }
    if (items.has(id)) {
      throw new InputError(
        { file, record: entry.where, field: entry.keys.item ?? "item" },
        `duplicate item "${id}"`,
      );
    }
    const a = number("a");
    const b = form === "irt" ? number("b") : -number("d") / a;
    const c = number("c", 0);
    const u = number("u", 1);
    if (form === "slope-intercept" && a === 0) {
      throw new InputError(
        { file, record: entry.where, field: entry.keys.a ?? "a" },
        "a = 0: b = −d/a is undefined",
      );
    }
    if (!(c >= 0 && c < 1)) {
      throw new InputError(
        { file, record: entry.where, field: entry.keys.c ?? "c" },
        `expected 0 <= c < 1, got ${c}`,
      );
    }
    if (u !== 1) {
      throw new InputError(
        { file, record: entry.where, field: entry.keys.u ?? "u" },
        `upper asymptote ${u}: only 1PL/2PL/3PL items (u = 1) are supported`,
      );
    }
    if (!(a > 0)) nonPositive.push(id);
    items.set(id, { a, b, c });
  }
  if (nonPositive.length) {
    warnings.push(
      `${nonPositive.length} item(s) with a <= 0 are never chosen (information does not rise with ability): ` +
        nonPositive.slice(0, 5).map((id) => `"${id}"`).join(", ") + (nonPositive.length > 5 ? ", ..." : ""),
    );
  }
  const stated = form === "irt" ? "a, b, c" : "slope-intercept (b = −d/a)";
  return {
    items,
    model,
    thetas,
    format: `${json ? "JSON" : "CSV"}, ${stated}, ${items.size} items${model ? `, model ${model}` : ""}`,
    warnings,
  };
}

function show(value: unknown): string {
  return JSON.stringify(value)?.slice(0, 40) ?? String(value);
}

function fromJson(text: string, file: string): { raw: RawItem[]; model: string | null; thetas: number[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputError({ file }, `not JSON (${(err as Error).message})`);
  }
  const document = Array.isArray(value) ? { items: value } : value as Record<string, unknown>;
  if (!Array.isArray(document.items)) {
    throw new InputError({ file, field: "items" }, "expected an array of items (or a bare JSON array)");
  }
  const model = typeof document.model === "string" ? document.model : null;
  const persons = Array.isArray(document.persons) ? document.persons : [];
  const thetas = persons.map((p) => (p as { theta?: unknown })?.theta).filter((t): t is number =>
    typeof t === "number" && Number.isFinite(t)
  );
  const raw = document.items.map((entry: unknown, i: number): RawItem => {
    const where = `items[${i}]`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw new InputError({ file, record: where }, `expected an object like {"item":"Q1","a":1,"b":0}`);
    }
    const item: RawItem = { where, values: {}, keys: {} };
    for (const [key, v] of Object.entries(entry)) {
      const field = fieldOf(key);
      if (field && item.keys[field] === undefined) {
        item.values[field] = v;
        item.keys[field] = key;
      }
    }
    return item;
  });
  return { raw, model, thetas };
}

function fromCsv(text: string, file: string): { raw: RawItem[]; model: string | null; thetas: number[] } {
  const rows = parseCsv(text);
  if (rows.length < 2) {
    throw new InputError({ file }, "expected a header row (e.g. item,a,b,c) and item rows");
  }
  const header = rows[0].fields;
  const columns = new Map<Field, number>();
  for (const [i, name] of header.entries()) {
    const field = i === 0 && name.trim() === "" ? "item" : fieldOf(name);
    if (field && !columns.has(field)) columns.set(field, i);
  }
  if (!columns.has("item")) {
    throw new InputError(
      { file, record: "line 1" },
      `no item column (item, id or name) in "${header.join(",")}"`,
    );
  }
  if (!columns.has("a")) {
    throw new InputError({ file, record: "line 1" }, `no a column in "${header.join(",")}"`);
  }
  const raw = rows.slice(1).map(({ line, fields }): RawItem => {
    if (fields.length !== header.length) {
      throw new InputError(
        { file, record: `line ${line}` },
        `expected ${header.length} fields like the header, got ${fields.length}`,
      );
    }
    const item: RawItem = { where: `line ${line}`, values: {}, keys: {} };
    for (const [field, i] of columns) {
      item.values[field] = fields[i];
      item.keys[field] = header[i].trim() || "item";
    }
    return item;
  });
  return { raw, model: null, thetas: [] };
}
