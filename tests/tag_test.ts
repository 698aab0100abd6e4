import { assert, assertEquals, assertMatch } from "@std/assert";
import { loadLabels } from "../lib/benchmarks/permedcqa/labels.ts";
import { loadPerMedCqa } from "../lib/benchmarks/permedcqa/load.ts";
import { readTagReply, TAG_USER_TEMPLATE } from "../lib/benchmarks/permedcqa/tag_prompts.ts";
import { csvText } from "../lib/core/csv.ts";
import { sha256Hex } from "../lib/core/hash.ts";
import { parquetWriteBuffer } from "hyparquet-writer";
import { tagPerMedCqa, type TagSummary } from "../lib/benchmarks/permedcqa/tag.ts";
import { type FakeChatBody, startFakeServer } from "./fake_server.ts";
import { runCli } from "./run_cli.ts";

const labels = await loadLabels();

/** Six untagged-or-partly-tagged Persian records; each question is unique, so the fake can tell them apart. */
const RECORDS = [
  {
    instance_id: "t1",
    Question: "سلام، قرص متفورمین را روزی چند بار باید بخورم؟",
    Expert_Answer: "معمولاً دو بار در روز همراه غذا.",
    ICD_11: "02",
    Question_Type: "dose",
  },
  {
    instance_id: "t2",
    Question: "سرفه خشک من دو هفته است خوب نمی‌شود، چه کنم؟",
    Expert_Answer: "عکس ریه لازم است.",
  },
  {
    instance_id: "t3",
    Title: "توده پستان",
    Question: "یک توده کوچک در پستانم حس می‌کنم، آیا خطرناک است؟",
    Expert_Answer: "سونوگرافی انجام دهید.",
    ICD_11: "Neoplasms",
  },
  {
    instance_id: "t4",
    Question: "آیا مصرف ایبوپروفن با وارفارین خطر دارد؟",
    Expert_Answer: "بله، خطر خونریزی دارد.",
  },
  {
    instance_id: "t5",
    Question: "پوستم بعد از آفتاب قرمز و خارش‌دار می‌شود.",
    Expert_Answer: "ضدآفتاب بزنید.",
  },
  { instance_id: 6, Question: "سردرد صبحگاهی دارم و فشارم بالاست.", Expert_Answer: "فشار خون را کنترل کنید." },
];

const QUESTIONS = RECORDS.map((r) => r.Question);
const WAVERING = RECORDS[3].Question; // invalid on attempt 1, Persian names on attempt 2
const HOPELESS = RECORDS[4].Question; // never valid

/** The labels the script gives a question: picked by its hash. */
function scripted(question: string): { icd11: string; type: string } {
  const h = parseInt(sha256Hex(question).slice(0, 8), 16);
  return {
    icd11: labels.icd.entries[h % labels.icd.entries.length].id,
    type: labels.types.entries[(h >>> 5) % labels.types.entries.length].id,
  };
}

/** The fake tagger: deterministic replies per question and attempt. */
function reply(body: FakeChatBody): string {
  const user = body.messages[1]?.content ?? "";
  const question = QUESTIONS.find((q) => user.includes(q));
  if (!question) return "I do not know.";
  const attempt = (body.messages.length - 2) / 2 + 1;
  const { icd11, type } = scripted(question);
  if (question === HOPELESS) {
    return JSON.stringify({ reasoning: "?", icd11: "Mars", question_type: "gossip" });
  }
  if (question === WAVERING) {
    if (attempt === 1) return JSON.stringify({ reasoning: "...", icd11: "99", question_type: type });
    return JSON.stringify({
      reasoning: "پرسش دربارهٔ تداخل دارویی است.",
      icd11: labels.icd.byId.get(icd11)!.persian,
      question_type: labels.types.byId.get(type)!.persian,
    });
  }
  // Fenced JSON after a sentence, as many chat models answer.
  return `Here it is:\n\`\`\`json\n${
    JSON.stringify({ reasoning: "ok", icd11, question_type: type })
  }\n\`\`\``;
}

function readJsonl(text: string): Record<string, unknown>[] {
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

Deno.test("tag prompts: the question is shown as given; ids, English and Persian names all resolve", () => {
  assert(TAG_USER_TEMPLATE.includes("{question}"));
  const ok = readTagReply(labels, '{"reasoning": "x", "icd11": "Chapter 2", "question_type": "Dosage"}');
  assertEquals(ok, { ok: true, icd11: "02", questionType: "dose" });
  const persian = readTagReply(
    labels,
    JSON.stringify({ icd11: labels.icd.byId.get("01")!.persian, question_type: "دوز" }),
  );
  assertEquals(persian, { ok: true, icd11: "01", questionType: "dose" });
  const bad = readTagReply(labels, '{"icd11": "99"}');
  assert(!bad.ok);
  assertEquals(bad.problems.length, 2);
  assertEquals(readTagReply(labels, "no json here"), {
    ok: false,
    problems: ["the reply holds no JSON object"],
  });
});

Deno.test("tag permedcqa: labels what is missing, keeps what is there, resumes without sending", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-tag-" });
  const server = await startFakeServer({ reply });
  const data = `${dir}/untagged.jsonl`;
  await Deno.writeTextFile(data, RECORDS.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const out = `${dir}/tagged`;
  const args = ["tag", "permedcqa", "--model", "fake-tagger", "--base-url", server.url, "--data", data];
  try {
    await t.step("first run: 8 requests, one record failed (exit 1), outputs in input order", async () => {
      const result = await runCli([...args, "--out", out, "--quiet"]);
      assertEquals(result.code, 1, result.stderr);
      assertEquals(result.stderr.trim(), "");
      assertMatch(result.stdout, /6 records, 1 kept, 4 tagged, 1 failed; 8 calls sent, 0 from the run store/);
      assertMatch(result.stdout, /deno task eval permedcqa --data .*tagged\.jsonl` stops at the first/);
      assertEquals(server.requests.length, 8);
      for (const request of server.requests) {
        const body = request.body as FakeChatBody;
        assertEquals(body.temperature, 0);
        assertEquals(body.response_format, { type: "json_object" });
        assert(body.messages[0].content.includes("01: Certain infectious or parasitic diseases"));
      }

      const rows = readJsonl(await Deno.readTextFile(`${out}/tagged.jsonl`));
      assertEquals(rows.map((r) => r.instance_id), RECORDS.map((r) => r.instance_id));
      assertEquals(rows.map((r) => r.Question), QUESTIONS);
      assertEquals(rows.map((r) => r.tag_status), ["kept", "tagged", "tagged", "tagged", "failed", "tagged"]);
      // Kept labels unchanged; a partly labelled record keeps its ICD-11 label as written and gets a type.
      assertEquals([rows[0].ICD_11, rows[0].Question_Type, rows[0].tagged_by], ["02", "dose", null]);
      assertEquals(rows[2].ICD_11, "Neoplasms");
      assertEquals(rows[2].Title, "توده پستان");
      for (const i of [1, 2, 3, 5]) {
        const want = scripted(QUESTIONS[i]);
        if (i !== 2) assertEquals(rows[i].ICD_11, want.icd11);
        assertEquals(rows[i].Question_Type, labels.types.byId.get(want.type)!.english);
        assertEquals(rows[i].tagged_by, `fake-tagger @ ${new URL(server.url).host}/v1`);
        assertEquals(rows[i].tag_reason, null);
      }
      assertEquals(rows[4].ICD_11, undefined);
      assertMatch(String(rows[4].tag_reason), /no valid reply in 3 attempts .*"icd11": "Mars" is not/);

      const summary: TagSummary = JSON.parse(await Deno.readTextFile(`${out}/tag_summary.json`));
      assertEquals(
        [summary.records, summary.kept, summary.tagged, summary.failed],
        [6, 1, 4, 1],
      );
      assertEquals(summary.calls, { sent: 8, cached: 0, retries: 0 });
      assertEquals(summary.failures.map((f) => [f.record, f.id]), [["line 5", "t5"]]);
      assertEquals(summary.icd11.length, 28);
      assertEquals(summary.question_type.length, 25);
      assertEquals(summary.icd11.reduce((n, c) => n + c.count, 0), 5);
      assertEquals(summary.question_type.reduce((n, c) => n + c.count, 0), 5);
      assertEquals(summary.icd11.find((c) => c.id === "02")!.count >= 2, true);
      assert(!JSON.stringify(summary).includes("sk-"));
    });

    await t.step("the output without its failures loads as labelled PerMedCQA data", async () => {
      const rows = readJsonl(await Deno.readTextFile(`${out}/tagged.jsonl`));
      const clean = `${dir}/clean.jsonl`;
      await Deno.writeTextFile(
        clean,
        rows.filter((r) => r.tag_status !== "failed").map((r) => JSON.stringify(r)).join("\n") + "\n",
      );
      const samples = await loadPerMedCqa(clean);
      assertEquals(samples.length, 5);
      assertEquals(samples[0].fields.icd11, "02");
      assertEquals(samples[2].fields.icd11, "02");
      const wavering = scripted(WAVERING);
      assertEquals(samples[3].fields.icd11, wavering.icd11);
      assertEquals(samples[3].fields.question_type, wavering.type);
    });

    await t.step("--resume sends nothing and writes the same output", async () => {
      const before = await Deno.readTextFile(`${out}/tagged.jsonl`);
      const sent = server.requests.length;
      const result = await runCli([...args, "--out", out, "--resume", "--quiet"]);
      assertEquals(result.code, 1, result.stderr);
      assertEquals(server.requests.length, sent);
      assertMatch(result.stdout, /0 calls sent, 8 from the run store/);
      assertEquals(await Deno.readTextFile(`${out}/tagged.jsonl`), before);
    });

    await t.step("the same --out without --resume, or with another model, is a one-line error", async () => {
      const again = await runCli([...args, "--out", out, "--quiet"]);
      assertEquals(again.code, 2);
      assertEquals(again.errors.length, 1, again.stderr);
      assertMatch(again.errors[0], /--out: .*tag\.sqlite already holds a tagging run: pass --resume/);
      const other = [...args, "--out", out, "--resume", "--quiet"];
      other[3] = "other-model";
      const changed = await runCli(other);
      assertEquals(changed.code, 2);
      assertEquals(changed.errors.length, 1, changed.stderr);
      assertMatch(changed.errors[0], /cannot resume .*the model differs/);
    });

    await t.step("bad flags are one-line errors and leave nothing behind", async () => {
      const columns = await runCli([...args, "--out", `${dir}/never`, "--columns", "bogus=X"]);
      assertEquals(columns.code, 2);
      assertEquals(columns.errors.length, 1, columns.stderr);
      assertMatch(columns.errors[0], /^error: --columns: unknown column key "bogus"; known: id, /);
      const limit = await runCli([...args, "--out", `${dir}/never`, "--limit", "0"]);
      assertMatch(limit.errors[0], /--limit expects an integer >= 1, got 0/);
      const offline = await runCli([
        "tag",
        "permedcqa",
        "--model",
        "offline:reference",
        "--data",
        data,
        "--out",
        `${dir}/never`,
      ]);
      assertMatch(offline.errors[0], /--model: .*unknown offline stand-in/);
      assertEquals(await Deno.stat(`${dir}/never`).catch(() => null), null);
    });

    await t.step("--retag --limit 1 asks about a labelled record too", async () => {
      const sent = server.requests.length;
      const result = await runCli([...args, "--out", `${dir}/retag`, "--retag", "--limit", "1", "--quiet"]);
      assertEquals(result.code, 0, result.stderr);
      assertEquals(server.requests.length, sent + 1);
      const [row] = readJsonl(await Deno.readTextFile(`${dir}/retag/tagged.jsonl`));
      const want = scripted(QUESTIONS[0]);
      assertEquals(row.tag_status, "tagged");
      assertEquals(row.ICD_11, want.icd11);
      assertEquals(row.Question_Type, labels.types.byId.get(want.type)!.english);
    });
    await t.step("Parquet with integer ids and --columns: labels go to the columns in effect", async () => {
      const parquet = `${dir}/own.parquet`;
      const picked = [RECORDS[1], RECORDS[5]];
      await Deno.writeFile(
        parquet,
        new Uint8Array(parquetWriteBuffer({
          columnData: [
            { name: "qid", data: [BigInt(101), BigInt(102)], type: "INT64" },
            { name: "Question", data: picked.map((r) => r.Question), type: "STRING" },
            { name: "Expert_Answer", data: picked.map((r) => r.Expert_Answer), type: "STRING" },
            { name: "ICD", data: [null, "Neoplasms"], type: "STRING" },
          ],
        })),
      );
      const result = await tagPerMedCqa({
        model: "fake-tagger",
        baseUrl: server.url,
        data: parquet,
        columns: { id: "qid", icd: "ICD", type: "QType" },
        out: `${dir}/parquet`,
        quiet: true,
      });
      assertEquals([result.summary.tagged, result.summary.failed], [2, 0]);
      const rows = readJsonl(await Deno.readTextFile(result.taggedPath));
      assertEquals(rows.map((r) => r.qid), [101, 102]);
      assertEquals(rows[0].ICD, scripted(picked[0].Question).icd11);
      assertEquals(rows[1].ICD, "Neoplasms");
      assertEquals(rows[1].QType, labels.types.byId.get(scripted(picked[1].Question).type)!.english);
      const samples = await loadPerMedCqa(result.taggedPath, {
        columns: { id: "qid", icd: "ICD", type: "QType" },
      });
      assertEquals(samples.map((s) => s.fields.icd11), [scripted(picked[0].Question).icd11, "02"]);
    });
    await t.step(
      "CSV data, as eval reads it: quoted cells with commas, empty cells missing, labels filled",
      async () => {
        const csv = `${dir}/own.csv`;
        const columns = [
          "instance_id",
          "Title",
          "Question",
          "Expert_Answer",
          "ICD_11",
          "Question_Type",
        ] as const;
        const picked = [RECORDS[1], { ...RECORDS[2], Title: 'توده، پستان, "سؤال"' }];
        await Deno.writeTextFile(
          csv,
          csvText([
            columns,
            ...picked.map((r) => columns.map((c) => (r as Record<string, string>)[c] ?? "")),
          ]),
        );
        const result = await runCli([...args.slice(0, -1), csv, "--out", `${dir}/csv`, "--quiet"]);
        assertEquals(result.code, 0, result.stderr);
        assertMatch(result.stdout, /2 records, 0 kept, 2 tagged, 0 failed/);
        const rows = readJsonl(await Deno.readTextFile(`${dir}/csv/tagged.jsonl`));
        assertEquals(rows.map((r) => r.instance_id), ["t2", "t3"]);
        assertEquals(rows[0].Title, null);
        assertEquals(rows[1].Title, picked[1].Title);
        assertEquals(rows[0].ICD_11, scripted(picked[0].Question).icd11);
        assertEquals(rows[1].ICD_11, "Neoplasms");
        assertEquals(
          rows[1].Question_Type,
          labels.types.byId.get(scripted(picked[1].Question).type)!.english,
        );
        // A row with more cells than the header is a one-line error naming the line.
        await Deno.writeTextFile(`${dir}/bad.csv`, "instance_id,Question\nx1,سلام\nx2,سلام,extra\n");
        const bad = await runCli([...args.slice(0, -1), `${dir}/bad.csv`, "--out", `${dir}/bad`, "--quiet"]);
        assertEquals(bad.code, 2);
        assertEquals(bad.errors, [`error: ${dir}/bad.csv: line 3: 3 cells but the header names 2 columns`]);
        assertEquals(await Deno.stat(`${dir}/bad`).catch(() => null), null);
      },
    );
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
