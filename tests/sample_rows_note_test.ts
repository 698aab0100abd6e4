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
  eachSampleRowJson,
  rowHeadsDigest,
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
    const end = store.rowsMark();
    assertEquals([end?.store, end?.rows], [start.store, 14]);
    assertNotEquals(end?.generation, start.generation);
  });
});

Deno.test("the one sample of a new store, written at once outside the timed writes, counts as it is written", async () => {
  await withTempStore((store) => {
    const start = store.rowsMark();
    store.putSamples([sample("only")]);
    const after = store.rowsMark();
    assertEquals(after?.rows, 1);
    assertNotEquals(after?.generation, start?.generation);
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
    // Edited in place (to another size: file times may tick coarser than the test runs).
    await Deno.writeTextFile(path, expected.replace("answer a", "answer a, edited"));
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

Deno.test("the row heads' digest changes with any id, field, input or order, across chunks", async () => {
  const many = Array.from({ length: 2500 }, (_, i) => sample(`s${i}`));
  const digest = (samples: Sample[], asked: Sample[] | undefined = samples) => rowHeadsDigest(samples, asked);
  const base = await digest(many);
  assertEquals(await digest([...many]), base);
  const edited = (at: number, change: Partial<Sample>) =>
    many.map((s, i) => i === at ? { ...s, ...change } : s);
  // An edit in the first, a middle and the last chunk of 1,024.
  for (const at of [0, 1500, 2499]) {
    assertNotEquals(await digest(edited(at, { input: "other" })), base, `at ${at}`);
  }
  assertNotEquals(await digest(edited(7, { id: "x" })), base);
  assertNotEquals(await digest(edited(7, { fields: { f: "s7", difficulty: "hard" } })), base);
  assertNotEquals(await digest([many[1], many[0], ...many.slice(2)]), base);
  assertNotEquals(await digest(many.slice(0, 2048)), await digest(many.slice(0, 2049)));
  // The input a row shows is the one asked, else the stored sample's own.
  assertNotEquals(await digest(many, edited(3, { input: "asked otherwise" })), base);
  assertEquals(await digest(many, many.slice(0, 10)), await digest(many, many.slice(0, 10)));
  assertNotEquals(await digest(many, []), await digest(many, undefined));
});

Deno.test("a digest begun ahead is the one the note takes", async () => {
  await withWrittenRows(async (store, dir) => {
    const ahead = rowHeadsDigest(store.samples(), SAMPLES);
    assertEquals(await writeSampleRows(dir, store, "c", SAMPLES, { digest: ahead }), "kept");
    const other = rowHeadsDigest(store.samples(), SAMPLES.slice(1));
    assertEquals(await writeSampleRows(dir, store, "c", SAMPLES, { digest: other }), "written");
  });
});

Deno.test("sample fields the store holds otherwise than when the rows were written have them written again", async () => {
  await withTempDir("rows-note", async (dir) => {
    const path = `${dir}/run.sqlite`;
    const first = new RunStore(path);
    fill(first);
    await writeSampleRows(dir, first, "c", SAMPLES);
    first.close();
    // A resume whose samples carry another field (a task file's groups changed, say): the store holds the plan's.
    const regrouped = SAMPLES.map((s) => ({ ...s, fields: { ...s.fields, difficulty: "easy" } }));
    const again = new RunStore(path);
    again.putSamples(regrouped);
    assertEquals(await writeSampleRows(dir, again, "c", regrouped), "written");
    assert((await Deno.readTextFile(`${dir}/samples.jsonl`)).includes('"difficulty":"easy"'));
    again.close();
  });
});

Deno.test("a store restored from a copy and written to as often again has the rows written again", async () => {
  await withTempDir("rows-note", async (dir) => {
    const path = `${dir}/run.sqlite`;
    const store = new RunStore(path);
    fill(store);
    store.close();
    await Deno.copyFile(path, `${dir}/backup.sqlite`);
    const ratings = (value: number) => [storedScore({ sampleId: "a", condition: "c", value })];
    const v1 = new RunStore(path);
    v1.replaceScores("m", "c", ratings(0.25));
    await writeSampleRows(dir, v1, "c", SAMPLES);
    const noted = v1.rowsMark();
    v1.close();
    for (const suffix of ["", "-wal", "-shm"]) await Deno.remove(path + suffix).catch(() => {});
    await Deno.copyFile(`${dir}/backup.sqlite`, path);
    const v2 = new RunStore(path);
    v2.replaceScores("m", "c", ratings(0.75));
    assertEquals(v2.rowsMark()?.rows, noted?.rows, "the same count");
    assertEquals(await writeSampleRows(dir, v2, "c", SAMPLES), "written");
    assert((await Deno.readTextFile(`${dir}/samples.jsonl`)).includes("0.75"));
    v2.close();
  });
});
