/**
 * The tagging prompt of PerMedCQA's annotation step, written for this project after the paper's description:
 * one request per question asks a model for both labels at once — the ICD-11 top-level category and the
 * question type — as one JSON object, choosing from the lists of `data/permedcqa/` (ids, English names and the
 * types' definitions). The question is shown in Persian exactly as given. A reply that does not validate is
 * answered with what was wrong and asked again. Also here: reading a reply into canonical label ids.
 * @module
 */
import type { ChatMessage } from "../../core/chat.ts";
import { hashValue } from "../../core/hash.ts";
import { jsonObjectIn } from "../../judges/reply_json.ts";
import { afterReasoning } from "../../text/reasoning.ts";
import { type LabelTable, type PerMedCqaLabels, resolveLabel } from "./labels.ts";

/** The system prompt; `{icd11_categories}` and `{question_types}` are replaced by the rendered tables. */
export const TAG_SYSTEM_TEMPLATE =
  `You are a physician who annotates patients' questions from Persian-language health forums for a medical question-answering benchmark. Give each question two labels:
1. "icd11": the ICD-11 top-level category (chapter) of the health problem the question is about — the condition, organ system or situation at its centre. When several apply, choose the one the person mainly asks about.
2. "question_type": what kind of answer the person wants.
The question is in Persian; read it as written.

ICD-11 categories (id: name):
{icd11_categories}

Question types (id: name — definition):
{question_types}

Reply with one JSON object and nothing else, in this form:
{"reasoning": "<one or two sentences: what the question is about and what it asks>", "icd11": "<category id>", "question_type": "<question type id>"}
Use exactly one id from each list.`;

/** The user message; `{title}` is the title line (empty without a title), `{question}` the question. */
export const TAG_USER_TEMPLATE = `Label this question from a Persian health forum.

{title}Question:
{question}`;

/** The title line of the user message; `{title}` is the record's title. */
export const TAG_TITLE_TEMPLATE = "Title: {title}\n";

/** The message sent after a reply that did not validate; `{problems}` says what was wrong. */
export const TAG_RETRY_TEMPLATE =
  `Your reply could not be used: {problems}. Reply again with one JSON object {"reasoning": "...", "icd11": "<category id>", "question_type": "<question type id>"}, each id taken from the lists.`;

/** Every template of the tagging step, by name (hashed into the tagging run's manifest). */
export const TAG_TEMPLATES: Readonly<Record<string, string>> = {
  system: TAG_SYSTEM_TEMPLATE,
  user: TAG_USER_TEMPLATE,
  title: TAG_TITLE_TEMPLATE,
  retry: TAG_RETRY_TEMPLATE,
};

/** Replaces `{name}` placeholders of `template` (values are inserted literally). */
function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{([a-z0-9_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** Returns the system prompt with both label lists rendered from `labels`. */
export function tagSystemPrompt(labels: PerMedCqaLabels): string {
  return fill(TAG_SYSTEM_TEMPLATE, {
    icd11_categories: labels.icd.entries.map((e) => `- ${e.id}: ${e.english}`).join("\n"),
    question_types: labels.types.entries.map((t) => `- ${t.id}: ${t.english} — ${t.definition}`).join("\n"),
  });
}

/**
 * Returns the hashes a tagging run must keep to be resumed: each template and the rendered system prompt (so an
 * edited label table counts as a different prompt).
 */
export function tagPromptHashes(labels: PerMedCqaLabels): Record<string, string> {
  return {
    ...Object.fromEntries(Object.entries(TAG_TEMPLATES).map(([name, text]) => [name, hashValue(text)])),
    rendered_system: hashValue(tagSystemPrompt(labels)),
  };
}

/** Returns the first request's messages for a question (and its title, when the record has one). */
export function tagMessages(labels: PerMedCqaLabels, question: string, title: string | null): ChatMessage[] {
  const titleLine = title ? fill(TAG_TITLE_TEMPLATE, { title }) : "";
  return [
    { role: "system", content: tagSystemPrompt(labels) },
    { role: "user", content: fill(TAG_USER_TEMPLATE, { title: titleLine, question }) },
  ];
}

/** Returns `messages` continued by the reply that did not validate and the note of what was wrong with it. */
export function retryMessages(messages: ChatMessage[], reply: string, problems: string[]): ChatMessage[] {
  return [
    ...messages,
    { role: "assistant", content: reply },
    { role: "user", content: fill(TAG_RETRY_TEMPLATE, { problems: problems.join("; ") }) },
  ];
}

/** A reply read: both canonical ids when it validates, else what was wrong. */
export type TagReply =
  | { ok: true; icd11: string; questionType: string }
  | { ok: false; problems: string[] };

/** Returns the value of `key` in `object`, matching keys case-insensitively and ignoring `_`, `-` and spaces. */
function field(object: Record<string, unknown>, key: string): unknown {
  const squash = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, "");
  const found = Object.keys(object).find((k) => squash(k) === squash(key));
  return found === undefined ? undefined : object[found];
}

/** Resolves a label, also trying the part before a `:` or dash (`2: Neoplasms`, `diagnosis - ...`). */
function resolveLoose<T extends { id: string; english: string }>(
  table: LabelTable<T>,
  value: string,
): string | undefined {
  return resolveLabel(table, value) ?? resolveLabel(table, value.split(/\s*[:—–]\s*|\s+-\s+/)[0]);
}

/** Reads one label of a reply object, adding a problem when it is missing or names nothing. */
function readLabel<T extends { id: string; english: string }>(
  object: Record<string, unknown>,
  key: string,
  table: LabelTable<T>,
  what: string,
  problems: string[],
): string | undefined {
  const value = field(object, key);
  const text = typeof value === "number" ? String(value) : value;
  if (typeof text !== "string" || text.trim() === "") {
    problems.push(`"${key}" is missing`);
    return undefined;
  }
  const id = resolveLoose(table, text);
  if (id === undefined) problems.push(`"${key}": ${JSON.stringify(text.slice(0, 60))} is not ${what}`);
  return id;
}

/**
 * Reads a tagging reply: its JSON object (the whole reply, a fenced block or the last `{…}`), with both labels
 * resolved to canonical ids — an id, English or Persian name or alias is accepted.
 */
export function readTagReply(labels: PerMedCqaLabels, reply: string): TagReply {
  const object = jsonObjectIn(afterReasoning(reply));
  if (!object) return { ok: false, problems: ["the reply holds no JSON object"] };
  const problems: string[] = [];
  const icd11 = readLabel(object, "icd11", labels.icd, "an ICD-11 category id of the list", problems);
  const questionType = readLabel(
    object,
    "question_type",
    labels.types,
    "a question type id of the list",
    problems,
  );
  return icd11 !== undefined && questionType !== undefined
    ? { ok: true, icd11, questionType }
    : { ok: false, problems };
}
