import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { loadClimedBench } from "../lib/benchmarks/climedbench/load.ts";
import { MTG_RATING_SPEC } from "../lib/benchmarks/llmeval_med/human_eval.ts";
import { loadLlmEvalMed } from "../lib/benchmarks/llmeval_med/load.ts";
import { InputError } from "../lib/core/errors.ts";
import { decodeUtf8Strict, firstInvalidUtf8, readBytes } from "../lib/core/text_file.ts";
import { readRatings } from "../lib/store/import_ratings.ts";
import { loadPaper } from "../lib/papers/paper.ts";
import { mulberry32 } from "../lib/stats/rng.ts";
import { pathExists } from "../lib/core/fs.ts";
import { ROOT, runCli } from "./run_cli.ts";
import { walkFiles } from "./walk.ts";
import { withTempDir } from "./temp_store.ts";

const bytes = (...b: number[]) => new Uint8Array(b);

Deno.test("firstInvalidUtf8 finds each kind of broken sequence at its offset", () => {
  const valid = new TextEncoder().encode("a中ه😀");
  assertEquals(firstInvalidUtf8(valid), -1);
  const cases: [Uint8Array, number, string][] = [
    [bytes(0x61, 0x80), 1, "stray continuation byte"],
    [bytes(0x61, 0x62, 0xc0, 0xaf), 2, "overlong two-byte form"],
    [bytes(0xe0, 0x80, 0xaf), 0, "overlong three-byte form"],
    [bytes(0x41, 0xed, 0xa0, 0x80), 1, "UTF-16 surrogate"],
    [bytes(0xf4, 0x90, 0x80, 0x80), 0, "above U+10FFFF"],
    [bytes(0xf5, 0x80, 0x80, 0x80), 0, "invalid lead byte"],
    [bytes(0x41, 0x42, 0x43, 0xe4, 0xb8), 3, "truncated at the end"],
    [bytes(0xe4, 0x41, 0x42), 0, "continuation missing"],
  ];
  for (const [input, offset, what] of cases) assertEquals(firstInvalidUtf8(input), offset, what);
});

Deno.test("firstInvalidUtf8 agrees with the platform's strict decoder on random bytes", () => {
  const random = mulberry32(20261123);
  const strict = new TextDecoder("utf-8", { fatal: true });
  for (let round = 0; round < 3000; round++) {
    // Mostly valid text with a few random bytes dropped in, so both outcomes occur often.
    const text = new TextEncoder().encode(["ab", "中文", "ه", "😀", "x"][round % 5].repeat(1 + (round % 7)));
    const input = new Uint8Array(text);
    if (round % 2 === 0) input[Math.floor(random() * input.length)] = Math.floor(random() * 256);
    let platformValid = true;
    try {
      strict.decode(input);
    } catch {
      platformValid = false;
    }
    assertEquals(firstInvalidUtf8(input) === -1, platformValid, `bytes ${[...input]}`);
  }
});

Deno.test("decodeUtf8Strict drops a byte-order mark and names file, line and byte of a broken sequence", () => {
  assertEquals(decodeUtf8Strict(bytes(0xef, 0xbb, 0xbf, 0x68, 0x69), "f.txt"), "hi");
  const broken = new Uint8Array([...new TextEncoder().encode("第一行\n第二"), 0xe8, 0x41]);
  const err = (() => {
    try {
      decodeUtf8Strict(broken, "data.jsonl");
    } catch (e) {
      return e as InputError;
    }
  })();
  assert(err instanceof InputError);
  assertStringIncludes(err.message, "data.jsonl: line 2, byte 16: not valid UTF-8");
});

/** Writes `text` to a new file with one broken byte sequence where `@@` stands, and returns path and offset. */
async function brokenFile(name: string, text: string): Promise<{ path: string; offset: number }> {
  const dir = await Deno.makeTempDir({ prefix: "medeval-utf8-" });
  const [head, tail] = text.split("@@");
  const left = new TextEncoder().encode(head);
  const path = `${dir}/${name}`;
  await Deno.writeFile(path, new Uint8Array([...left, 0xff, 0xfe, ...new TextEncoder().encode(tail)]));
  return { path, offset: left.length };
}

Deno.test("every loader refuses invalid UTF-8 with file and byte offset instead of reading U+FFFD", async () => {
  const loaders: [string, string, (path: string) => Promise<unknown>][] = [
    [
      "llmeval.json",
      '{"医疗知识": [{"category1": "医疗知识", "category2": "a", "round": 1, "problem": "头@@痛", "groupCode": 1}]}',
      loadLlmEvalMed,
    ],
    [
      "llmeval.jsonl",
      '{"category": "医疗知识", "category2": "a", "round": 1, "problem": "头@@痛", "groupCode": 1}\n',
      loadLlmEvalMed,
    ],
    [
      "climed.jsonl",
      '{"id": "x", "scenario": "ID#1", "question": "哪@@项", "options": {"A": "a", "B": "b"}, "answer": "A"}\n',
      loadClimedBench,
    ],
    [
      "ratings.csv",
      "sample_id,safety,B,C,D,E\nMTG-1-1,1,@@1,1,1,1\n",
      async (path: string) =>
        readRatings(await readBytes(path), path, MTG_RATING_SPEC, {
          defaultRater: "r",
          sampleIds: new Set(["MTG-1-1"]),
        }),
    ],
    ["paper.json", '{"paper": "toy@@"}', loadPaper],
  ];
  for (const [name, text, load] of loaders) {
    const { path, offset } = await brokenFile(name, text);
    const err = await assertRejects(() => load(path), InputError);
    assertStringIncludes(err.message, `${path}: line `, name);
    assertStringIncludes(err.message, `byte ${offset}: not valid UTF-8`, name);
  }
});

Deno.test("input files are read only through the strict reader", async () => {
  // Deno.readTextFile replaces broken bytes silently; lib/ may use it only for files it wrote itself.
  const allowed = new Set(["cli/setup.ts"]);
  const offenders: string[] = [];
  for await (const path of walkFiles(`${ROOT}lib`)) {
    if (!path.endsWith(".ts") || allowed.has(path.slice(`${ROOT}lib/`.length))) continue;
    if ((await Deno.readTextFile(path)).includes("Deno.readTextFile(")) offenders.push(path);
  }
  assertEquals(offenders, []);
});

Deno.test("CLI: a data file with broken UTF-8 stops before anything is written", async () => {
  const { path, offset } = await brokenFile(
    "items.jsonl",
    '{"id": "x", "scenario": "ID#1", "question": "哪@@项", "options": {"A": "a", "B": "b"}, "answer": "A"}\n',
  );
  const out = `${path}.run`;
  const result = await runCli([
    "eval",
    "climedbench",
    "--model",
    "offline:reference",
    "--data",
    path,
    "--out",
    out,
  ]);
  assertEquals(result.code, 2);
  assertEquals(result.errors.length, 1);
  assertStringIncludes(result.errors[0], `line 1, byte ${offset}: not valid UTF-8`);
  assertEquals(await pathExists(out), false);
});

/** Asserts that two byte arrays are equal, saying where they first differ (not diffing a megabyte). */
function assertSameBytes(got: Uint8Array, want: Uint8Array, what: string): void {
  const at = got.findIndex((b, i) => b !== want[i]);
  assertEquals(
    { length: got.length, firstDifference: at },
    { length: want.length, firstDifference: -1 },
    what,
  );
}

Deno.test("readBytes reads every byte: files of every size, and a FIFO, whose size is not known ahead", async () => {
  await withTempDir("read-whole", async (dir) => {
    for (const size of [0, 1, 65_535, 65_536, 65_537, 1_000_003]) {
      const bytes = Uint8Array.from({ length: size }, (_, i) => (i * 31 + 7) & 255);
      await Deno.writeFile(`${dir}/f${size}`, bytes);
      assertSameBytes(await readBytes(`${dir}/f${size}`), bytes, `${size} bytes`);
    }
    const fifo = `${dir}/fifo`;
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assertEquals(made.code, 0);
    const sent = Uint8Array.from({ length: 200_000 }, (_, i) => i & 255);
    const [got] = await Promise.all([readBytes(fifo), Deno.writeFile(fifo, sent)]);
    assertSameBytes(got, sent, "a FIFO read to its end");
  });
});
