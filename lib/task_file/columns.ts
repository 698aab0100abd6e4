/**
 * The columns a task file names, checked against the columns its data file has before any record is read:
 * the id, question, option, answer and reference columns, the group fields, the cluster column and every
 * `{{placeholder}}` of the user, few-shot and rubric templates. A column the file lacks is one line naming the
 * column, the task file's key (or the `--columns` flag) that asked for it, the columns there are and the
 * closest one.
 * @module
 */
import { closestName } from "../core/closest.ts";
import { InputError } from "../core/errors.ts";
import type { DataSpec, Split } from "./data_spec.ts";
import { placeholders } from "./templates.ts";

/** A column a task file asks for and who asked (`key "groups"`, `--columns answer=Key`, ...). */
export interface NamedColumn {
  /** The column's name in the data file. */
  column: string;
  /** The task-file key or flag that named it, for the error. */
  by: string;
}

/** Returns the column names of `records`: the union of their keys, in first-seen order (a CSV's header). */
export function columnsOf(records: readonly { value: Record<string, unknown> }[]): string[] {
  const names = new Set<string>();
  for (const { value } of records) for (const key of Object.keys(value)) names.add(key);
  return [...names];
}

/** Returns the question column: `columns.input`, else `input`, else `question` when only that one exists. */
export function inputColumn(spec: DataSpec, present: ReadonlySet<string>): string {
  return spec.columns.input ?? (present.has("input") || !present.has("question") ? "input" : "question");
}

/** Returns who named the column of a column key: the `--columns` flag, the task file, or its default. */
function namedBy(spec: DataSpec, key: keyof DataSpec["columns"], column: string, fallback?: string): string {
  if (spec.flagged?.includes(key)) return `--columns ${key}=${column}`;
  if (spec.columns[key] !== undefined) return `key "columns.${key}"`;
  return `key "columns.${key}" (default ${fallback ?? `"${column}"`})`;
}

/**
 * Returns the column a template placeholder reads (`undefined` when the task itself provides its value):
 * `{{input}}` and, for choice and sequence items, `{{choices}}` and `{{answer}}` come from the columns
 * already named; in the rubric `{{answer}}` is the model's answer and `{{key}}` the answer column.
 */
function placeholderColumn(spec: DataSpec, name: string, template: "user" | "fewshot" | "rubric") {
  const listed = spec.shape !== "open";
  if (name === "input" || (name === "choices" && listed)) return undefined;
  if (template === "rubric" && name === "answer") return undefined;
  const answer = template === "rubric" ? name === "key" : name === "answer";
  if (answer) return listed ? undefined : spec.columns.answer ?? "answer";
  if (name === "reference") return spec.columns.reference ?? "reference";
  return name;
}

/** The task-file key of each template. */
const TEMPLATE_KEYS = { user: "prompt.user", fewshot: "prompt.fewshot", rubric: "scorer.rubric" } as const;

/**
 * Returns every column `spec` names for reading `split`: id, question, options, the answer and reference when
 * named or needed, the group fields and the cluster column (test split), and the columns behind the
 * placeholders of the user template, the few-shot template (train split) and the rubric (test split).
 */
export function namedColumns(spec: DataSpec, split: Split, present: ReadonlySet<string>): NamedColumn[] {
  const out: NamedColumn[] = [];
  const add = (column: string, by: string) => out.push({ column, by });
  const id = spec.columns.id ?? "id";
  add(id, namedBy(spec, "id", id));
  const input = inputColumn(spec, present);
  add(input, namedBy(spec, "input", input, `"input" or "question"`));
  for (const column of spec.optionColumns ?? []) add(column, `key "columns.options"`);
  if (spec.columns.choices) add(spec.columns.choices, namedBy(spec, "choices", spec.columns.choices));
  const answer = spec.columns.answer ?? "answer";
  if (spec.columns.answer || spec.shape !== "open" || spec.needsAnswer) {
    add(answer, namedBy(spec, "answer", answer));
  }
  const reference = spec.columns.reference ?? "reference";
  if (spec.columns.reference || spec.needsReference) add(reference, namedBy(spec, "reference", reference));
  if (split === "test") {
    for (const field of spec.groups) {
      const column = spec.groupColumns?.[field];
      add(column ?? field, column ? `--columns ${field}=${column}` : `key "groups"`);
    }
    if (spec.cluster) add(spec.cluster, `key "cluster"`);
  }
  const templates: ["user" | "fewshot" | "rubric", string | undefined][] = [
    ["user", spec.user],
    ["fewshot", split === "train" ? spec.fewshot : undefined],
    ["rubric", split === "test" ? spec.rubric : undefined],
  ];
  for (const [template, text] of templates) {
    for (const name of placeholders(text ?? "")) {
      const column = placeholderColumn(spec, name, template);
      if (column !== undefined) add(column, `{{${name}}} in key "${TEMPLATE_KEYS[template]}"`);
    }
  }
  return out;
}

/** Returns the column of `present` a mistyped `column` most likely means (same letters in another case first). */
function nearest(column: string, present: readonly string[]): string | undefined {
  return present.find((p) => p.toLowerCase() === column.toLowerCase()) ?? closestName(column, present);
}

/**
 * Throws a one-line {@linkcode InputError} naming `path` when a column `spec` names for `split` is not among
 * `present` (the data file's columns): which column, who named it (in `spec.taskFile`), the columns there are
 * and the closest.
 */
export function checkColumns(path: string, spec: DataSpec, split: Split, present: readonly string[]): void {
  const have = new Set(present);
  const lacking = namedColumns(spec, split, have).find((c) => !have.has(c.column));
  if (!lacking) return;
  const near = nearest(lacking.column, present);
  const of = spec.taskFile ? ` of ${spec.taskFile}` : "";
  throw new InputError(
    { file: path },
    `no column "${lacking.column}", named by ${lacking.by}${of} (columns: ${present.join(", ")}${
      near ? `; did you mean "${near}"?` : ""
    })`,
  );
}
