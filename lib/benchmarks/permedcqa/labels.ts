/**
 * PerMedCQA's two annotations as tables in `data/permedcqa/`: the 28 ICD-11 top-level categories (chapters
 * 01–26, section V and extension codes X, each with its English and Persian name and the specialist role
 * prompting uses) and the 25 question types. A label may arrive as a code or id, an English or Persian name,
 * or an alias; all resolve to one canonical id, compared under the Persian comparison key (so Arabic ي/ك,
 * digits and ZWNJ variants match). Anything else is an error naming the record and field.
 * @module
 */
import { z } from "zod";
import { projectPath } from "../../core/fs.ts";
import { readTextStrict } from "../../core/text_file.ts";
import { parseRecord } from "../../core/validate.ts";
import { persianKey } from "../../text/persian.ts";

/** Path of the ICD-11 table, relative to the project root. */
export const ICD11_TABLE = "data/permedcqa/icd11.json";

/** Path of the question-type table, relative to the project root. */
export const QUESTION_TYPE_TABLE = "data/permedcqa/question_types.json";

const IcdEntrySchema = z.object({
  id: z.string().regex(/^(0[1-9]|1[0-9]|2[0-6]|V|X)$/),
  english: z.string().min(1),
  persian: z.string().min(1),
  specialist: z.string().min(1),
  specialist_fa: z.string().min(1),
  aliases: z.array(z.string().min(1)),
});

const QuestionTypeSchema = z.object({
  id: z.string().regex(/^[a-z][a-z0-9_]*$/),
  english: z.string().min(1),
  persian: z.string().min(1),
  definition: z.string().min(1),
  aliases: z.array(z.string().min(1)),
});

/** One ICD-11 top-level category. */
export type IcdCategory = z.infer<typeof IcdEntrySchema>;

/** One question type. */
export type QuestionType = z.infer<typeof QuestionTypeSchema>;

/** A label table: entries in order and every accepted spelling → id. */
export interface LabelTable<T extends { id: string; english: string }> {
  /** The entries, in the table's order. */
  entries: T[];
  /** Entry by id. */
  byId: Map<string, T>;
  /** Every accepted label, under {@linkcode labelKey}, → id. */
  lookup: Map<string, string>;
}

/** Returns the key labels are compared under: the Persian comparison key, `_`/`-` read as spaces. */
export function labelKey(label: string): string {
  return persianKey(label.replace(/[_-]+/g, " "));
}

/** Builds a table; two entries claiming one spelling is an error naming both. */
function buildTable<T extends { id: string; english: string }>(
  entries: T[],
  spellings: (entry: T) => string[],
  file: string,
): LabelTable<T> {
  const lookup = new Map<string, string>();
  for (const entry of entries) {
    for (const spelling of spellings(entry)) {
      const key = labelKey(spelling);
      const other = lookup.get(key);
      if (other !== undefined && other !== entry.id) {
        throw new Error(`${file}: label "${spelling}" names both ${other} and ${entry.id}`);
      }
      lookup.set(key, entry.id);
    }
  }
  return { entries, byId: new Map(entries.map((e) => [e.id, e])), lookup };
}

/** The ICD-11 spellings of an entry: id, number without the leading zero, "chapter N", names and aliases. */
function icdSpellings(entry: IcdCategory): string[] {
  const out = [entry.id, entry.english, entry.persian, ...entry.aliases];
  if (/^\d+$/.test(entry.id)) {
    const n = String(Number(entry.id));
    out.push(n, `chapter ${n}`, `chapter ${entry.id}`, `فصل ${n}`, `${entry.id} ${entry.english}`);
  } else {
    out.push(`section ${entry.id}`, `chapter ${entry.id}`);
  }
  return out;
}

/** Reads and validates a JSON array table. */
async function readTable<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>[]> {
  const file = projectPath(path);
  let data: unknown;
  try {
    data = JSON.parse(await readTextStrict(file));
  } catch (err) {
    throw new Error(`${path}: not valid JSON (${err instanceof Error ? err.message : err})`);
  }
  if (!Array.isArray(data)) throw new Error(`${path}: expected a JSON array`);
  return data.map((entry, i) => parseRecord(schema, entry, path, `entry ${i + 1}`));
}

/** Both annotation tables. */
export interface PerMedCqaLabels {
  /** ICD-11 categories (28). */
  icd: LabelTable<IcdCategory>;
  /** Question types (25). */
  types: LabelTable<QuestionType>;
}

let cached: Promise<PerMedCqaLabels> | undefined;

/** Returns the label tables, read and validated once per process (a failed read is tried again next time). */
export function loadLabels(): Promise<PerMedCqaLabels> {
  cached ??= readLabels().catch((err) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

/** Reads and validates both tables. */
async function readLabels(): Promise<PerMedCqaLabels> {
  const icd = await readTable(ICD11_TABLE, IcdEntrySchema);
  const types = await readTable(QUESTION_TYPE_TABLE, QuestionTypeSchema);
  if (icd.length !== 28) {
    throw new Error(`${ICD11_TABLE}: expected the 28 ICD-11 categories, found ${icd.length}`);
  }
  if (types.length !== 25) {
    throw new Error(`${QUESTION_TYPE_TABLE}: expected the 25 question types, found ${types.length}`);
  }
  return {
    icd: buildTable(icd, icdSpellings, ICD11_TABLE),
    types: buildTable(types, (t) => [t.id, t.english, t.persian, ...t.aliases], QUESTION_TYPE_TABLE),
  };
}

/** Returns the canonical id of `label` in `table`, or `undefined` when it names nothing there. */
export function resolveLabel<T extends { id: string; english: string }>(
  table: LabelTable<T>,
  label: string,
): string | undefined {
  return table.lookup.get(labelKey(label));
}

/** Returns the English name of entry `id` (the id itself when the table has no such entry), for tables. */
export function labelName<T extends { id: string; english: string }>(
  table: LabelTable<T>,
  id: string,
): string {
  const entry = table.byId.get(id);
  return entry ? entry.english : id;
}
