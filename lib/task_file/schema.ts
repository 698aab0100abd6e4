/**
 * The task file: a benchmark declared in YAML or JSON (`tasks/<name>.yaml`), its zod schema, and reading it
 * with one-line errors that name the file, the line and the key (`tasks/x.yaml: line 12: key "scorer.kind":
 * expected one of choice, ...`); an unknown key is refused with the closest known key.
 * @module
 */
import { z } from "zod";
import type { Document, LineCounter } from "yaml";
import { CHAR_KINDS } from "../ablations/perturb.ts";
import { ConfigError } from "../core/errors.ts";
import { readTextStrict } from "../core/text_file.ts";

/** Scorer kinds of the registry (`scorer.kind`). */
export const SCORER_KINDS = [
  "choice",
  "sequence",
  "rouge1",
  "similarity",
  "judge",
  "exact",
  "regex",
] as const;

/** Data file formats (`data.format`; default: from the file's extension). */
export const DATA_FORMATS = ["json", "jsonl", "csv", "parquet"] as const;

const NAME = /^[a-z0-9][a-z0-9_-]*$/;
const text = z.string().min(1);
const columnName = z.string().min(1);

/** Where the data is and how it is read. */
const DataSchema = z.strictObject({
  path: text,
  format: z.enum(DATA_FORMATS).optional(),
  train: text.optional(),
});

/** Which column holds what (defaults: `id`, `input` or `question`, `answer`, `reference`). */
const ColumnsSchema = z.strictObject({
  id: columnName.optional(),
  input: columnName.optional(),
  choices: columnName.optional(),
  options: z.array(columnName).min(2).optional(),
  answer: columnName.optional(),
  reference: columnName.optional(),
});

/** The prompts: system and user templates, the few-shot exemplar answer and a chain-of-thought instruction. */
const PromptSchema = z.strictObject({
  system: text.optional(),
  user: text.optional(),
  fewshot: text.optional(),
  cot: text.optional(),
});

/** A judge verdict of named fields: each field's allowed values, and which values make an answer acceptable. */
const FieldsVerdictSchema = z.strictObject({
  fields: z.record(z.string().regex(/^[A-Za-z_][\w]*$/), z.array(text).min(2)),
  acceptable: z.record(z.string(), z.array(text).min(1)),
});

/** The scorer declaration; which keys apply depends on `kind` (checked by {@linkcode checkScorer}). */
const ScorerSchema = z.strictObject({
  kind: z.enum(SCORER_KINDS),
  multiple: z.boolean().optional(),
  pattern: text.optional(),
  rubric: text.optional(),
  system: text.optional(),
  scale: z.tuple([z.number().int(), z.number().int()]).optional(),
  pass: z.number().optional(),
  verdict: FieldsVerdictSchema.optional(),
});

/** Generation defaults of the model under test. */
const GenerationSchema = z.strictObject({
  max_tokens: z.number().int().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
});

/** The conditions a task declares: `cot`, `fewshot`, `perturb` or `perturb:KIND`. */
const CONDITION = /^(cot|fewshot|perturb|perturb:[a-z]+)$/;

/** zod schema of a task file. */
export const TaskFileSchema = z.strictObject({
  name: z.string().regex(NAME, "expected a lower-case name: letters, digits, - and _").optional(),
  title: text.optional(),
  description: text.optional(),
  language: z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]+)?$/, "expected a language code such as en or zh")
    .default("en"),
  data: DataSchema,
  columns: ColumnsSchema.optional(),
  groups: z.array(columnName).optional(),
  /** A column whose value the samples of one cluster share (a case, a patient): intervals resample clusters. */
  cluster: columnName.optional(),
  prompt: PromptSchema.optional(),
  scorer: ScorerSchema,
  conditions: z.array(z.string().regex(CONDITION, "expected cot, fewshot, perturb or perturb:KIND"))
    .optional(),
  generation: GenerationSchema.optional(),
});

/** A task file as declared. */
export type TaskFile = z.infer<typeof TaskFileSchema>;

/** A task file's scorer declaration. */
export type ScorerDeclaration = TaskFile["scorer"];

/** Returns the edit distance of `a` and `b` (for "did you mean"). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}

/** Returns the known key closest to `key`. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  return [...known].sort((x, y) => distance(key, x) - distance(key, y))[0];
}

/** The zod definition fields {@linkcode keysAt} walks. */
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { def: Def }).def;
}

/** Returns the keys an object at `path` of `schema` may have (empty when there is no object there). */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let def = defOf(schema);
  for (const step of [...path, null]) {
    while (def.type === "optional" || def.type === "default") def = defOf(def.innerType!);
    if (step === null) break;
    if (def.type === "object") def = def.shape![String(step)] ? defOf(def.shape![String(step)]) : def;
    else if (def.type === "array") def = defOf(def.element!);
    else if (def.type === "record") def = defOf(def.valueType!);
    else return [];
  }
  return def.type === "object" ? Object.keys(def.shape!) : [];
}

/** zod's type names in words. */
const TYPE_WORDS: Record<string, string> = {
  boolean: "true or false",
  number: "a number",
  int: "an integer",
  string: "text",
  object: "a mapping of keys",
  array: "a list",
  tuple: "a list",
  record: "a mapping of keys",
};

/** Returns a value of a task file as a reader would name it: `the string "no"`, `the number 3`, `a list`. */
export function foundValue(value: unknown): string {
  if (value === null) return "nothing (null)";
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  if (typeof value === "number") return `the number ${value}`;
  if (typeof value === "boolean") return `${value}`;
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "a mapping of keys" : typeof value;
}

/** Returns what a zod issue expected, in words (`found` the value there, for a value of the wrong type). */
function expected(issue: z.core.$ZodIssue, found?: unknown): string {
  if (issue.code === "invalid_value") {
    return `expected one of ${issue.values.map(String).join(", ")}`;
  }
  if (issue.code === "invalid_type") {
    const words = `expected ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
    return found === undefined ? words : `${words}, found ${foundValue(found)}`;
  }
  return issue.message;
}

/** Returns the value at `path` of `value` (`undefined` when there is none). */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let node = value;
  for (const step of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[step as string];
  }
  return node;
}

/** The YAML parser, loaded by {@linkcode loadTaskFileParser} (only runs with a task file need it). */
let yaml: typeof import("yaml") | undefined;

/** Loads the YAML parser {@linkcode parseTaskFile} uses; {@linkcode readTaskFile} calls it itself. */
export async function loadTaskFileParser(): Promise<void> {
  yaml ??= await import("yaml");
}

/** Returns the loaded YAML parser; throws when {@linkcode loadTaskFileParser} has not run. */
function yamlParser(): typeof import("yaml") {
  if (!yaml) throw new Error("internal: parsing a task file before loadTaskFileParser()");
  return yaml;
}

/** Returns the first line of the node at `path` of a parsed document (its key's line for a mapping entry). */
function lineOf(
  doc: Document.Parsed,
  counter: LineCounter,
  path: readonly PropertyKey[],
  key?: string,
): number {
  const { isMap, isPair, isScalar } = yamlParser();
  let node: unknown = doc.contents;
  let line = 1;
  const steps = key === undefined ? path : [...path, key];
  for (const step of steps) {
    if (!isMap(node) && !(node && typeof node === "object" && "items" in node)) break;
    const items = (node as { items: unknown[] }).items;
    const found = isMap(node)
      ? items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(step))
      : items[Number(step)];
    if (!found) break;
    if (isPair(found)) {
      const range = (found.key as { range?: [number, number, number] }).range;
      if (range) line = counter.linePos(range[0]).line;
      node = found.value;
    } else {
      const range = (found as { range?: [number, number, number] }).range;
      if (range) line = counter.linePos(range[0]).line;
      node = found;
    }
  }
  return line;
}

/** A one-line task-file error: `FILE: line N: key "a.b": message`. */
export function taskFileError(
  file: string,
  line: number | undefined,
  key: string | undefined,
  message: string,
) {
  const parts = [
    file,
    line !== undefined ? `line ${line}` : undefined,
    key ? `key "${key}"` : undefined,
    message,
  ];
  return new ConfigError(parts.filter(Boolean).join(": "));
}

/**
 * Parses task file text (YAML, or JSON, which is YAML too) and checks it against {@linkcode TaskFileSchema}
 * and the rules between keys. Throws a one-line {@linkcode ConfigError} naming `file`, the line and the key.
 */
export function parseTaskFile(source: string, file: string): TaskFile {
  const { LineCounter, parseDocument } = yamlParser();
  const counter = new LineCounter();
  const doc = parseDocument(source, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const [first] = doc.errors;
  if (first) {
    const line = counter.linePos(first.pos[0]).line;
    throw taskFileError(file, line, undefined, `not valid YAML/JSON: ${first.message.split("\n")[0]}`);
  }
  const value = doc.toJS();
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw taskFileError(file, 1, undefined, "expected a mapping of keys (name, language, data, scorer, ...)");
  }
  const parsed = TaskFileSchema.safeParse(value);
  if (!parsed.success) {
    // A misspelt key also makes the key it was meant to be missing: the unknown key is what to report.
    const issues = parsed.error.issues;
    const issue = issues.find((i) => i.code === "unrecognized_keys") ?? issues[0];
    const path = issue.path;
    if (issue.code === "unrecognized_keys") {
      const key = issue.keys[0];
      const near = closestKey(key, keysAt(TaskFileSchema, path));
      const where = [...path.map(String), key].join(".");
      throw taskFileError(
        file,
        lineOf(doc, counter, path, key),
        where,
        `unknown key${near ? `; did you mean "${[...path.map(String), near].join(".")}"?` : ""}`,
      );
    }
    // zod does not report the value it found: a key is missing only when the file has no value there.
    const found = valueAt(value, path);
    const missing = issue.code === "invalid_type" && found === undefined;
    throw taskFileError(
      file,
      lineOf(doc, counter, missing ? path.slice(0, -1) : path),
      path.map(String).join(".") || undefined,
      missing ? `missing (${expected(issue)})` : expected(issue, found),
    );
  }
  const spec = parsed.data;
  checkRules(spec, (path, message) => {
    throw taskFileError(file, lineOf(doc, counter, path), path.join("."), message);
  });
  return spec;
}

/** The keys each scorer kind reads beyond `kind`. */
const SCORER_KEYS: Record<ScorerDeclaration["kind"], readonly string[]> = {
  choice: ["multiple"],
  sequence: [],
  rouge1: [],
  similarity: [],
  judge: ["rubric", "system", "scale", "pass", "verdict"],
  exact: [],
  regex: ["pattern"],
};

/** Checks the rules between keys; `fail(path, message)` throws. */
function checkRules(spec: TaskFile, fail: (path: string[], message: string) => never): void {
  const scorer = spec.scorer;
  for (const key of Object.keys(scorer)) {
    if (key !== "kind" && !SCORER_KEYS[scorer.kind].includes(key)) {
      const keys = SCORER_KEYS[scorer.kind].join(", ") || "none";
      fail(["scorer", key], `not used by a ${scorer.kind} scorer (its keys: ${keys})`);
    }
  }
  const columns = spec.columns ?? {};
  const listed = scorer.kind === "choice" || scorer.kind === "sequence";
  if (listed && !columns.choices && !columns.options) {
    fail(["scorer", "kind"], `a ${scorer.kind} scorer needs columns.choices (one column) or columns.options`);
  }
  if (!listed && (columns.choices || columns.options)) {
    fail(
      ["columns", columns.choices ? "choices" : "options"],
      `only choice and sequence scorers read options`,
    );
  }
  if (columns.choices && columns.options) {
    fail(["columns", "options"], "give columns.choices (one column) or columns.options, not both");
  }
  if (scorer.kind === "judge") {
    if (!scorer.rubric) fail(["scorer"], 'a judge scorer needs "rubric" (the judge prompt template)');
    if (!scorer.rubric.includes("{{answer}}")) {
      fail(["scorer", "rubric"], "the rubric must show the answer: put {{answer}} in it");
    }
    if (scorer.verdict && (scorer.scale || scorer.pass !== undefined)) {
      fail(["scorer", "verdict"], "give a score (scale, pass) or a verdict of named fields, not both");
    }
    const [min, max] = scorer.scale ?? [1, 5];
    if (min >= max) fail(["scorer", "scale"], `expected [min, max] with min < max, got [${min}, ${max}]`);
    if (scorer.pass !== undefined && (scorer.pass < min || scorer.pass > max)) {
      fail(["scorer", "pass"], `expected a score within the scale ${min}-${max}`);
    }
    for (const [field, allowed] of Object.entries(scorer.verdict?.acceptable ?? {})) {
      const levels = scorer.verdict!.fields[field];
      if (!levels) {
        fail(["scorer", "verdict", "acceptable", field], `no verdict field "${field}" is declared`);
      }
      const unknown = allowed.find((v) => !levels.includes(v));
      if (unknown) {
        fail(["scorer", "verdict", "acceptable", field], `"${unknown}" is not one of ${levels.join(", ")}`);
      }
    }
    if (scorer.verdict && Object.keys(scorer.verdict.acceptable).length === 0) {
      fail(["scorer", "verdict", "acceptable"], "name at least one field and its acceptable values");
    }
  }
  if (scorer.kind === "regex") {
    if (!scorer.pattern) fail(["scorer"], 'a regex scorer needs "pattern" (with one capture group)');
    let compiled: RegExp;
    try {
      compiled = new RegExp(scorer.pattern, "gu");
    } catch (err) {
      fail(["scorer", "pattern"], `not a regular expression (${err instanceof Error ? err.message : err})`);
    }
    if (new RegExp(`${compiled.source}|`, "u").exec("")!.length < 2) {
      fail(["scorer", "pattern"], "needs a capture group ( ... ) around the answer");
    }
  }
  const applicable = applicablePerturbations(spec);
  for (const [i, condition] of (spec.conditions ?? []).entries()) {
    const at = ["conditions", String(i)];
    if (condition === "fewshot" && !spec.data.train) {
      fail(at, "fewshot needs data.train (the split exemplars are drawn from)");
    }
    if (condition === "perturb" && applicable.length === 0) {
      fail(at, `no perturbation applies to this task (${PERTURB_RULE})`);
    }
    const kind = condition.startsWith("perturb:") ? condition.slice("perturb:".length) : undefined;
    if (kind !== undefined && !PERTURB_KINDS.includes(kind)) {
      fail(at, `unknown perturbation kind "${kind}" (known: ${PERTURB_KINDS.join(", ")})`);
    }
    if (kind !== undefined && !applicable.includes(kind)) {
      const why = kind === "nota"
        ? "nota needs a single-answer choice scorer (scorer.kind choice without multiple: true)"
        : `${kind} changes Han characters: it needs language zh (this task's language is ${spec.language})`;
      fail(at, `perturb:${kind} does not apply to this task: ${why}`);
    }
  }
}

/** Every perturbation kind a task file may declare (`perturb:KIND`). */
export const PERTURB_KINDS: readonly string[] = [...CHAR_KINDS, "mixed", "nota"];

/** Which perturbations apply to which task, in words. */
const PERTURB_RULE = "the Han-character kinds need language zh; nota needs a single-answer choice scorer";

/**
 * Returns the perturbation kinds that apply to a task file: the Han-character kinds and `mixed` for Chinese
 * questions, `nota` for single-answer choice items.
 */
export function applicablePerturbations(spec: Pick<TaskFile, "language" | "scorer">): string[] {
  return [
    ...(spec.language === "zh" || spec.language.startsWith("zh-") ? [...CHAR_KINDS, "mixed"] : []),
    ...(spec.scorer.kind === "choice" && !spec.scorer.multiple ? ["nota"] : []),
  ];
}

/** Reads and checks the task file at `path` (strict UTF-8). */
export async function readTaskFile(path: string): Promise<TaskFile> {
  let source: string;
  try {
    source = await readTextStrict(path);
  } catch (err) {
    throw new ConfigError(err instanceof Error ? err.message : String(err));
  }
  await loadTaskFileParser();
  return parseTaskFile(source, path);
}
