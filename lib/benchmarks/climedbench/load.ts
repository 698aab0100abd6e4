/**
 * Reads a CliMedBench JSONL file into samples: validates every line (one-line errors naming file, line and
 * field), checks answers against options, and renders the model input (question, then labelled options).
 * Single and multiple choice items carry their options and key as `choices`, read by the shared choice scorer.
 * @module
 */
import { InputError } from "../../core/errors.ts";
import type { Choices, Sample } from "../../core/sample.ts";
import { parseRecord } from "../../core/validate.ts";
import { type ClimedItem, ClimedItemSchema } from "./schema.ts";
import { type QuestionType, scenarioByCode } from "./scenarios.ts";
import { eachJsonlRecord } from "../../core/jsonl.ts";
import { SharedValues } from "../../core/shared_values.ts";
import { readTextStrict } from "../../core/text_file.ts";

/** Benchmark name in samples and summaries. */
export const BENCHMARK = "climedbench";

/** What a CliMedBench sample keeps in `extra` (read by scorers and perturbations). */
export interface ClimedExtra {
  /** Question text without options. */
  stem: string;
  /** Labelled options or steps (empty for open questions). */
  options: Record<string, string>;
  /** Header the options are listed under. */
  optionsHeader: string;
  /** Correct letters (choice) or labels in order (sequencing); empty for open questions. */
  answer: string[];
  /** FIT: the erroneous reference answer shown to the model. */
  misleading: string | null;
}

/** Renders the model input of an item: the question, then each option as `A: text` under its header. */
export function renderInput(
  extra: Pick<ClimedExtra, "stem" | "options" | "optionsHeader" | "misleading">,
): string {
  // Built by appending (a part at a time, no array of parts): it is done once per item of a data file.
  let input = extra.stem.trim();
  const labels = Object.keys(extra.options).sort();
  if (labels.length) {
    input += `\n${extra.optionsHeader}:`;
    for (const label of labels) input += `\n${label}: ${extra.options[label]}`;
  }
  if (extra.misleading) input += `\n## 参考答案: ${extra.misleading}`;
  return input;
}

function check(ok: boolean, file: string, record: string, field: string, message: string): void {
  if (!ok) throw new InputError({ file, record, field }, message);
}

/**
 * The `choices` of a choice item (labels in order; `multiple` for `multiple_choice`), sharing the item's options
 * and key (they are never changed; a perturbation makes new ones); none for other types.
 */
function climedChoices(
  type: QuestionType,
  options: Record<string, string>,
  answer: string[],
  shared: SharedValues,
): Choices | undefined {
  if (type !== "single_choice" && type !== "multiple_choice") return undefined;
  const multiple = type === "multiple_choice";
  return { labels: shared.list(Object.keys(options).sort()), options, answer, multiple };
}

/** Turns one validated item into a sample; throws {@linkcode InputError} on inconsistent answers. */
export function itemToSample(
  item: ClimedItem,
  file: string,
  record: string,
  shared = new SharedValues(),
): Sample {
  const scenario = scenarioByCode(item.scenario);
  const type: QuestionType = item.type ?? scenario.type;
  const options = item.options ?? {};
  const labels = Object.keys(options);
  const answer = shared.list(item.answer ? [...item.answer] : []);
  if (type === "open") {
    check(
      item.reference !== undefined,
      file,
      record,
      "reference",
      `open ${item.scenario} items need a reference`,
    );
  } else {
    check(labels.length >= 2, file, record, "options", `${type} items need at least two options`);
    check(answer.length > 0, file, record, "answer", `${type} items need an answer`);
    const unknown = answer.filter((l) => !labels.includes(l));
    check(
      unknown.length === 0,
      file,
      record,
      "answer",
      `answer names option(s) ${unknown.join(",")} not given`,
    );
  }
  if (type === "single_choice") {
    check(
      answer.length === 1,
      file,
      record,
      "answer",
      `single_choice answer must be one letter, got ${item.answer}`,
    );
  }
  if (type === "sequencing") {
    const complete = answer.length === labels.length && new Set(answer).size === answer.length;
    check(
      complete,
      file,
      record,
      "answer",
      `sequencing answer must order every step exactly once (${item.answer})`,
    );
  }
  const extra: ClimedExtra = {
    stem: item.question,
    options,
    optionsHeader: scenario.optionsHeader || "## 选项",
    answer,
    misleading: item.misleading_answer ?? null,
  };
  const choices = climedChoices(type, options, answer, shared);
  const input = renderInput(extra);
  // The question opens the prompt: held as a slice of it, its text is stored once (a case history can run to
  // thousands of characters; 100,000 items of the bench's short questions held 6 MB less).
  if (input.startsWith(extra.stem)) extra.stem = input.slice(0, extra.stem.length);
  const sample: Sample = {
    id: item.id,
    benchmark: BENCHMARK,
    input,
    reference: type === "open" ? item.reference! : shared.text(item.answer!),
    conversation: null,
    fields: {
      scenario: scenario.code,
      question_type: type,
      task: scenario.task,
      department: shared.text(item.department ?? null),
      difficulty: shared.text(item.difficulty ?? null),
    },
    extra: extra as unknown as Record<string, unknown>,
  };
  if (choices) sample.choices = choices;
  return sample;
}

/** Reads and validates a CliMedBench JSONL file (blank lines and `//` comment lines are skipped). */
export async function loadClimedBench(path: string): Promise<Sample[]> {
  const text = await readTextStrict(path);
  const samples: Sample[] = [];
  const seen = new Map<string, number>();
  const shared = new SharedValues();
  for (const { value, line, record } of eachJsonlRecord(text, path)) {
    const item = parseRecord(ClimedItemSchema, value, path, record);
    const earlier = seen.get(item.id);
    if (earlier !== undefined) {
      throw new InputError(
        { file: path, record, field: "id" },
        `duplicate id ${item.id} (first on line ${earlier})`,
      );
    }
    seen.set(item.id, line);
    samples.push(itemToSample(item, path, record, shared));
  }
  if (samples.length === 0) throw new InputError({ file: path }, "no items");
  return samples;
}

/** Returns the typed `extra` of a CliMedBench sample. */
export function climedExtra(sample: Sample): ClimedExtra {
  return sample.extra as unknown as ClimedExtra;
}
