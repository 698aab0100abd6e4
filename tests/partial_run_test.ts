/**
 * Partial runs are reported honestly: a sample that was not asked, not judged yet, or failed for good is never
 * counted as a zero; the summary says `complete: false` with the counts; every table carries the line; a
 * `--resume` completes the run; the console names why samples failed.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { plannedScore, questionTag, scriptedReply } from "./fake_judge.ts";
import { startFakeServer } from "./fake_server.ts";
import { llmevalCommand, sampleRows } from "./run_cli.ts";

interface Row {
  id: string;
  input: string;
  answer: string | null;
  answer_error: string | null;
  scores: { scorer: string; run: number; value: number | null; valid: boolean }[];
}

/** Usability recomputed from the fake judge's script, over the samples answered and judged 3 times. */
function plannedUsability(rows: readonly Row[]): { usable: number; n: number } {
  let usable = 0;
  let n = 0;
  for (const row of rows) {
    if (row.answer === null || row.scores.filter((s) => s.scorer === "judge").length < 3) continue;
    n++;
    const valid = [1, 2, 3].map((run) => plannedScore(questionTag(row.input), run))
      .filter((s): s is number => s !== null);
    if (valid.length && valid.reduce((a, b) => a + b, 0) / valid.length >= 4) usable++;
  }
  return { usable, n };
}

/** Runs a prepared command and decodes what it printed. */
async function run(command: Deno.Command): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await command.output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

async function tableTexts(dir: string): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.endsWith(".md") || entry.name.endsWith(".tex")) {
      texts.set(entry.name, await Deno.readTextFile(`${dir}/${entry.name}`));
    }
  }
  return texts;
}

Deno.test("a run stopped by --max-tokens-total counts only what was asked and judged; --resume completes it", async () => {
  const server = await startFakeServer({ reply: scriptedReply, latencyMs: 2 });
  const dir = await Deno.makeTempDir({ prefix: "medeval-partial-" });
  const out = `${dir}/run`;
  try {
    // About 15 tokens a call: the limit stops the run with some questions judged, some answered only.
    const first = await run(llmevalCommand(server.url, out, false, ["--max-tokens-total", "900", "--quiet"]));
    assertEquals(first.code, 1, first.stderr);
    assertStringIncludes(first.stderr, "stopped: token limit reached");
    const summary = JSON.parse(await Deno.readTextFile(`${out}/summary.json`));
    assertEquals(summary.complete, false);
    const { samples, scored, not_asked, not_judged, failed } = summary.counts;
    assertEquals(scored + not_asked + not_judged + failed, samples);
    assert(scored > 0 && not_asked + not_judged > 0, JSON.stringify(summary.counts));
    assertEquals(failed, 0);
    // The rate rests on the scored questions alone, with the protocol's rule applied to each of them.
    const rows = await sampleRows(out) as unknown as Row[];
    const planned = plannedUsability(rows);
    assertEquals(planned.n, scored);
    assertEquals(summary.metrics.usability.n, scored);
    assertEquals(summary.metrics.usability.value, planned.usable / planned.n);
    assertEquals(summary.counts.answer_errors, 0, "a question not asked is not an answer error");
    const line = summary.notes[0];
    assertStringIncludes(line, `partial run: ${scored} of ${samples} samples scored; ${not_asked} not asked`);
    assertStringIncludes(first.stdout, line);
    const tables = await tableTexts(`${out}/tables`);
    assert(tables.size >= 4, [...tables.keys()].join(", "));
    for (const [name, text] of tables) assertStringIncludes(text, line, name);

    const second = await run(llmevalCommand(server.url, out, true, ["--quiet"]));
    assertEquals(second.code, 0, second.stderr);
    const done = JSON.parse(await Deno.readTextFile(`${out}/summary.json`));
    assertEquals(done.complete, true);
    assertEquals(done.counts.scored, done.counts.samples);
    const all = plannedUsability(await sampleRows(out) as unknown as Row[]);
    assertEquals(all.n, done.counts.samples);
    assertEquals(done.metrics.usability.value, all.usable / all.n);
    for (const [name, text] of await tableTexts(`${out}/tables`)) {
      assertEquals(text.includes("partial run"), false, name);
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an unreachable endpoint gives no rate at all (n = 0), counts every sample failed and names the cause", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-partial-" });
  try {
    const url = "http://127.0.0.1:1/v1";
    const result = await run(
      llmevalCommand(url, `${dir}/run`, false, ["--limit", "5", "--max-retries", "0", "--quiet"]),
    );
    assertEquals(result.code, 1, result.stderr);
    const summary = JSON.parse(await Deno.readTextFile(`${dir}/run/summary.json`));
    assertEquals(summary.complete, false);
    assertEquals(summary.metrics.usability, { value: null, ci95: null, n: 0 });
    assertEquals(summary.counts.failed, summary.counts.samples);
    assertEquals(summary.counts.answer_errors, summary.counts.samples);
    assertStringIncludes(result.stderr, "failed for good, by cause (samples):");
    assertStringIncludes(result.stderr, `${summary.counts.samples} × connection failed`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--batch: a refused batch submission is named on the console with its count", async () => {
  const server = await startFakeServer({
    fault: (r) =>
      r.path.endsWith("/batches") ? { status: 400, message: "model not available for batch" } : undefined,
  });
  const dir = await Deno.makeTempDir({ prefix: "medeval-partial-" });
  try {
    const result = await run(
      llmevalCommand(server.url, `${dir}/run`, false, ["--limit", "3", "--batch", "--quiet"]),
    );
    assertEquals(result.code, 1, result.stderr);
    const summary = JSON.parse(await Deno.readTextFile(`${dir}/run/summary.json`));
    const failed = summary.counts.failed;
    assert(failed > 0, JSON.stringify(summary.counts));
    const cause = result.stderr.split("\n").find((l) => l.includes("batch submission failed"));
    assert(cause, result.stderr);
    assertStringIncludes(cause, "model not available for batch");
    assertStringIncludes(cause, `${failed} ×`);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
