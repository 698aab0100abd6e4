/**
 * Reads a MedGPTEval data directory (`dialogues.jsonl` and/or `case_reports.jsonl`) into samples: each dialogue
 * round is one turn of a conversation (asked in order with the model's own earlier answers), each case report
 * one sample whose input renders the case in Chinese. Every line is validated (one-line errors naming file,
 * line and field); ids are unique across both files.
 * @module
 */
import { InputError } from "../../core/errors.ts";
import { jsonlRecords } from "../../core/jsonl.ts";
import type { Sample } from "../../core/sample.ts";
import { readTextStrict } from "../../core/text_file.ts";
import { parseRecord } from "../../core/validate.ts";
import type { ItemKind } from "./rubric.ts";
import { type CaseReport, CaseReportSchema, DialogueSchema, FILES } from "./schema.ts";

/** Benchmark name in samples and summaries. */
export const BENCHMARK = "medgpteval";

/** Returns the sample id of round `round` of dialogue `id`, or of case report `id` (round omitted). */
export function sampleId(id: string, round?: number): string {
  return round === undefined ? `${BENCHMARK}:${id}` : `${BENCHMARK}:${id}:${round}`;
}

/** Renders a case report as the patient's message. */
export function renderCase(c: CaseReport): string {
  return [
    `患者信息：${c.sex === "female" ? "女" : "男"}，${c.age}岁。`,
    `个人史：${c.personal_history}`,
    `家族史：${c.family_history}`,
    `症状：${c.symptoms}`,
    `用药史：${c.medication_history}`,
    `问题：${c.question}`,
  ].join("\n");
}

async function exists(path: string): Promise<boolean> {
  return (await Deno.stat(path).catch(() => null))?.isFile ?? false;
}

/** The item a sample belongs to, its kind and whether it is the round the item is scored on. */
export function itemOf(sample: Sample): { item: string; kind: ItemKind; scored: boolean } {
  const kind = sample.fields.kind as ItemKind;
  return { item: String(sample.fields.item), kind, scored: sample.fields.scored === 1 };
}

/** Reads the dialogues of `path`. */
async function readDialogues(path: string): Promise<Sample[]> {
  return jsonlRecords(await readTextStrict(path), path).flatMap(({ value, line }) => {
    const d = parseRecord(DialogueSchema, value, path, `line ${line}`);
    return d.rounds.map((question, i) => ({
      id: sampleId(d.id, i + 1),
      benchmark: BENCHMARK,
      input: question,
      reference: null,
      conversation: { id: d.id, turn: i + 1 },
      fields: {
        kind: "dialogue",
        item: d.id,
        round: i + 1,
        // The whole dialogue is scored once, on its last round, with the conversation so far.
        scored: i + 1 === d.rounds.length ? 1 : 0,
        disease_type: d.disease_type,
        question_category: d.question_category,
      },
      extra: {},
    }));
  });
}

/** Reads the case reports of `path`. */
async function readCases(path: string): Promise<Sample[]> {
  return jsonlRecords(await readTextStrict(path), path).map(({ value, line }) => {
    const c = parseRecord(CaseReportSchema, value, path, `line ${line}`);
    return {
      id: sampleId(c.id),
      benchmark: BENCHMARK,
      input: renderCase(c),
      reference: null,
      conversation: null,
      fields: {
        kind: "case",
        item: c.id,
        round: 1,
        scored: 1,
        disease_type: c.disease_type,
        question_category: c.question_category,
      },
      extra: { case: c },
    };
  });
}

/**
 * Reads `dir` (a directory with `dialogues.jsonl` and/or `case_reports.jsonl`) or a single one of those files.
 * Throws {@linkcode InputError} when neither is there, a line is invalid, or an id repeats.
 */
export async function loadMedGptEval(path: string): Promise<Sample[]> {
  const isDir = (await Deno.stat(path).catch(() => null))?.isDirectory ?? false;
  const dialogues = isDir ? `${path}/${FILES.dialogues}` : path.endsWith(FILES.dialogues) ? path : null;
  const cases = isDir ? `${path}/${FILES.cases}` : path.endsWith(FILES.cases) ? path : null;
  const samples: Sample[] = [];
  if (dialogues && await exists(dialogues)) samples.push(...await readDialogues(dialogues));
  if (cases && await exists(cases)) samples.push(...await readCases(cases));
  if (samples.length === 0) {
    throw new InputError(
      { file: path },
      `no MedGPTEval data: expected a directory with ${FILES.dialogues} and/or ${FILES.cases}, or one of them`,
    );
  }
  const seen = new Set<string>();
  for (const s of samples) {
    const item = String(s.fields.item);
    if (s.fields.round === 1 && seen.has(item)) {
      throw new InputError(
        { file: path, record: item },
        "id used by two items (dialogue and case report ids share one space)",
      );
    }
    if (s.fields.round === 1) seen.add(item);
  }
  return samples;
}
