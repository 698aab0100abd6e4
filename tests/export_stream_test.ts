import { assert, assertEquals, assertStringIncludes, assertThrows } from "@std/assert";
import { InputError } from "../lib/core/errors.ts";
import { type Sample, SampleSchema } from "../lib/core/sample.ts";
import type { StoredCall } from "../lib/core/records.ts";
import { exportStore, prepareExport, startExport, writeJsonLines } from "../lib/store/export.ts";
import { RunStore, SAMPLES_PER_FLUSH, storedSample } from "../lib/store/run_store.ts";
import { storedScore, withTempStore } from "./temp_store.ts";
import { waitUntil } from "./wait_until.ts";

/** Calls of every shape the store holds: optional fields set and unset, text needing escapes. */
function calls(): StoredCall[] {
  const base = {
    role: "model",
    model: "m",
    request: {
      messages: [{ role: "user" as const, content: '问："A" or B?\n\t\u2028' }],
      params: { temperature: 0.7 },
    },
    attempts: 1,
    latencyMs: 12.5,
    endpoint: null,
    condition: null,
  };
  return [
    {
      ...base,
      key: "k1",
      text: "答案：B",
      finishReason: "stop",
      usage: { prompt: 10, completion: 5 },
      createdAt: "2025-01-01T00:00:01Z",
    },
    {
      ...base,
      key: "k2",
      text: "",
      finishReason: null,
      usage: null,
      refusal: "I can't help with that",
      reasoning: "thinking…",
      createdAt: "2025-01-01T00:00:00Z",
      endpoint: "host/v1",
      condition: "cot",
      attempts: 3,
      latencyMs: 100,
    },
    {
      ...base,
      key: "k3",
      role: "judge",
      text: '{"score": 4}',
      finishReason: "length",
      usage: { prompt: 1, completion: 2 },
      createdAt: "2025-01-01T00:00:01Z",
    },
  ];
}

/** Fills `store` with calls, outputs, scores and events of every shape. */
function fill(store: RunStore): void {
  for (const call of calls()) store.putCall(call);
  store.putOutput({
    sampleId: "s1",
    condition: "default",
    callKey: "k1",
    text: "答案：B",
    error: null,
    detail: null,
  });
  store.putOutput({
    sampleId: "s2",
    condition: "cot",
    callKey: null,
    text: null,
    error: 'HTTP 500 "x"',
    detail: { exemplars: ["a", "b"] },
  });
  const score = storedScore({
    condition: "default",
    scorer: "metric",
    detail: { metric: "accuracy", extracted: ["B"] },
  });
  store.putScore(score);
  store.putScore({
    ...score,
    scorer: "judge",
    judge: "j",
    value: null,
    values: { a: 1, b: "x", c: null },
    valid: false,
    reason: "no verdict",
    callKey: "k3",
    detail: null,
  });
  store.putScore({
    ...score,
    sampleId: "s2",
    scorer: "judge",
    judge: "j",
    run: 2,
    value: 0.25,
    detail: "text",
  });
  store.logEvent("retry", { role: "model", reason: "HTTP 429", at: 1.5 });
  store.logEvent("resume", {});
}

/** The JSON Lines text of `records`, as `JSON.stringify` writes them. */
function jsonl(records: readonly unknown[]): string {
  return records.map((r) => JSON.stringify(r) + "\n").join("");
}

async function readLog(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of ["calls", "outputs", "scores", "events"]) {
    out[name] = await Deno.readTextFile(`${dir}/${name}.jsonl`);
  }
  return out;
}

Deno.test("the log export writes each record as JSON.stringify does, built from the stored columns", async () => {
  await withTempStore(async (store) => {
    fill(store);
    const dir = await Deno.makeTempDir({ prefix: "medeval-export-" });
    try {
      await exportStore(store, dir);
      assertEquals(await readLog(dir), {
        calls: jsonl(store.calls()),
        outputs: jsonl([...store.eachOutput()]),
        scores: jsonl([...store.eachScore()]),
        events: jsonl(store.events()),
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("JSON Lines are written as UTF-8 of the lines joined, whatever their scripts and lengths", async () => {
  const lines = [
    '{"q":"患者女，20岁"}',
    '{"a":"پاسخ 😀 \u2028"}',
    "\ud800 lone \udfff",
    // Longer than the reused buffer on their own.
    "患".repeat(70_000) + "😀".repeat(40_000),
    "x" + "😀".repeat(60_000),
    ...Array.from({ length: 3000 }, (_, i) => `{"i":${i},"t":"${"é😀".repeat(i % 7)}"}`),
    "",
  ];
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await writeJsonLines(path, lines);
    const written = await Deno.readFile(path);
    const expected = new TextEncoder().encode(lines.join("\n") + "\n");
    // Compared without a diff of ~400 KB (which would take minutes to print).
    assertEquals(written.length, expected.length);
    assert(written.every((byte, i) => byte === expected[i]), "the bytes written differ");
    await writeJsonLines(path, []);
    assertEquals((await Deno.readFile(path)).length, 0);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("an export started ahead in a worker (spawned ahead or not) writes the same files, and one written to since is redone", async () => {
  await withTempStore(async (store) => {
    fill(store);
    const root = await Deno.makeTempDir({ prefix: "medeval-export-" });
    try {
      await exportStore(store, `${root}/here`);
      startExport(store, `${root}/ahead`);
      // The worker writes the files by itself (events.jsonl last), before anything asks for them.
      const written = () => {
        try {
          return Deno.statSync(`${root}/ahead/events.jsonl`).size > 0;
        } catch {
          return false;
        }
      };
      await waitUntil(written, "the worker's events.jsonl");
      await exportStore(store, `${root}/ahead`);
      assertEquals(await readLog(`${root}/ahead`), await readLog(`${root}/here`));

      // A write after the export started is in the files exportStore leaves.
      startExport(store, `${root}/late`);
      store.logEvent("late", { n: 1 });
      await exportStore(store, `${root}/late`);
      assertEquals((await readLog(`${root}/late`)).events, jsonl(store.events()));
      assert(store.events().some((e) => e.kind === "late"));

      // A worker spawned ahead (while a run's calls are under way) takes the export when it starts.
      prepareExport(store);
      startExport(store, `${root}/prepared`);
      await exportStore(store, `${root}/prepared`);
      assertEquals(await readLog(`${root}/prepared`), await readLog(`${root}/late`));
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
});

/**
 * Runs the script `write(dir)` gives for a fresh temporary directory `dir` as a process of its own (it may import
 * `EXPORT` and `STORE`, the modules' URLs); calls `check` with its exit, its output and `dir`, then removes `dir`.
 */
async function inProcess(
  write: (dir: string) => string | Promise<string>,
  check: (result: { code: number; stdout: string; stderr: string }, dir: string) => Promise<void> | void,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "medeval-export-" });
  try {
    const source = (await write(dir))
      .replaceAll("EXPORT", new URL("../lib/store/export.ts", import.meta.url).href)
      .replaceAll("STORE", new URL("../lib/store/run_store.ts", import.meta.url).href);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["eval", "--config", new URL("../deno.json", import.meta.url).pathname, source],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => child.kill(), 20_000);
    const { code, stdout, stderr } = await child.output();
    clearTimeout(timer);
    const text = new TextDecoder();
    await check({ code, stdout: text.decode(stdout).trim(), stderr: text.decode(stderr) }, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a worker spawned ahead and never given an export is ended (a live one keeps the process alive)", async () => {
  await inProcess(
    (dir) => `
      import { discardExport, prepareExport } from "EXPORT";
      import { RunStore } from "STORE";
      const store = new RunStore("${dir}/run.sqlite");
      prepareExport(store);
      discardExport(store);
      store.close();
      console.log("done");`,
    ({ code, stdout, stderr }) => {
      assertEquals(code, 0, stderr);
      assertEquals(stdout, "done");
    },
  );
});

Deno.test("a worker spawned ahead that fails to load ends neither the run nor its export", async () => {
  await inProcess(
    async (dir) => {
      await Deno.writeTextFile(`${dir}/broken.ts`, 'throw new Error("broken worker");\n');
      return `
      import { exportStore, prepareExport, startExport } from "EXPORT";
      import { RunStore } from "STORE";
      const store = new RunStore("${dir}/run.sqlite");
      store.logEvent("started", {});
      prepareExport(store, { module: new URL("file://${dir}/broken.ts") });
      await new Promise((r) => setTimeout(r, 1000));
      startExport(store, "${dir}/log");
      const files = await exportStore(store, "${dir}/log");
      store.close();
      console.log(files.length);`;
    },
    async ({ code, stdout, stderr }, dir) => {
      assertEquals(code, 0, stderr);
      assertEquals(stdout, "4");
      assertEquals((await Deno.readTextFile(`${dir}/log/events.jsonl`)).includes('"started"'), true);
    },
  );
});

/** Samples of every shape a loader gives: with and without choices and conversation, varied fields. */
function samples(): Sample[] {
  return [
    {
      id: "a",
      benchmark: "b",
      input: "问题一",
      reference: null,
      conversation: null,
      fields: { scenario: "ID1", n: 3, none: null },
      extra: { options: { A: "x" }, nested: [1, { y: 2 }] },
      choices: { labels: ["A", "B"], options: { B: "b", A: "a" }, answer: ["A"], multiple: false },
    },
    {
      id: "b",
      benchmark: "b",
      input: "turn 2",
      reference: "ref",
      conversation: { id: "c1", turn: 2 },
      fields: {},
      extra: {},
    },
  ];
}

Deno.test("a stored sample reads back as validation gives it, without being validated again", () => {
  for (const sample of samples()) {
    const stored = JSON.stringify(sample);
    const read = storedSample(stored);
    assertEquals(read, SampleSchema.parse(JSON.parse(stored)));
    assertEquals(JSON.stringify(read), JSON.stringify(SampleSchema.parse(JSON.parse(stored))));
  }
});

Deno.test("putSamples writes only missing samples and reads back the same samples either way", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-samples-" });
  try {
    const path = `${dir}/run.sqlite`;
    const first = new RunStore(path);
    first.putSamples(samples());
    const fromMemory = first.samples();
    first.close();

    // Another process: read from the database.
    const reader = new RunStore(path, { readOnly: true });
    const fromDisk = reader.samples();
    reader.close();
    assertEquals(fromDisk, samples().map((s) => SampleSchema.parse(s)));
    assertEquals(JSON.stringify(fromMemory), JSON.stringify(fromDisk));

    // A resumed run's samples are all stored: nothing is written, positions stay.
    const resumed = new RunStore(path);
    const changed = { ...samples()[0], input: "changed" };
    resumed.putSamples([changed, samples()[1]]);
    resumed.close();
    const again = new RunStore(path, { readOnly: true });
    assertEquals(again.samples()[0].input, "问题一");
    again.close();

    // Samples given in another order than stored are not taken for the stored ones.
    const reordered = new RunStore(path);
    reordered.putSamples([samples()[1], samples()[0]]);
    assertEquals(reordered.samples().map((s) => s.id), ["a", "b"]);
    reordered.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * How many samples a reader finds in the store at `path` once the writer's timer has written a slice since
 * `before` (the count in a reader's error, "holds N of its M samples", or all of them).
 */
async function samplesAfterASlice(path: string, before: number): Promise<number> {
  const count = () => {
    const reader = new RunStore(path, { readOnly: true });
    try {
      return reader.samples().length;
    } catch (err) {
      return Number(/holds (\d+) of/.exec((err as Error).message)?.[1]);
    } finally {
      reader.close();
    }
  };
  let now = before;
  await waitUntil(() => (now = count()) > before, "a slice of samples written by the store's timer");
  return now;
}

Deno.test("a new store's samples are written behind the run, a slice per timed commit; a killed run's resume writes the rest", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-samples-" });
  const many: Sample[] = Array.from({ length: 3 * SAMPLES_PER_FLUSH + 7 }, (_, i) => ({
    ...samples()[i % 2],
    id: `s${(i * 31) % 1000}-${i}`,
  }));
  const stored = (path: string) => {
    const reader = new RunStore(path, { readOnly: true });
    try {
      return reader.samples();
    } finally {
      reader.close();
    }
  };
  try {
    const path = `${dir}/run.sqlite`;
    const run = new RunStore(path);
    run.putSamples(many);
    // Only the last sample is written before the run goes on; then a slice each time the store's timer commits
    // (a read's commit writes none). Meanwhile another reader is told the store lacks samples.
    const held = (count: number) => `holds ${count} of its ${many.length} samples`;
    assertStringIncludes(assertThrows(() => stored(path), InputError).message, held(1));
    run.flush();
    run.putOutput({ sampleId: "s1", condition: "c", callKey: null, text: "x", error: null });
    run.flush();
    assertStringIncludes(assertThrows(() => stored(path), InputError).message, held(1));
    const written = await samplesAfterASlice(path, 1);
    assert(written === many.length || (written - 1) % SAMPLES_PER_FLUSH === 0, `whole slices: ${written}`);
    // The run's own reads come from memory.
    assertEquals(run.samples(), many);

    // The run is killed here: a resume (another connection) writes the missing samples, in their places.
    const resumed = new RunStore(path);
    resumed.putSamples(many);
    resumed.close();
    assertEquals(stored(path), many.map((s) => SampleSchema.parse(s)));

    // The first connection, closed at last, adds nothing twice.
    run.close();
    assertEquals(stored(path).map((s) => s.id), many.map((s) => s.id));

    // A store closed before every slice was written holds them all.
    const other = `${dir}/other.sqlite`;
    const short = new RunStore(other);
    short.putSamples(many);
    short.close();
    assertEquals(stored(other).map((s) => s.id), many.map((s) => s.id));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a store whose run stopped before its samples were all written says so to every reader", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-samples-" });
  const many: Sample[] = Array.from(
    { length: 2 * SAMPLES_PER_FLUSH },
    (_, i) => ({ ...samples()[0], id: `s${i}` }),
  );
  try {
    const path = `${dir}/run.sqlite`;
    const run = new RunStore(path);
    run.putSamples(many);
    // The run is killed here (its outputs are in the store, not all its samples).
    const reader = new RunStore(path, { readOnly: true });
    const error = assertThrows(() => reader.samples(), InputError);
    assertStringIncludes(error.message, `holds 1 of its ${many.length} samples`);
    assertStringIncludes(error.message, "--resume");
    run.close();
    assertEquals(reader.samples().length, many.length);
    reader.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("samples given twice under one id read back the same from a new store as from a resumed one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-samples-" });
  try {
    const [a, b] = samples();
    const path = `${dir}/run.sqlite`;
    const run = new RunStore(path);
    run.putSamples([a, b, a]);
    const fresh = run.samples().map((s) => s.id);
    run.close();
    const resumed = new RunStore(path);
    resumed.putSamples([a, b, a]);
    assertEquals(resumed.samples().map((s) => s.id), fresh);
    resumed.close();
    assertEquals(fresh, ["a", "b"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("outputs and scores of several conditions are read and exported by sample, key, then condition, a page at a time", async () => {
  await withTempStore(async (store) => {
    // More rows than a page, written in an order that is none of the read orders.
    const conditions = ["z", "a", "m"];
    for (let i = 2100; i > 0; i--) {
      for (const condition of conditions) {
        const sampleId = `s${i % 700}`;
        store.putOutput({ sampleId, condition, callKey: null, text: `${i}`, error: null, detail: null });
        store.putScore(storedScore({ sampleId, condition, scorer: i % 2 ? "judge" : "metric", run: i % 3 }));
      }
    }
    const outputs = [...store.eachOutput()];
    const scores = [...store.eachScore()];
    const byKeys = <T>(keys: (row: T) => (string | number)[]) => (a: T, b: T) => {
      const [x, y] = [keys(a), keys(b)];
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
      return 0;
    };
    assertEquals(outputs, [...outputs].sort(byKeys((o) => [o.sampleId, o.condition])));
    assertEquals(
      scores,
      [...scores].sort(byKeys((s) => [s.sampleId, s.scorer, s.judge ?? "", s.run, s.condition])),
    );
    assertEquals(outputs.length, 700 * 3);
    assertEquals(store.outputs(), outputs);
    assertEquals(store.scores(), scores);
    const dir = await Deno.makeTempDir({ prefix: "medeval-export-" });
    try {
      await exportStore(store, dir);
      const log = await readLog(dir);
      assertEquals(log.outputs, jsonl(outputs));
      assertEquals(log.scores, jsonl(scores));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("scores paged by their key and put in read order per sample come out as SQL orders them (UTF-8 bytes, no judge first)", async () => {
  await withTempStore(async (store) => {
    // Scorer, judge and condition names that order differently in UTF-16 and in UTF-8 (U+E000 against a
    // character beyond U+FFFF); five rows per sample in two conditions, two scorers and two runs (the key puts
    // the condition first, the read order last), so that pages of 2,048 rows end inside a sample; more samples
    // than a page, stored in no read order.
    const names = ["\u{1F600}x", "\uE000", "b", "a\u{10000}", "a\uFFFD"];
    for (let i = 0; i < 600; i++) {
      for (const condition of [names[(i + 2) % 5], names[(i + 3) % 5]]) {
        for (const scorer of [names[i % 5], names[(i + 1) % 5]]) {
          store.putScore(storedScore({
            sampleId: `s${(i * 7919) % 600}`,
            condition,
            scorer,
            judge: i % 3 ? names[(i + 4) % 5] : null,
            run: 1 + (i % 2),
          }));
        }
      }
      // A fifth row: the first scorer's second run in the second condition.
      store.putScore(storedScore({
        sampleId: `s${(i * 7919) % 600}`,
        condition: names[(i + 3) % 5],
        scorer: names[i % 5],
        judge: i % 3 ? names[(i + 4) % 5] : null,
        run: 3 + (i % 2),
      }));
    }
    const paged = [...store.eachScore()];
    assertEquals(paged.length, 3000);
    assertEquals(paged, store.scores());
    // The log's scores file reads them as arrays and orders each sample's apart: the same order and records.
    const dir = await Deno.makeTempDir({ prefix: "medeval-export-" });
    try {
      await exportStore(store, dir);
      assertEquals((await readLog(dir)).scores, jsonl(paged));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

/** Every code point outside the surrogates and NUL, in texts of 4,096 code points. */
function everyCodePoint(): string[] {
  const texts = [""];
  for (let c = 1; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    if (texts[texts.length - 1].length >= 4096) texts.push("");
    texts[texts.length - 1] += String.fromCodePoint(c);
  }
  return texts;
}

Deno.test("the log's outputs, built by SQLite, are the bytes JSON.stringify gives for every code point", async () => {
  await withTempStore(async (store) => {
    everyCodePoint().forEach((text, i) =>
      store.putOutput({
        sampleId: `s${i}-${text.slice(0, 3)}`,
        condition: i % 2 ? "cot" : 'base\n"quoted"',
        callKey: i % 3 ? `k${i}` : null,
        text: i % 5 ? text : null,
        error: i % 5 ? null : text,
        detail: i % 4 ? { note: text.slice(0, 40), n: i / 7 } : null,
      })
    );
    const dir = await Deno.makeTempDir({ prefix: "medeval-export-" });
    try {
      await exportStore(store, dir);
      const outputs = [...store.eachOutput()];
      assert(outputs.length > 250);
      assertEquals((await readLog(dir)).outputs, jsonl(outputs));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("an answer with a NUL character goes to the log whole (node:sqlite reads it cut at the NUL)", async () => {
  await withTempStore(async (store) => {
    store.putOutput({
      sampleId: "a",
      condition: "c",
      callKey: null,
      text: "before\u0000after",
      error: null,
      detail: null,
    });
    const dir = await Deno.makeTempDir({ prefix: "medeval-export-" });
    try {
      await exportStore(store, dir);
      assertEquals(JSON.parse((await readLog(dir)).outputs).text, "before\u0000after");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});
