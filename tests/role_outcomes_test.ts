/**
 * Outcomes per role and model against the fake server: the judges' replies of LLMEval-Med (a jury of two, every
 * repeat and re-ask) truncated, refused, empty or refused for their length, counted in `outcomes_by_role`
 * exactly as the fake produced them, stated in one footnote line of every table, warned about when more than 5%
 * of a judge's replies are truncated, and printed at the end of the run.
 */
import type { RoleOutcome } from "../lib/report/outcomes_note.ts";
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { scriptedReply } from "./fake_judge.ts";
import {
  everyKth,
  type FakeChatBody,
  type FakeRequestRecord,
  type FakeServerOptions,
  startFakeServer,
} from "./fake_server.ts";
import { llmevalCommand, ROOT, runCli, sampleRows } from "./run_cli.ts";

const MODEL = "fake-model";
const JUDGE = "fake-judge";
const SECOND_JUDGE = "judge-b";

/** One row of `outcomes_by_role`. */
type Row = RoleOutcome;

/** What the fake answered `model`, by call key: `stop`, an outcome, or `400` (each key once). */
function answered(requests: readonly FakeRequestRecord[], model: string): Map<string, string> {
  const byKey = new Map<string, string>();
  for (const r of requests) {
    const body = r.body as FakeChatBody | null;
    if (body?.model !== model || !r.callKey || r.status === null) continue;
    byKey.set(r.callKey, r.status === 400 ? "400" : r.outcome ?? "stop");
  }
  return byKey;
}

function count(byKey: Map<string, string>, ...outcomes: string[]): number {
  return [...byKey.values()].filter((o) => outcomes.includes(o)).length;
}

function percent(part: number, whole: number): string {
  return `${(100 * part / whole).toFixed(1)}%`;
}

/** Runs LLMEval-Med's sample (3 judge runs) against a fake with `options`, with `extra` flags. */
async function runLlmEvalMed(options: FakeServerOptions, extra: string[] = []) {
  const server = await startFakeServer({ reply: scriptedReply, ...options });
  const out = await Deno.makeTempDir({ prefix: "medeval-role-outcomes-" });
  try {
    const o = await llmevalCommand(server.url, out, false, ["--quiet", ...extra]).output();
    const summary = JSON.parse(await Deno.readTextFile(`${out}/summary.json`));
    return {
      code: o.code,
      stderr: new TextDecoder().decode(o.stderr),
      summary,
      rows: summary.outcomes_by_role as Row[],
      requests: server.requests,
      out,
    };
  } finally {
    await server.close();
  }
}

/** Returns the Markdown of every table the run wrote, by file name. */
async function markdownTables(dir: string): Promise<Map<string, string>> {
  const tables = new Map<string, string>();
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.endsWith(".md")) tables.set(entry.name, await Deno.readTextFile(`${dir}/${entry.name}`));
  }
  assert(tables.size > 0, `no tables in ${dir}`);
  return tables;
}

/** Asserts that every table has exactly one line of notes stating how replies ended, and that it holds `parts`. */
async function assertFootnotes(dir: string, parts: readonly string[]): Promise<void> {
  for (const [name, text] of await markdownTables(dir)) {
    const lines = text.split("\n").filter((l) => l.startsWith("- model outputs:"));
    assertEquals(lines.length, 1, `${name}:\n${text}`);
    for (const part of parts) assertStringIncludes(lines[0], part, name);
    assertStringIncludes(lines[0], "scored as given", name);
    assertStringIncludes(
      lines[0],
      "context-limit errors are the sample's result, scored as a failed answer (in n)",
      name,
    );
  }
}

/** The number of judgings per judge label (the model before ` @ `) that have no valid verdict. */
async function judgeErrors(out: string): Promise<Map<string, number>> {
  const errors = new Map<string, number>();
  for (const row of await sampleRows(out)) {
    for (const score of row.scores) {
      if (score.valid || !score.judge) continue;
      const model = String(score.judge).split(" @ ")[0];
      errors.set(model, (errors.get(model) ?? 0) + 1);
    }
  }
  return errors;
}

Deno.test("a jury with one judge's replies truncated 1 in 4: counted per judge, footnoted, warned about", async () => {
  const { code, stderr, summary, rows, requests, out } = await runLlmEvalMed(
    { answerOutcome: (b) => b.model === SECOND_JUDGE && everyKth(4, b) ? "length" : undefined },
    ["--judge", SECOND_JUDGE],
  );
  assertEquals(code, 0, stderr);
  const first = answered(requests, JUDGE);
  const second = answered(requests, SECOND_JUDGE);
  const truncated = count(second, "length");
  assert(truncated > 0 && truncated / second.size > 0.05, `${truncated} of ${second.size}`);
  const errors = await judgeErrors(out);
  assertEquals(rows.map((r) => [r.role, r.model]), [["model", MODEL], ["judge", JUDGE], [
    "judge",
    SECOND_JUDGE,
  ]]);
  assertEquals(rows[0], {
    role: "model",
    model: MODEL,
    calls: summary.counts.samples,
    truncated: 0,
    refused: 0,
    empty: 0,
    context_errors: 0,
    failed: 0,
  });
  assertEquals(rows[1], {
    role: "judge",
    model: JUDGE,
    calls: first.size,
    truncated: 0,
    refused: 0,
    empty: 0,
    context_errors: 0,
    failed: 0,
    judge_errors: errors.get(JUDGE) ?? 0,
  });
  assertEquals(rows[2], {
    role: "judge",
    model: SECOND_JUDGE,
    calls: second.size,
    truncated,
    refused: 0,
    empty: 0,
    context_errors: 0,
    failed: 0,
    judge_errors: errors.get(SECOND_JUDGE) ?? 0,
  });
  // A cut verdict that no longer reads is asked again, then a judge error: the benchmark counts the same ones.
  assertEquals(rows[1].judge_errors! + rows[2].judge_errors!, summary.counts.judge_errors);
  assert(rows[2].judge_errors! > rows[1].judge_errors!, "the cut replies must have made judge errors");

  const part = `judge ${SECOND_JUDGE}: ${truncated} of ${second.size} calls truncated (${
    percent(truncated, second.size)
  })`;
  await assertFootnotes(`${out}/tables`, [part, `judge ${JUDGE}: 0 of ${first.size} calls truncated (0.0%)`]);
  assertStringIncludes(
    stderr,
    `warning: judge ${SECOND_JUDGE} (default): ${truncated} of ${second.size} replies truncated (${
      percent(truncated, second.size)
    }) at the token limit; raise --role-opt judge.max-tokens=N`,
  );
  assert(!stderr.includes(`warning: judge ${JUDGE} `), stderr);
  assert(!stderr.includes("raise --max-tokens"), stderr);
  assertStringIncludes(
    stderr,
    `outcomes: judge ${SECOND_JUDGE} (default): ${second.size} calls, ${truncated} truncated`,
  );
});

Deno.test("judge replies refused (content filter, refusal field) and empty: counted apart, no warning", async () => {
  // Run 1's first judging of one answer in 3 is filtered, run 2's empty, run 3's refused; re-asks answer normally.
  const judged = (b: FakeChatBody, seed: number) => b.model === JUDGE && b.seed === seed && everyKth(3, b);
  const { code, stderr, rows, requests, out } = await runLlmEvalMed({
    reply: (b) => judged(b, 1) ? "" : scriptedReply(b),
    answerOutcome: (b) => judged(b, 0) ? "content_filter" : judged(b, 2) ? "refusal" : undefined,
  });
  assertEquals(code, 0, stderr);
  const judge = answered(requests, JUDGE);
  const refused = count(judge, "content_filter", "refusal");
  const bodies = new Map<string, FakeChatBody>();
  for (const r of requests) if (r.callKey) bodies.set(r.callKey, r.body as FakeChatBody);
  const empty = [...judge].filter(([key]) => judged(bodies.get(key)!, 1)).length;
  assert(
    count(judge, "content_filter") > 0 && count(judge, "refusal") > 0 && empty > 0,
    `${refused}, ${empty}`,
  );
  const row = rows.find((r) => r.role === "judge")!;
  assertEquals(
    [row.calls, row.truncated, row.refused, row.empty, row.failed],
    [judge.size, 0, refused, empty, 0],
  );
  assertEquals(row.judge_errors, (await judgeErrors(out)).get(JUDGE));
  await assertFootnotes(`${out}/tables`, [
    `judge ${JUDGE}: 0 of ${judge.size} calls truncated (0.0%), ${refused} refused (${
      percent(refused, judge.size)
    }), ${empty} empty`,
    "a judge reply without a valid verdict is asked again, then is a judge error",
  ]);
  assert(!stderr.includes("warning:"), stderr);
  assertStringIncludes(stderr, `outcomes: judge ${JUDGE} (default): ${judge.size} calls, 0 truncated`);
});

Deno.test("one truncated judge reply (5% or less): counted and footnoted, no warning", async () => {
  let cut: string | undefined;
  const { code, stderr, rows, requests, out } = await runLlmEvalMed({
    answerOutcome: (b) => {
      if (b.model !== JUDGE || b.seed !== 0) return undefined;
      const user = b.messages.find((m) => m.role === "user")!.content;
      cut ??= user;
      return user === cut ? "length" : undefined;
    },
  });
  assertEquals(code, 0, stderr);
  const judge = answered(requests, JUDGE);
  assertEquals(count(judge, "length"), 1);
  const row = rows.find((r) => r.role === "judge")!;
  assertEquals([row.calls, row.truncated], [judge.size, 1]);
  assert(1 / judge.size <= 0.05);
  await assertFootnotes(`${out}/tables`, [`judge ${JUDGE}: 1 of ${judge.size} calls truncated`]);
  assert(!stderr.includes("warning:"), stderr);
});

Deno.test("judge requests longer than the judge's context: failed scorings of the judge, not in n", async () => {
  const { code, stderr, summary, rows, requests, out } = await runLlmEvalMed({
    contextLimit: { tokens: 380, style: "openai", models: (m) => m === JUDGE },
  });
  const judge = answered(requests, JUDGE);
  const bodies = new Map<string, FakeChatBody>();
  for (const r of requests) if (r.callKey) bodies.set(r.callKey, r.body as FakeChatBody);
  // One judge prompt per answer: each prompt refused is one sample whose scoring failed for good.
  const refusedPrompts = new Set(
    [...judge].filter(([, o]) => o === "400").map(([key]) => JSON.stringify(bodies.get(key)!.messages)),
  );
  assert(refusedPrompts.size > 0 && count(judge, "stop") > 0, `${refusedPrompts.size} of ${judge.size}`);
  assertEquals(code, 1, stderr);
  const row = rows.find((r) => r.role === "judge")!;
  assertEquals(
    [row.calls, row.failed, row.context_errors],
    [count(judge, "stop"), refusedPrompts.size, refusedPrompts.size],
  );
  assertEquals(rows[0].failed, 0);
  assertEquals(summary.counts.failed, refusedPrompts.size);
  await assertFootnotes(`${out}/tables`, [
    `${refusedPrompts.size} failed (${refusedPrompts.size} context-limit)`,
  ]);
});

Deno.test("every table states the rule and the counts even when every reply ended normally", async () => {
  const out = await Deno.makeTempDir({ prefix: "medeval-role-outcomes-zero-" });
  const result = await runCli([
    "eval",
    "climedbench",
    "--model",
    "offline:retrieval",
    "--data",
    `${ROOT}data/climedbench/sample.jsonl`,
    "--ablation",
    "cot",
    "--out",
    out,
    "--no-render",
    "--quiet",
  ]);
  assertEquals(result.code, 0, result.stderr);
  const summary = JSON.parse(await Deno.readTextFile(`${out}/summary.json`));
  const n = summary.counts.samples;
  assertEquals(summary.outcomes_by_role, [{
    role: "model",
    model: "offline:retrieval",
    calls: n,
    truncated: 0,
    refused: 0,
    empty: 0,
    context_errors: 0,
    failed: 0,
  }]);
  // Nothing to note in the summary; the tables state it all the same.
  assert(!summary.notes.some((note: string) => note.startsWith("model outputs:")));
  assert(!result.stderr.includes("outcomes:"), result.stderr);
  const zero = `model outputs: 0 of ${n} truncated (0.0%), 0 refused (0.0%), 0 empty (0.0%), ` +
    "0 context-limit errors (0.0%)";
  await assertFootnotes(`${out}/tables`, [zero]);
  await assertFootnotes(`${out}/conditions/cot/tables`, [zero]);
  // The paired table of the ablation states both conditions' lines, the condition's named.
  const paired = await Deno.readTextFile(`${out}/tables/ablation_cot.md`);
  assertStringIncludes(paired, `- offline:retrieval · cot [offline]: ${zero}`);
});

Deno.test("a judge whose replies hold no verdict: the run warns, naming the judge and doctor", async () => {
  const { code, stderr, rows } = await runLlmEvalMed({
    reply: (b) => b.model === JUDGE ? "I would rather not grade this." : scriptedReply(b),
  });
  assertEquals(code, 0, stderr);
  const row = rows.find((r) => r.role === "judge")!;
  assert(row.judge_errors! > 0 && row.judge_errors! / row.calls > 0.05);
  assertStringIncludes(
    stderr,
    `warning: judge ${JUDGE} (default): ${row.judge_errors} judgings without a valid verdict`,
  );
  assertStringIncludes(stderr, "deno task doctor");
});
