/**
 * Prompt templates of task files: text with `{{name}}` placeholders. `{{input}}` is the question, `{{choices}}`
 * the options one per line (`A. text`), `{{answer}}` the answer key, `{{reference}}` the reference answer, and
 * `{{column}}` any column of the record. Defaults per language where the file gives none.
 * @module
 */
import type { Choices } from "../core/sample.ts";

/** A placeholder: `{{ name }}`. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g;

/** Returns the names of the placeholders in `template`, in order, each once. */
export function placeholders(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]))];
}

/**
 * Returns `template` with each placeholder replaced by its value in `values`; a placeholder without a value
 * is reported through `missing(name)` (which throws).
 */
export function render(
  template: string,
  values: Readonly<Record<string, string>>,
  missing: (name: string) => never,
): string {
  return template.replace(PLACEHOLDER, (_, name: string) => values[name] ?? missing(name));
}

/** Returns the options one per line, `A. text`. */
export function renderChoices(choices: Pick<Choices, "labels" | "options">): string {
  return choices.labels.map((label) => `${label}. ${choices.options[label]}`).join("\n");
}

/** Default user templates by language: the question, then the options when there are some, then the format. */
const DEFAULT_USER: Record<string, { open: string; choice: string; multiple: string; sequence: string }> = {
  en: {
    open: "{{input}}",
    choice: '{{input}}\n\n{{choices}}\n\nAnswer with the letter of the one best option, as "Answer: X".',
    multiple:
      "{{input}}\n\n{{choices}}\n\nMore than one option may be correct. Answer with all correct letters, " +
      'as "Answer: ACD".',
    sequence: '{{input}}\n\n{{choices}}\n\nPut the steps in order, as "Order: B>A>D>C".',
  },
  zh: {
    open: "{{input}}",
    choice: "{{input}}\n\n{{choices}}\n\n请给出唯一正确选项的字母，格式为“答案：X”。",
    multiple:
      "{{input}}\n\n{{choices}}\n\n本题可能有多个正确选项，请给出全部正确选项的字母，格式为“答案：ACD”。",
    sequence: "{{input}}\n\n{{choices}}\n\n请给出正确的先后顺序，格式为“顺序：B>A>D>C”。",
  },
};

/** The shape of an item, which picks the default template. */
export type ItemShape = "open" | "choice" | "multiple" | "sequence";

/** Returns the default user template for `language` (English for languages without one) and `shape`. */
export function defaultUserTemplate(language: string, shape: ItemShape): string {
  return (DEFAULT_USER[language.split("-")[0]] ?? DEFAULT_USER.en)[shape];
}

/** Returns the default few-shot exemplar answer: `Answer: {{answer}}` for choice items, else the reference. */
export function defaultFewShotTemplate(language: string, shape: ItemShape): string {
  if (shape === "open") return "{{reference}}";
  if (shape === "sequence") return language.startsWith("zh") ? "顺序：{{answer}}" : "Order: {{answer}}";
  return language.startsWith("zh") ? "答案：{{answer}}" : "Answer: {{answer}}";
}
