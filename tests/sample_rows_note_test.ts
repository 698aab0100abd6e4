/**
 * A condition's `samples.jsonl` is kept when its note says it was derived from the store's rows as they are now
 * and from the same inputs (a rerun that stored nothing new does not rebuild the run's largest file). Any row of
 * samples, outputs or scores written, replaced or deleted since (even one that leaves the tables' sizes as they
 * were), other inputs, another store, an edited file, a note of another format or no note has it written afresh.
 * @module
 */
import { assert, assertEquals, assertNotEquals } from "@std/assert";
import type { Sample } from "../lib/core/sample.ts";
import {
  askedDigest,
  eachSampleRowJson,
  SAMPLE_ROWS_FORMAT,
  sampleRowJson,
  sampleRowsNotePath,
  writeSampleRows,
} from "../lib/pipeline/sample_rows.ts";
import { RunStore, scoreRowJson } from "../lib/store/run_store.ts";
import { offlineClimedBenchArgs, runCli } from "./run_cli.ts";
import { storedScore, withTempDir, withTempStore } from "./temp_store.ts";

/** A sample with an id and an input. */
function sample(id: string, input = `question ${id}`): Sample {
  return { id, benchmark: "t", input, reference: null, conversation: null, fields: { f: id }, extra: {} };
}

const SAMPLES = ["a", "b", "c"].map((id) => sample(id));

/** Stores the three samples, an answer of each and a score of each under condition `c`. */
function fill(store: RunStore): void {
  store.putSamples(SAMPLES);
  for (const s of SAMPLES) {
    store.putOutput({ sampleId: s.id, condition: "c", callKey: null, text: `answer ${s.id}`, error: null });
    store.putScore(storedScore({ sampleId: s.id, condition: "c", value: 1 }));
  }
}

/** The rows the store gives now, as the file would hold them. */
function rowsNow(store: RunStore, asked: readonly Sample[] = SAMPLES): string {
  return [...eachSampleRowJson(store, "c", asked)].map((row) => row + "\n").join("");
}

/** Runs `fn` with a filled store whose rows were written once into `dir` (checked: that first write wrote them). */
async function withWrittenRows(fn: (store: RunStore, dir: string) => Promise<void>) {
  await withTempStore((store) =>
    withTempDir("rows-note", async (dir) => {
      fill(store);
      assertEquals(await writeSampleRows(dir, store, "c", SAMPLES), "written");
      await fn(store, dir);
    })
  );
}

Deno.test("the store counts every row of samples, outputs and scores written, replaced or deleted", async () => {
  await withTempStore((store) => {
    const start = store.rowsMark();
    assert(start);
    assertEquals(start.rows, 0);
    fill(store);
    assertEquals(store.rowsMark()?.rows, 9);
    // The same samples again change nothing (they are stored already).
    store.putSamples(SAMPLES);
    assertEquals(store.rowsMark()?.rows, 9);
    // The last output replaced: the table's size and largest rowid are as they were, the count is not.
    store.putOutput({ sampleId: "c", condition: "c", callKey: null, text: "other", error: null });
    assertEquals(store.rowsMark()?.rows, 10);
    store.replaceScores("m", "c", [storedScore({ sampleId: "a", condition: "c", value: 0 })]);
    assertEquals(store.rowsMark()?.rows, 10 + 3 + 1);
    // Events and calls are not rows of samples.jsonl.
    store.logEvent("note", {});
    assertEquals(store.rowsMark(), { store: start.store, rows: 14 });
  });
});

Deno.test("a store keeps its name and count when reopened; another store has another name", async () => {
  await withTempDir("rows-note", (dir) => {
    const first = new RunStore(`${dir}/one.sqlite`);
    fill(first);
    const mark = first.rowsMark();
    first.close();
    const again = new RunStore(`${dir}/one.sqlite`);
    assertEquals(again.rowsMark(), mark);
    again.close();
    const other = new RunStore(`${dir}/two.sqlite`);
    fill(other);
    assertEquals(other.rowsMark()?.rows, mark?.rows);
    assertNotEquals(other.rowsMark()?.store, mark?.store);
    other.close();
  });
});

Deno.test("rows written again for an unchanged store and the same inputs are kept, untouched", async () => {
  await withWrittenRows(async (store, dir) => {
    const before = await Deno.stat(`${dir}/samples.jsonl`);
    store.logEvent("resume", {});
    assertEquals(await writeSampleRows(dir, store, "c", SAMPLES), "kept");
    assertEquals((await Deno.stat(`${dir}/samples.jsonl`)).mtime?.getTime(), before.mtime?.getTime());
    assertEquals(await Deno.readTextFile(`${dir}/samples.jsonl`), rowsNow(store));
  });
});

Deno.test("a row replaced, other inputs or another condition have the rows written again", async () => {
  await withWrittenRows(async (store, dir) => {
    store.putOutput({ sampleId: "c", condition: "c", callKey: null, text: "replaced", error: null });
    assertEquals(await writeSampleRows(dir, store, "c", SAMPLES), "written");
    assert((await Deno.readTextFile(`${dir}/samples.jsonl`)).includes("replaced"));
    assertEquals(await writeSampleRows(dir, store, "c", SAMPLES), "kept");

    const perturbed = [SAMPLES[0], sample("b", "perturbed b"), SAMPLES[2]];
    assertEquals(await writeSampleRows(dir, store, "c", perturbed), "written");
    assertEquals(await Deno.readTextFile(`${dir}/samples.jsonl`), rowsNow(store, perturbed));

    assertEquals(await writeSampleRows(dir, store, "other", perturbed), "written");
  });
});

Deno.test("an edited file, a note of another format or no note has the rows written again", async () => {
  await withWrittenRows(async (store, dir) => {
    const path = `${dir}/samples.jsonl`;
    const expected = rowsNow(store);
    await Deno.writeTextFile(path, expected.replace("answer a", "answer A"));
    assertEquals(await writeSampleRows(dir, store, "c", SAMPLES), "written");
    assertEquals(await Deno.readTextFile(path), expected);

    const note = JSON.parse(await Deno.readTextFile(sampleRowsNotePath(dir)));
    assertEquals(note.format, SAMPLE_ROWS_FORMAT);
    await Deno.writeTextFile(sampleRowsNotePath(dir), JSON.stringify({ ...note, format: note.format + 1 }));
    assertEquals(await writeSampleRows(dir, store, "c", SAMPLES), "written");

    await Deno.remove(sampleRowsNotePath(dir));
    assertEquals(await writeSampleRows(dir, store, "c", SAMPLES), "written");
    await Deno.writeTextFile(sampleRowsNotePath(dir), "{");
    assertEquals(await writeSampleRows(dir, store, "c", SAMPLES), "written");
    assertEquals(await writeSampleRows(dir, store, "c", SAMPLES), "kept");
  });
});

Deno.test("a store made afresh with the same rows has the rows written again", async () => {
  await withTempDir("rows-note", async (dir) => {
    await withTempStore(async (first) => {
      fill(first);
      await writeSampleRows(dir, first, "c", SAMPLES);
    });
    await withTempStore(async (again) => {
      fill(again);
      assertEquals(await writeSampleRows(dir, again, "c", SAMPLES), "written");
    });
  });
});

Deno.test("rows written ahead are moved into place and noted, so the next write keeps them", async () => {
  await withTempStore((store) =>
    withTempDir("rows-note", async (dir) => {
      fill(store);
      await Deno.writeTextFile(`${dir}/ahead`, rowsNow(store));
      assertEquals(await writeSampleRows(dir, store, "c", SAMPLES, { ahead: `${dir}/ahead` }), "moved");
      assertEquals(await writeSampleRows(dir, store, "c", SAMPLES), "kept");
      assertEquals(await Deno.readTextFile(`${dir}/samples.jsonl`), rowsNow(store));
    })
  );
});

Deno.test("a row of samples.jsonl in format 1 (a change to it must change SAMPLE_ROWS_FORMAT)", () => {
  const score = scoreRowJson(storedScore({ sampleId: "a", condition: "c", value: 0.5, reason: "why" }));
  const row = sampleRowJson(sample("a"), "c", "asked a", { text: "A", error: null, detail: { k: 1 } }, [
    score,
  ]);
  assertEquals(SAMPLE_ROWS_FORMAT, 1);
  assertEquals(
    row,
    '{"id":"a","condition":"c","f":"a","input":"asked a","answer":"A","answer_error":null,"solver":{"k":1},' +
      '"scores":[{"scorer":"m","run":1,"value":0.5,"valid":true,"reason":"why"}]}',
  );
});

Deno.test("CLI: resuming a finished run keeps its samples.jsonl, which is the rows the store gives", async () => {
  await withTempDir("rows-note-cli", async (dir) => {
    const out = `${dir}/run`;
    const args = offlineClimedBenchArgs(out);
    const first = await runCli(args);
    assertEquals(first.code, 0, first.stderr);
    const before = await Deno.stat(`${out}/samples.jsonl`);
    const text = await Deno.readTextFile(`${out}/samples.jsonl`);
    const again = await runCli([...args, "--resume"]);
    assertEquals(again.code, 0, again.stderr);
    assertEquals((await Deno.stat(`${out}/samples.jsonl`)).mtime?.getTime(), before.mtime?.getTime());
    // Without its note, the resume writes the file from the store: the same bytes.
    await Deno.remove(sampleRowsNotePath(out));
    const rebuilt = await runCli([...args, "--resume"]);
    assertEquals(rebuilt.code, 0, rebuilt.stderr);
    assertNotEquals((await Deno.stat(`${out}/samples.jsonl`)).mtime?.getTime(), before.mtime?.getTime());
    assertEquals(await Deno.readTextFile(`${out}/samples.jsonl`), text);
  });
});

Deno.test("the inputs' digest changes with any id, input or order, across chunks, and with a digest given", async () => {
  const many = Array.from({ length: 2500 }, (_, i) => sample(`s${i}`));
  const base = await askedDigest(many);
  assertEquals(await askedDigest([...many]), base);
  const edited = (at: number, input: string) => many.map((s, i) => i === at ? { ...s, input } : s);
  // An edit in the first, a middle and the last chunk of 1,024.
  for (const at of [0, 1500, 2499]) assertNotEquals(await askedDigest(edited(at, "other")), base, `at ${at}`);
  assertNotEquals(await askedDigest(many.map((s, i) => i === 7 ? { ...s, id: "x" } : s)), base);
  assertNotEquals(await askedDigest([many[1], many[0], ...many.slice(2)]), base);
  assertNotEquals(await askedDigest(many.slice(0, 2048)), await askedDigest(many.slice(0, 2049)));
  assertNotEquals(await askedDigest([]), await askedDigest(undefined));
  // A digest begun ahead is the one the note takes.
  await withWrittenRows(async (store, dir) => {
    assertEquals(
      await writeSampleRows(dir, store, "c", SAMPLES, { digest: askedDigest(SAMPLES) }),
      "kept",
    );
    assertEquals(
      await writeSampleRows(dir, store, "c", SAMPLES, { digest: askedDigest(SAMPLES.slice(1)) }),
      "written",
    );
  });
});
