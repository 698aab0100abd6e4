/**
 * How a task file's records become samples: the columns it names, the shape of its items, its templates
 * (what the data reader and the column check share).
 * @module
 */
import type { DataFormat } from "../core/record_files.ts";
import type { ItemShape } from "./templates.ts";

/** The column keys `--columns KEY=COLUMN` can set (besides the group fields). */
export const COLUMN_KEYS = ["id", "input", "choices", "answer", "reference"] as const;

/** How a task file's records become samples. */
export interface DataSpec {
  /** Benchmark name written into every sample. */
  benchmark: string;
  /** The task file's path, named in errors about its columns. */
  taskFile?: string;
  /** Shape of the items: open question, single or multiple choice, or a sequence to order. */
  shape: ItemShape;
  /** Columns by key as the task file names them; `input` may be absent (then `input`, else `question`). */
  columns: Partial<Record<typeof COLUMN_KEYS[number], string>>;
  /** The column keys `--columns KEY=COLUMN` set (named in errors instead of the task file's key). */
  flagged?: readonly string[];
  /** Option columns (A, B, C, ...), when the options are not in one column. */
  optionColumns?: readonly string[];
  /** Group fields; each is read from the column of the same name unless `groupColumns` names another. */
  groups: readonly string[];
  /** The column of each record's cluster id (`cluster:`), when the task declares clusters. */
  cluster?: string;
  /** Columns of group fields under other names (from `--columns FIELD=COLUMN`). */
  groupColumns?: Readonly<Record<string, string>>;
  /** `true` when the scorer compares the answer column (exact, regex): every record needs one. */
  needsAnswer: boolean;
  /** `true` when every record needs a reference answer (ROUGE-1, similarity). */
  needsReference: boolean;
  /** The user prompt template. */
  user: string;
  /** The few-shot exemplar answer template (used for the train split). */
  fewshot: string;
  /** The judge's rubric template, when the scorer is a judge: every test record must fill it. */
  rubric?: string;
  /** The data format, when the file's extension does not say it. */
  format?: DataFormat;
}

/** Which split is read: the test set, or the train split whose references are the exemplar answers. */
export type Split = "test" | "train";
