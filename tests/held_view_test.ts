/**
 * A run's aggregation reads the condition it just wrote from memory (RunStore.holdView / takeHeldView), not back
 * from SQLite: what is held must be exactly what the store's queries read, for any values, keys and order of
 * writes, and for the runs of every benchmark.
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { storedScore, withTempStore } from "./temp_store.ts";
import { DatabaseSync } from "node:sqlite";
import type { OutputStatus, StoredCall, StoredScore } from "../lib/core/records.ts";
import { compareUtf8, type HeldScoreRow, HeldView, sortUtf8 } from "../lib/store/held_view.ts";
import { type OutputOutcomeCounts, RunStore, WRITE_DELAY_MS } from "../lib/store/run_store.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import type { EvalConfig } from "../lib/pipeline/eval_config.ts";
import { OFFLINE_RUNS } from "./offline_runs.ts";

/** What the store's queries read of `condition`: statuses by sample and scores by sample, in their order. */
function readBack(store: RunStore, condition: string) {
  const outputs = new Map<string, OutputStatus>();
  for (const output of store.outputStatus(condition)) outputs.set(output.sampleId, output);
  const scores = new Map<string, StoredScore[]>();
  for (const score of store.eachScoreOf(condition)) {
    const list = scores.get(score.sampleId);
    if (list) list.push(score);
    else scores.set(score.sampleId, [score]);
  }
  return { outputs, scores };
}

/** Asserts that `held` equals `read` in content and in the order of both maps and of every score list. */
function assertSameView(held: ReturnType<typeof readBack> | undefined, read: ReturnType<typeof readBack>) {
  assert(held, "the condition was held");
  assertEquals([...held.outputs.keys()], [...read.outputs.keys()], "outputs in the query's order");
  assertEquals([...held.scores.keys()], [...read.scores.keys()], "scores in the query's order");
  assertEquals(held.outputs, read.outputs);
  assertEquals(held.scores, read.scores);
}

/** A stored call of every field a test does not care about. */
const CALL: StoredCall = {
  key: "k",
  role: "model",
  model: "m",
  request: { messages: [], params: {} },
  text: "",
  finishReason: "stop",
  usage: null,
  attempts: 1,
  latencyMs: 1,
  createdAt: "2026-01-01T00:00:00.000Z",
  endpoint: null,
  condition: "c",
};

/** A score of `sampleId` by scorer `metric`, with the fields a test does not care about filled in. */
/** An answered output of condition "c" for one sample. */
function answered(sampleId: string) {
  return { sampleId, condition: "c", callKey: "k", text: "answer", error: null, detail: null };
}

function score(sampleId: string, fields: Partial<StoredScore>): StoredScore {
  return storedScore({ sampleId, scorer: "metric", ...fields });
}

Deno.test("UTF-8 order: a character beyond U+FFFF sorts after U+E000–U+FFFF, as SQLite's BINARY collation sorts it", () => {
  const texts = [
    "b",
    "\uFF21",
    "a\u{1F600}",
    "\u{1F600}",
    "a\uE000",
    "a",
    "\uE000",
    "ab",
    "中",
    "",
    "\uD7FF",
  ];
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE t (x TEXT)");
  for (const text of texts) db.prepare("INSERT INTO t VALUES (?)").run(text);
  const sqlite = (db.prepare("SELECT x FROM t ORDER BY x").all() as { x: string }[]).map((r) => r.x);
  db.close();
  assertEquals(sortUtf8([...texts]), sqlite);
  assertEquals(sqlite.slice(-3), ["\uE000", "\uFF21", "\u{1F600}"], "UTF-16 order would put the emoji first");
  assert(compareUtf8("\u{1F600}", "\uFFFF") > 0 && "\u{1F600}" < "\uFFFF");
  assertEquals(sortUtf8(["b", "a", "c"]), ["a", "b", "c"]);
});

/** Scores written out of order, judges and runs mixed, some replaced, edge values a REAL column changes. */
function writtenScores(): StoredScore[] {
  return [
    score("s10", {
      scorer: "judge",
      judge: "model-b",
      run: 2,
      value: 3,
      values: { accuracy: 4, note: "ok" },
    }),
    score("s10", {
      scorer: "judge",
      judge: "model-a",
      run: 1,
      value: Number.NaN,
      valid: false,
      reason: "no verdict",
    }),
    score("s10", { scorer: "judge", judge: "model-b", run: 1, value: -0 }),
    score("s10", {
      scorer: "metric",
      value: 0.30000000000000004,
      detail: { extracted: "B", list: [1, null] },
    }),
    score("s10", { scorer: "judge", judge: "model-a", run: 1, value: 2, reason: "replaces the NaN one" }),
    score("\u{1F600}x", { value: Infinity, detail: undefined }),
    score("\u{1F600}x", { scorer: "judge", judge: "j", value: Number.NaN, valid: false }),
    score("\uE000y", { value: null, valid: false, callKey: "c1", detail: "text" }),
    score("中文", { scorer: "judge", judge: "\u{1F600}", run: 1 }),
    score("中文", { scorer: "judge", judge: "\uFFFD", run: 1 }),
    score("中文", { scorer: "judge", judge: null, run: 3 }),
    score("s1", { run: 10 }),
    score("s1", { run: 9 }),
  ];
}

Deno.test("a held condition is what the store reads back: replaced rows, NaN, negative zero, JSON values, key order", async () => {
  await withTempStore((store) => {
    assert(store.holdView("c"), "a condition the store does not have is held");
    const ids = ["s10", "s2", "\u{1F600}x", "\uE000y", "中文", "s1"];
    for (const id of ids) {
      store.putOutput(answered(id));
    }
    // An output replaced: first an error, then the answer (as a resumed retry would), and the reverse.
    store.putOutput({ sampleId: "s2", condition: "c", callKey: null, text: null, error: "timeout" });
    store.putOutput({ sampleId: "s1", condition: "c", callKey: null, text: null, error: "HTTP 500" });
    store.putOutput({
      sampleId: "s1",
      condition: "c",
      callKey: "k1",
      text: "answer",
      error: null,
      detail: { x: 1 },
    });
    const written = writtenScores();
    for (const s of written) store.putScore(s);
    const held = store.takeHeldView("c");
    store.flush();
    const reader = new RunStore(store.path, { readOnly: true });
    assertSameView(held, readBack(reader, "c"));
    reader.close();
    assertEquals(store.takeHeldView("c"), undefined, "taken once");
  });
});

Deno.test("held scores read ahead between the store's timed commits are what the store reads back", async () => {
  // The store's timed commits read the held rows ahead: counted, so that the test sees they did.
  const readAhead = HeldView.prototype.readAhead;
  let readsAhead = 0;
  HeldView.prototype.readAhead = function () {
    readsAhead++;
    readAhead.call(this);
  };
  await withTempStore(async (store) => {
    assert(store.holdView("c"));
    for (const id of ["s10", "\u{1F600}x", "\uE000y", "中文", "s1"]) store.putOutput(answered(id));
    // A timed commit after each score: every sample is read ahead after its first, and its later scores (one of
    // them replacing a score read ahead) come to a sample read already.
    for (const s of writtenScores()) {
      store.putScore(s);
      await new Promise((resolve) => setTimeout(resolve, WRITE_DELAY_MS + 10));
    }
    assert(readsAhead >= writtenScores().length, `${readsAhead} reads ahead`);
    const held = store.takeHeldView("c");
    const reader = new RunStore(store.path, { readOnly: true });
    assertSameView(held, readBack(reader, "c"));
    reader.close();
  }).finally(() => HeldView.prototype.readAhead = readAhead);
});

/** A held score row (the store's columns, as it binds them) read into a score, as a test reads it. */
function readRow(row: HeldScoreRow): StoredScore {
  const [sampleId, condition, scorer, judge, run, value, values, valid, reason, callKey, detail] = row;
  return {
    sampleId: String(sampleId),
    condition: String(condition),
    scorer: String(scorer),
    judge: judge === "" ? null : String(judge),
    run: Number(run),
    value: value as number | null,
    values: values === null ? null : JSON.parse(String(values)),
    valid: valid === 1,
    reason: reason as string | null,
    callKey: callKey as string | null,
    detail: detail === null ? null : JSON.parse(String(detail)),
  };
}

Deno.test("a held view read ahead at any point takes the same view, and reads each row once", () => {
  const rows: [string, HeldScoreRow][] = [];
  const row = (id: string, scorer: string, judge: string, run: number, value: number) =>
    rows.push([id, [id, "c", scorer, judge, run, value, null, 1, null, null, JSON.stringify({ v: value })]]);
  row("b", "metric", "", 1, 1);
  row("a", "judge", "j2", 1, 2);
  row("a", "judge", "j1", 1, 3);
  row("b", "metric", "", 1, 4); // replaces b's first score
  row("a", "judge", "j1", 2, 5);
  row("c", "judge", "", 1, 6);
  row("a", "judge", "j1", 1, 7); // replaces a's j1 run 1
  row("c", "judge", "", 2, 8);
  const views = [];
  for (const every of [0, 1, 2, 3]) {
    let reads = 0;
    const held = new HeldView((r) => (reads++, readRow(r)));
    for (const id of ["c", "b", "a"]) {
      held.putOutput(id, "answer", null, { truncated: false, refused: false });
    }
    rows.forEach(([id, r], i) => {
      held.putScore(id, r);
      if (every && i % every === every - 1) held.readAhead();
    });
    if (every) held.readAhead();
    const before = reads;
    views.push(held.view());
    // Read ahead, the view reads nothing more; without, it reads each sample's latest rows once.
    assertEquals(reads - before, every ? 0 : 6, `read ahead every ${every}`);
    assert(reads <= rows.length, "no row is read twice");
  }
  for (const view of views.slice(1)) assertEquals(view, views[0]);
  assertEquals([...views[0].scores.keys()], ["a", "b", "c"]);
  assertEquals(views[0].scores.get("a")!.map((s) => [s.judge, s.run, s.value]), [["j1", 1, 7], ["j1", 2, 5], [
    "j2",
    1,
    2,
  ]]);
  assertEquals(views[0].scores.get("b")!.map((s) => s.value), [4]);
});

Deno.test("a held condition's answers are counted as the store's SQL counts them: truncated, refused, empty, failed", async () => {
  await withTempStore((store) => {
    assert(store.holdView("c"));
    const replies: [string, Partial<StoredCall> | null, string | null, string | null][] = [
      ["cut", { finishReason: "length" }, "half an answ", null],
      ["filtered", { finishReason: "content_filter" }, "", null],
      ["refused", { refusal: "I can't" }, " \u3000", null],
      ["refusal beside an answer", { refusal: "partly" }, "B", null],
      ["blank", {}, "\u3000\n", null],
      ["no stored call", null, "  ", null],
      // Committed before its answer: counted by the SQL, which sees past the NUL a read-back stops at.
      ["nul refusal", { refusal: "\u0000x" }, " ", null],
      ["failed", null, null, "HTTP 500"],
      ["context", null, null, "context_length_exceeded: too long"],
      ["plain", {}, "A", null],
    ];
    for (const [id, call, text, error] of replies) {
      if (call) {
        store.putCall({ ...CALL, key: `k-${id}`, text: text ?? "", ...call });
      }
      // Half the calls are committed before their answer is stored, half are still queued.
      if (id.length % 2) store.flush();
      store.putOutput({ sampleId: id, condition: "c", callKey: call ? `k-${id}` : "k-missing", text, error });
    }
    // A failed answer replaced by a truncated one, as a resumed retry would.
    store.putOutput({ sampleId: "cut", condition: "c", callKey: null, text: null, error: "timeout" });
    store.putOutput({ sampleId: "cut", condition: "c", callKey: "k-cut", text: "half an answ", error: null });
    const held = store.outputOutcomeCounts("c");
    store.flush();
    const reader = new RunStore(store.path, { readOnly: true });
    const read = reader.outputOutcomeCounts("c");
    reader.close();
    assertEquals({ ...held, errors: held.errors.sort() }, { ...read, errors: read.errors.sort() });
    assertEquals(read.truncated + read.refused + read.empty_answers, 6, "every kind counted at least once");
  });
});

Deno.test("one condition is held at a time, and none whose texts SQLite would store otherwise (a NUL, half a surrogate pair)", async () => {
  await withTempStore((store) => {
    const output = (condition: string, sampleId: string, error: string | null = null, text = "x") =>
      store.putOutput({ sampleId, condition, callKey: null, text: error ? null : text, error });
    assert(store.holdView("first"));
    output("first", "a");
    assert(store.holdView("second"), "holding the second lets go of the first");
    output("second", "a");
    assertEquals(store.takeHeldView("first"), undefined);
    assert(store.takeHeldView("second"));
    // Asked to hold a condition the store has already (read back instead), it lets go of the one it held.
    assert(store.holdView("third"));
    output("third", "a");
    assert(!store.holdView("first"));
    assertEquals(store.takeHeldView("third"), undefined);
    const cases: [string, string, () => void][] = [
      ["a NUL in a sample id", "c1", () => output("c1", "a\u0000b")],
      ["half a surrogate pair in an id", "c2", () => output("c2", "a\uD800")],
      ["half a surrogate pair in an error", "c3", () => output("c3", "a", "bad \uDC00")],
      ["a NUL in a judge", "c4", () => store.putScore(score("a", { condition: "c4", judge: "j\u0000k" }))],
      [
        "half a pair in a reason",
        "c5",
        () => store.putScore(score("a", { condition: "c5", reason: "\uD800" })),
      ],
      ["a NUL in an answer", "c6", () => output("c6", "a", null, "x\u0000")],
      [
        "half a pair in a scorer",
        "c7",
        () => store.putScore(score("a", { condition: "c7", scorer: "m\uDC00" })),
      ],
      [
        "a NUL in a call key",
        "c8",
        () => store.putScore(score("a", { condition: "c8", callKey: "k\u0000" })),
      ],
      ["a NUL in a queued call's refusal", "c9", () => {
        store.putCall({ ...CALL, key: "k-nul", refusal: "\u0000no" });
        store.putOutput({ sampleId: "a", condition: "c9", callKey: "k-nul", text: " ", error: null });
      }],
    ];
    for (const [name, condition, write] of cases) {
      assert(store.holdView(condition), name);
      write();
      assertEquals(store.takeHeldView(condition), undefined, name);
    }
    assert(!store.holdView("bad\u0000name"), "a condition's own name");
  });
});

Deno.test("a condition the store already has, or whose scores are replaced, is not held: it is read back", async () => {
  await withTempStore((store) => {
    store.putScore(score("a", { condition: "rated", scorer: "human:experts", judge: "r1" }));
    assert(!store.holdView("rated"), "scores without outputs are enough to read back");
    store.putOutput({ sampleId: "a", condition: "old", callKey: null, text: "x", error: null });
    assert(!store.holdView("old"));
    assert(store.holdView("new"));
    store.putOutput({ sampleId: "a", condition: "new", callKey: null, text: "x", error: null });
    store.replaceScores("metric", "new", [score("a", { condition: "new" })]);
    assertEquals(store.takeHeldView("new"), undefined, "a replacement ends the hold");
    assertEquals(store.takeHeldView("old"), undefined);
  });
});

/** Runs `config` while recording, for every condition aggregated, the held view beside the store's read-back. */
async function heldBesideReadBack(config: EvalConfig) {
  const pairs: {
    condition: string;
    held: ReturnType<typeof readBack> | undefined;
    read: ReturnType<typeof readBack>;
  }[] = [];
  const counts: { held: OutputOutcomeCounts; read: OutputOutcomeCounts }[] = [];
  const take = RunStore.prototype.takeHeldView;
  const count = RunStore.prototype.outputOutcomeCounts;
  RunStore.prototype.takeHeldView = function (this: RunStore, condition: string) {
    const held = take.call(this, condition);
    pairs.push({ condition, held, read: readBack(this, condition) });
    return held;
  };
  RunStore.prototype.outputOutcomeCounts = function (this: RunStore, condition: string) {
    const held = count.call(this, condition);
    this.flush();
    const reader = new RunStore(this.path, { readOnly: true });
    counts.push({ held, read: count.call(reader, condition) });
    reader.close();
    return held;
  };
  try {
    const result = await runEval(config);
    return { pairs, counts, result };
  } finally {
    RunStore.prototype.takeHeldView = take;
    RunStore.prototype.outputOutcomeCounts = count;
  }
}

for (const [name, settings] of OFFLINE_RUNS) {
  Deno.test(`a run aggregates what it holds, equal to the store's read-back: ${name}`, async () => {
    const out = await Deno.makeTempDir({ prefix: "medeval-held-run-" });
    try {
      const config = { out, progress: false, renderFigures: false, ...settings } as EvalConfig;
      const first = await heldBesideReadBack(config);
      assertEquals(
        first.pairs.length,
        1 + (settings.ablations?.length ?? 0),
        "every condition aggregated once",
      );
      // One condition is held at a time: the last one run; the others are read back.
      assertEquals(
        first.pairs.map((p) => p.held !== undefined),
        first.pairs.map((_, i) => i === first.pairs.length - 1),
      );
      for (const { held, read } of first.pairs.slice(-1)) assertSameView(held, read);
      for (const { held, read } of first.counts) {
        assertEquals({ ...held, errors: held.errors.sort() }, { ...read, errors: read.errors.sort() });
      }
      // Resumed, every condition is in the store already: nothing is held, everything is read back, and the
      // summaries come out the same.
      const again = await heldBesideReadBack({ ...config, resume: true });
      assertEquals(again.pairs.map((p) => p.held), again.pairs.map(() => undefined));
      assertEquals(again.result.conditions, first.result.conditions);
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  });
}

Deno.test("a held condition's scores keep the store's order when some scored sample has no output", async () => {
  await withTempStore((store) => {
    assert(store.holdView("c"));
    for (const id of ["s3", "\u{1F600}a", "s1"]) {
      store.putOutput(answered(id));
    }
    // Scored without an output of the condition (in the store's order: "s0" and "\uE000b" fall among the others).
    for (const id of ["\uE000b", "s1", "s0", "\u{1F600}a", "s3"]) store.putScore(score(id, {}));
    const held = store.takeHeldView("c");
    store.flush();
    const reader = new RunStore(store.path, { readOnly: true });
    assertSameView(held, readBack(reader, "c"));
    reader.close();
  });
});
