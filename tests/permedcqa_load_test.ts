import { assert, assertEquals, assertRejects } from "@std/assert";
import { parquetWriteBuffer } from "hyparquet-writer";
import { loadLabels, resolveLabel } from "../lib/benchmarks/permedcqa/labels.ts";
import { loadPerMedCqa, perMedCqaDataFile } from "../lib/benchmarks/permedcqa/load.ts";
import { ConfigError, InputError } from "../lib/core/errors.ts";
import { planEval } from "../lib/pipeline/plan.ts";
import { runCli } from "./run_cli.ts";

const DATA = new URL("../data/permedcqa/Data", import.meta.url).pathname;

const RECORD = {
  instance_id: "x-1",
  Title: "سردرد",
  Question: "سردرد دارم و ۳ روز است خوب نمی‌شود.",
  Expert_Answer: "استراحت کنید و اگر بدتر شد مراجعه کنید.",
  Category: "مغز و اعصاب",
  Specialty: "متخصص مغز و اعصاب",
  Sex: "female",
  Age: "۳۵",
  dataset_source: "DrYab",
  ICD_11: "08",
  Question_Type: "Information",
};

async function writeJson(records: unknown[], name = "test.json"): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "medeval-pm-load-" });
  const path = `${dir}/${name}`;
  await Deno.writeTextFile(
    path,
    name.endsWith(".jsonl") ? records.map((r) => JSON.stringify(r)).join("\n") : JSON.stringify(records),
  );
  return path;
}

async function loadError(records: unknown[], options = {}): Promise<string> {
  const path = await writeJson(records);
  const err = await assertRejects(() => loadPerMedCqa(path, options), InputError);
  assert(!err.message.includes("\n"));
  return err.message.replace(path, "FILE");
}

Deno.test("permedcqa labels: the 28 ICD-11 categories and 25 question types; codes, English and Persian names agree", async () => {
  const { icd, types } = await loadLabels();
  assertEquals(icd.entries.length, 28);
  assertEquals(icd.entries.map((e) => e.id).slice(-3), ["26", "V", "X"]);
  assertEquals(types.entries.length, 25);
  const mental = icd.byId.get("06")!;
  assertEquals(mental.specialist, "psychiatrist");
  for (
    const label of ["06", "6", "Chapter 6", mental.english, mental.english.toUpperCase(), mental.persian]
  ) {
    assertEquals(resolveLabel(icd, label), "06", label);
  }
  // Arabic yeh/kaf spellings of a Persian name resolve too.
  assertEquals(resolveLabel(icd, mental.persian.replaceAll("ی", "ي").replaceAll("ک", "ك")), "06");
  const side = types.entries.find((t) => t.english === "Side Effects")!;
  for (const label of ["Side Effects", "side_effects", side.persian]) {
    assertEquals(resolveLabel(types, label), side.id);
  }
  assertEquals(resolveLabel(icd, "Chapter 99"), undefined);
});

Deno.test("permedcqa loader: the shipped split directory, labels as codes, English and Persian, Persian digits", async () => {
  assert((await perMedCqaDataFile(DATA)).endsWith("/test.json"));
  assert((await perMedCqaDataFile(DATA, { split: "eval" })).endsWith("/eval.json"));
  const [test, evalSplit, train] = await Promise.all([
    loadPerMedCqa(DATA),
    loadPerMedCqa(DATA, { split: "eval" }),
    loadPerMedCqa(DATA, { split: "train" }),
  ]);
  assertEquals([test.length, evalSplit.length, train.length], [40, 12, 30]);
  const ids = new Set((await loadLabels()).icd.entries.map((e) => e.id));
  for (const s of [...test, ...evalSplit, ...train]) {
    assert(ids.has(String(s.fields.icd11)), `${s.id}: ${s.fields.icd11}`);
    assertEquals(s.fields.icd11_x_type, `${s.fields.icd11} × ${s.fields.question_type}`);
  }
  assert(new Set(test.map((s) => s.fields.icd11)).size >= 8);
  const path = await writeJson([RECORD]);
  const [one] = await loadPerMedCqa(path);
  assertEquals(one.id, "permedcqa:x-1");
  assertEquals(one.input, RECORD.Question); // raw text is what models see
  assertEquals([
    one.fields.icd11,
    one.fields.question_type,
    one.fields.sex,
    one.fields.age_band,
    one.fields.source,
  ], [
    "08",
    "information",
    "female",
    "30-44",
    "DrYab",
  ]);
  assertEquals(one.extra.age, 35);
});

Deno.test("permedcqa loader: JSONL, Parquet and --columns read the same records", async () => {
  const renamed = { ...RECORD, ICD: RECORD.ICD_11, QType: RECORD.Question_Type };
  delete (renamed as Record<string, unknown>).ICD_11;
  delete (renamed as Record<string, unknown>).Question_Type;
  const jsonl = await writeJson([renamed, { ...renamed, instance_id: "x-2" }], "test.jsonl");
  const columns = { icd: "ICD", type: "QType" };
  const fromJsonl = await loadPerMedCqa(jsonl, { columns });
  assertEquals(fromJsonl.map((s) => s.fields.icd11), ["08", "08"]);
  const keys = Object.keys(renamed) as (keyof typeof renamed)[];
  const parquet = parquetWriteBuffer({
    columnData: keys.map((k) => ({
      name: k,
      data: [renamed[k], k === "instance_id" ? "x-2" : renamed[k]],
      type: "STRING",
    })),
  });
  const path = jsonl.replace(".jsonl", ".parquet");
  await Deno.writeFile(path, new Uint8Array(parquet));
  const fromParquet = await loadPerMedCqa(path, { columns });
  assertEquals(fromParquet, fromJsonl);
  const err = await assertRejects(() => loadPerMedCqa(jsonl), InputError);
  assertEquals(
    err.message,
    `${jsonl}: line 1 (instance_id x-1): field "ICD_11": missing ICD-11 category (label untagged data with \`deno task tag permedcqa\`)`,
  );
});

/** Bad files and the one-line error each gives (FILE stands for the file's path). */
const BAD_INPUT: [unknown, string][] = [
  [
    [RECORD, { ...RECORD, instance_id: "x-2", ICD_11: "Chapter 99" }],
    'FILE: record 2 (instance_id x-2): field "ICD_11": unknown ICD-11 category string "Chapter 99"; expected a code, English or Persian name of data/permedcqa/icd11.json',
  ],
  [
    [{ ...RECORD, Question_Type: "Gossip" }],
    'FILE: record 1 (instance_id x-1): field "Question_Type": unknown question type string "Gossip"; expected a code, English or Persian name of data/permedcqa/question_types.json',
  ],
  [
    [{ ...RECORD, Question: " " }],
    'FILE: record 1 (instance_id x-1): field "Question": expected non-empty text (found string " ")',
  ],
  [
    [{ ...RECORD, Sex: "other" }],
    'FILE: record 1 (instance_id x-1): field "Sex": expected female, male or unknown (found string "other")',
  ],
  [
    [{ ...RECORD, Age: "سی" }],
    'FILE: record 1 (instance_id x-1): field "Age": expected an age in years 0-120 or nothing (found string "سی")',
  ],
  [[RECORD, RECORD], 'FILE: record 2: field "instance_id": duplicate id x-1 (first at record 1)'],
  [
    [{ ...RECORD, instance_id: null }],
    'FILE: record 1: field "instance_id": expected a string or integer id (found null)',
  ],
  [{}, "FILE: expected a JSON array of records (found object {})"],
];

Deno.test("permedcqa loader: bad input is one line naming file, record and column", async () => {
  for (const [records, expected] of BAD_INPUT) assertEquals(await loadError(records as unknown[]), expected);
  const dir = await Deno.makeTempDir();
  const err = await assertRejects(() => perMedCqaDataFile(dir), InputError);
  assertEquals(
    err.message,
    `${dir}: no test split: expected test.json, test.jsonl or test.parquet in it or in its Data/`,
  );
});

Deno.test("permedcqa eval: an unknown --columns key or label fails before anything is written", async () => {
  const out = await Deno.makeTempDir({ prefix: "medeval-pm-cli-" });
  const evalOffline = (...args: string[]) =>
    runCli([
      "eval",
      "permedcqa",
      "--model",
      "offline:reference",
      "--judge",
      "offline:medjudge",
      "--out",
      `${out}/run`,
      ...args,
    ]);
  const bad = await evalOffline("--columns", "icdx=ICD");
  assertEquals(bad.code, 2);
  assertEquals(bad.errors, [
    'error: --columns: unknown column key "icdx"; known: id, title, question, answer, category, specialty, sex, age, source, icd, type',
  ]);
  const path = await writeJson([{ ...RECORD, ICD_11: "nonsense" }]);
  const label = await evalOffline("--data", path);
  assertEquals(label.code, 2);
  assertEquals(label.errors.length, 1);
  assert(label.errors[0].includes('field "ICD_11": unknown ICD-11 category string "nonsense"'));
  assertEquals([...Deno.readDirSync(out)].length, 0);
});

Deno.test("permedcqa few-shot: never from the evaluated split, never the shipped sample for the user's data; --columns reach the train split", async () => {
  const out = await Deno.makeTempDir({ prefix: "medeval-pm-aux-" });
  const base = {
    benchmark: "permedcqa",
    model: "offline:reference",
    judge: "offline:medjudge",
    judgeRuns: 1,
    ablations: ["fewshot"],
    progress: false,
    renderFigures: false,
  };
  // Evaluating the train split itself: there is no other train split to draw from.
  await assertRejects(
    () =>
      planEval({ ...base, data: DATA, split: "train", out: `${out}/a`, aux: [`train=${DATA}/train.json`] }),
    ConfigError,
    "is the evaluated data itself",
  );
  // The user's own file with no train split beside it: the shipped sample is not used behind their back.
  const own = await writeJson([RECORD]);
  await assertRejects(
    () => planEval({ ...base, data: own, out: `${out}/b` }),
    ConfigError,
    "--aux: permedcqa needs train: pass --aux train=PATH",
  );
  // Renamed columns apply to the train split beside the data as well.
  const dir = await Deno.makeTempDir({ prefix: "medeval-pm-cols-" });
  const rename = (r: Record<string, unknown>) => {
    const { Question, ...rest } = r;
    return { ...rest, Q: Question };
  };
  await Deno.writeTextFile(`${dir}/test.json`, JSON.stringify([rename(RECORD)]));
  await Deno.writeTextFile(`${dir}/train.json`, JSON.stringify([rename({ ...RECORD, instance_id: "t-1" })]));
  const plan = await planEval({ ...base, data: dir, columns: "question=Q", out: `${out}/c` });
  assertEquals(plan.auxiliary.get("train")!.samples[0].input, RECORD.Question);
  assertEquals((plan.identity as { columns?: unknown }).columns, { question: "Q" });
  // A baseline-only run reads no train split at all.
  const baseline = await planEval({
    ...base,
    ablations: [],
    data: dir,
    columns: "question=Q",
    out: `${out}/d`,
  });
  assertEquals(baseline.auxiliary.size, 0);
});
