/**
 * The log's outputs and scores files are kept when the store's rows are as they were when the files were
 * written (the note beside each says so): a resumed run that stored nothing new, or a second export, does not
 * write them again. An output or a score stored since, scores replaced, an edited file, a note of another format
 * or a missing note has them written afresh, as a fresh export writes them.
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { exportStore } from "../lib/store/export.ts";
import { notePath } from "../lib/store/file_note.ts";
import type { RunStore } from "../lib/store/run_store.ts";
import { storedScore, withTempDir, withTempStore } from "./temp_store.ts";

/** Counts how often `store`'s outputs and scores are read for the log while `fn` runs. */
async function rowReads(
  store: RunStore,
  fn: () => Promise<unknown>,
): Promise<{ outputs: number; scores: number }> {
  const eachOutputLine = store.eachOutputLine.bind(store);
  const eachScoreJson = store.eachScoreJson.bind(store);
  const reads = { outputs: 0, scores: 0 };
  store.eachOutputLine = () => (reads.outputs++, eachOutputLine());
  store.eachScoreJson = () => (reads.scores++, eachScoreJson());
  try {
    await fn();
  } finally {
    store.eachOutputLine = eachOutputLine;
    store.eachScoreJson = eachScoreJson;
  }
  return reads;
}

/** Stores the output and the score of sample `id`. */
function answer(store: RunStore, id: string, value = 1): void {
  store.putOutput({ sampleId: id, condition: "default", callKey: null, text: `a ${id}`, error: null });
  store.putScore(storedScore({ sampleId: id, condition: "default", value }));
}

/** Asserts that the outputs and scores files in `log` are what an export into a directory of its own writes. */
async function assertFresh(store: RunStore, log: string, dir: string): Promise<void> {
  const fresh = `${dir}/fresh-${crypto.randomUUID()}`;
  await exportStore(store, fresh);
  for (const name of ["outputs", "scores"]) {
    assertEquals(
      await Deno.readTextFile(`${log}/${name}.jsonl`),
      await Deno.readTextFile(`${fresh}/${name}.jsonl`),
    );
  }
}

/** Runs `fn` with a store of three answered samples exported once into `log` (checked: that export reads both). */
async function withExportedStore(fn: (store: RunStore, log: string, dir: string) => Promise<void>) {
  await withTempStore((store) =>
    withTempDir("rows-note", async (dir) => {
      for (const id of ["s1", "s2", "s3"]) answer(store, id);
      const log = `${dir}/log`;
      assertEquals(await rowReads(store, () => exportStore(store, log)), { outputs: 1, scores: 1 });
      await fn(store, log, dir);
    })
  );
}

Deno.test("a second export keeps the outputs and scores files, and writes the events", async () => {
  await withExportedStore(async (store, log, dir) => {
    const before = await Deno.stat(`${log}/outputs.jsonl`);
    store.logEvent("resume", { at: "now" });
    assertEquals(await rowReads(store, () => exportStore(store, log)), { outputs: 0, scores: 0 });
    assertEquals((await Deno.stat(`${log}/outputs.jsonl`)).mtime?.getTime(), before.mtime?.getTime());
    assert((await Deno.readTextFile(`${log}/events.jsonl`)).includes('"resume"'));
    await assertFresh(store, log, dir);
  });
});

Deno.test("an output or a score stored since, or scores replaced, has both files written again", async () => {
  await withExportedStore(async (store, log, dir) => {
    answer(store, "s4");
    assertEquals(await rowReads(store, () => exportStore(store, log)), { outputs: 1, scores: 1 });
    assert((await Deno.readTextFile(`${log}/outputs.jsonl`)).includes('"s4"'));
    await assertFresh(store, log, dir);

    // A score replaced in place (same key, another value) leaves the table with as many rows, but is a change.
    store.putScore(storedScore({ sampleId: "s1", condition: "default", value: 0 }));
    assertEquals(await rowReads(store, () => exportStore(store, log)), { outputs: 1, scores: 1 });
    await assertFresh(store, log, dir);

    store.replaceScores("m", "default", [storedScore({ sampleId: "s2", condition: "default", value: 0.5 })]);
    assertEquals(await rowReads(store, () => exportStore(store, log)), { outputs: 1, scores: 1 });
    await assertFresh(store, log, dir);
  });
});

Deno.test("an edited file, a note of another format or no note has that file written again", async () => {
  await withExportedStore(async (store, log) => {
    const outputs = `${log}/outputs.jsonl`;
    const scores = `${log}/scores.jsonl`;
    const expected = await Deno.readTextFile(outputs);

    await Deno.writeTextFile(outputs, expected.replace("a s2", "a s2 edited"));
    assertEquals(await rowReads(store, () => exportStore(store, log)), { outputs: 1, scores: 0 });
    assertEquals(await Deno.readTextFile(outputs), expected);

    const note = JSON.parse(await Deno.readTextFile(notePath(scores)));
    await Deno.writeTextFile(notePath(scores), JSON.stringify({ ...note, format: note.format + 1 }));
    assertEquals(await rowReads(store, () => exportStore(store, log)), { outputs: 0, scores: 1 });

    await Deno.remove(notePath(outputs));
    assertEquals(await rowReads(store, () => exportStore(store, log)), { outputs: 1, scores: 0 });
    await Deno.remove(scores);
    assertEquals(await rowReads(store, () => exportStore(store, log)), { outputs: 0, scores: 1 });
    assertEquals(await Deno.readTextFile(outputs), expected);
  });
});

Deno.test("another store with the same rows has the files written again", async () => {
  await withTempDir("rows-note", async (dir) => {
    const log = `${dir}/log`;
    await withTempStore(async (first) => {
      answer(first, "s1");
      await exportStore(first, log);
    });
    await withTempStore(async (again) => {
      answer(again, "s1");
      assertEquals(await rowReads(again, () => exportStore(again, log)), { outputs: 1, scores: 1 });
    });
  });
});
