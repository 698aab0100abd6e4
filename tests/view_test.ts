/**
 * `deno task view`: the static viewer, written from real (offline) runs of four kinds — LLMEval-Med with a
 * chain-of-thought ablation, LLMEval-Med by a second offline model, CliMedBench (Chinese) and PerMedCQA
 * (Persian, with physicians' ratings) — then opened from file:// in headless Chromium and driven as a user
 * would: the runs page, a filter, a search in Chinese and in Persian, a sample page, a comparison of two runs
 * and an item side by side. Expected values come from the runs' own files, never from the viewer. The test
 * run takes a screenshot of each page; with MEDEVAL_DOC_SCREENSHOTS=1 they replace docs/img/viewer-*.png (shown
 * in docs/viewer.md), otherwise they go to a temporary folder, so that a test run leaves the repository as it
 * was. Without Chromium the browser tests are reported as ignored, with the reason in their name.
 * @module
 */
/// <reference lib="dom" />
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { findChromium } from "../lib/report/chromium.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { readRunView } from "../lib/pipeline/evaluate.ts";
import { getTask } from "../lib/benchmarks/registry.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { mcnemarExact } from "../lib/stats/compare.ts";
import type { Summary } from "../lib/core/summary.ts";
import { normalizePersian } from "../lib/text/persian.ts";
import { FLAG, type RowIndex } from "../lib/view/bundle_format.ts";
import { sampleOutcome } from "../lib/view/sample_outcome.ts";
import { compareCodePoints, recordsBySample } from "../lib/view/sample_streams.ts";
import { filterFromParams, filterRows, sortRows } from "../lib/view/assets/query.js";
import { terms } from "../lib/view/assets/search_terms.js";
import { ROOT } from "./run_cli.ts";
import { storedScore } from "./temp_store.ts";

/** Chromium's path, or why there is none. */
const CHROMIUM = (() => {
  try {
    return { path: findChromium() };
  } catch (err) {
    return { missing: (err as Error).message };
  }
})();

/** The run directories, relative to the work folder (as the runs page shows them). */
const RUNS = {
  reference: "runs/llmeval-reference",
  retrieval: "runs/llmeval-retrieval",
  climedbench: "runs/climedbench",
  permedcqa: "runs/permedcqa",
};

/** One row of a run's samples.jsonl. */
interface SampleLine {
  id: string;
  input: string;
  answer: string | null;
  scores: {
    scorer: string;
    judge?: string;
    value: number | null;
    valid: boolean;
    reason: string | null;
    values?: Record<string, unknown>;
  }[];
  [field: string]: unknown;
}

let prepared: Promise<string> | undefined;
let workFolder: string | undefined;

// The runs and the viewer are shared by the tests of this file and removed when they are done.
globalThis.addEventListener("unload", () => {
  if (workFolder) Deno.removeSync(workFolder, { recursive: true });
  if (shotsDir && shotsDir !== DOC_SHOTS) Deno.removeSync(shotsDir, { recursive: true });
});

/** Runs the four offline evaluations and writes their viewer once; returns the work folder. */
function prepare(): Promise<string> {
  prepared ??= (async () => {
    const work = workFolder = await Deno.makeTempDir({ prefix: "medeval-view-" });
    const base = { model: "offline:reference", progress: false, renderFigures: false };
    await runEval({
      ...base,
      benchmark: "llmeval-med",
      judge: "offline:overlap",
      ablations: ["cot"],
      out: `${work}/${RUNS.reference}`,
    });
    await runEval({
      ...base,
      benchmark: "llmeval-med",
      model: "offline:retrieval",
      judge: "offline:overlap",
      out: `${work}/${RUNS.retrieval}`,
    });
    await runEval({ ...base, benchmark: "climedbench", out: `${work}/${RUNS.climedbench}` });
    await runEval({
      ...base,
      benchmark: "permedcqa",
      judge: "offline:medjudge",
      humanEval: `${ROOT}data/permedcqa/physician_ratings.csv`,
      out: `${work}/${RUNS.permedcqa}`,
    });
    const view = await viewCli(work, [...Object.values(RUNS), "--out", "view"]);
    assertEquals(view.code, 0, view.stderr);
    assertStringIncludes(view.stdout, "viewer: file://");
    return work;
  })();
  return prepared;
}

/** Runs `lib/cli/view.ts` with `args` in `cwd`. */
async function viewCli(
  cwd: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}lib/cli/view.ts`, ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

async function readLines(path: string): Promise<SampleLine[]> {
  return (await Deno.readTextFile(path)).trim().split("\n").map((line) => JSON.parse(line));
}

async function summaryOf(dir: string): Promise<Summary> {
  return JSON.parse(await Deno.readTextFile(`${dir}/summary.json`));
}

/** Returns a rate estimate as the runs page shows it: `95.7 [87.0, 100.0]`. */
function percentText(summary: Summary, metric: string): string {
  const e = summary.metrics[metric];
  const f = (v: number) => (v * 100).toFixed(1);
  return `${f(e.value!)} [${f(e.ci95![0])}, ${f(e.ci95![1])}]`;
}

/** Waits until the page has shown what its address asks for. */
async function ready(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const main = document.querySelector("main");
      return main !== null && main.dataset.ready !== "" && main.dataset.ready === (location.hash || "#/");
    },
    { timeout: 60_000 },
  );
}

/** The number of samples the samples page says it shows. */
async function shownCount(page: Page): Promise<number> {
  return Number(await page.$eval(".count", (el) => (el as HTMLElement).dataset.count));
}

/** The ids in the rendered rows of the samples table. */
async function shownIds(page: Page): Promise<string[]> {
  return await page.$$eval(
    "table.samples tbody tr:not(.spacer) td.id a",
    (links) => links.map((a) => a.textContent!),
  );
}

/** Where the documentation's screenshots are (docs/viewer.md shows them). */
const DOC_SHOTS = `${ROOT}docs/img`;
/** The folder this test run's screenshots go into, once the first is taken. */
let shotsDir: string | undefined;

/**
 * Returns the path of the screenshot `name`: in docs/img only when asked for (MEDEVAL_DOC_SCREENSHOTS=1), else
 * in a temporary folder removed when the tests are done.
 */
async function shotPath(name: string): Promise<`${string}.png`> {
  if (shotsDir === undefined) {
    shotsDir = Deno.env.get("MEDEVAL_DOC_SCREENSHOTS") === "1"
      ? DOC_SHOTS
      : await Deno.makeTempDir({ prefix: "medeval-viewer-shots-" });
    await Deno.mkdir(shotsDir, { recursive: true });
  }
  return `${shotsDir}/viewer-${name}.png`;
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: await shotPath(name) });
}

/** Registers a browser test: ignored, with the reason in its name, where there is no Chromium. */
function browserTest(name: string, fn: (page: Page, work: string) => Promise<void>): void {
  Deno.test({
    name: CHROMIUM.path ? name : `${name} — skipped: ${CHROMIUM.missing}`,
    ignore: !CHROMIUM.path,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const work = await prepare();
      const browser: Browser = await puppeteer.launch({
        executablePath: CHROMIUM.path,
        headless: true,
        args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
      });
      try {
        const page = await browser.newPage();
        await page.setViewport({ width: 1400, height: 900 });
        const errors: string[] = [];
        page.on("pageerror", (err) => errors.push((err as Error).message));
        // No request may leave the file system: the bundle needs no server and no network.
        page.on("request", (request) => {
          if (!request.url().startsWith("file://") && !request.url().startsWith("blob:")) {
            errors.push(`network request: ${request.url()}`);
          }
        });
        await fn(page, work);
        assertEquals(errors, []);
      } finally {
        await browser.close();
      }
    },
  });
}

/** Opens the viewer at `hash` and waits for it. */
async function open(page: Page, work: string, hash = ""): Promise<void> {
  await page.goto(`file://${work}/view/index.html${hash}`);
  await ready(page);
}

browserTest(
  "view: the runs page lists every run with its n and headline metric with CI",
  async (page, work) => {
    await open(page, work);
    for (const [name, dir] of Object.entries(RUNS)) {
      const summary = await summaryOf(`${work}/${dir}`);
      const text = await page.evaluate((d) => {
        const rows = [...document.querySelectorAll("tr[data-run]")] as HTMLElement[];
        const key = rows.find((r) => r.textContent!.includes(d))?.dataset.run;
        return rows.filter((r) => r.dataset.run === key).map((r) => r.innerText).join("\n");
      }, dir);
      assertStringIncludes(text, dir, name);
      assertStringIncludes(text, summary.benchmark);
      assertStringIncludes(text, String(summary.n));
      const metric = Object.keys(summary.metrics)[0];
      if (summary.benchmark !== "climedbench") assertStringIncludes(text, percentText(summary, metric));
    }
    const reference = await page.$$eval(
      'tr[data-run="r0"]',
      (rows) => rows.map((r) => r.textContent!).join("\n"),
    );
    assertStringIncludes(reference, "cot", "the ablation is listed as a condition");
    await screenshot(page, "runs");
  },
);

browserTest("view: a run's tables link each cell to the samples it counts", async (page, work) => {
  await open(page, work, "#/run?run=r0");
  const summary = await summaryOf(`${work}/${RUNS.reference}`);
  const mtg = summary.groups.category.MTG.usability;
  const cell = await page.$eval(
    'table[data-field="category"] a[href*="g.category=MTG"][href*="count=usability"]',
    (a) => ({ text: a.textContent, href: (a as HTMLAnchorElement).getAttribute("href") }),
  );
  assertEquals(
    cell.text,
    `${(mtg.value! * 100).toFixed(1)} [${(mtg.ci95![0] * 100).toFixed(1)}, ${
      (mtg.ci95![1] * 100).toFixed(1)
    }]`,
  );
  await screenshot(page, "run");
  // the run's figures, drawn by plotly.js from the specs eval wrote
  const written = [...Deno.readDirSync(`${work}/${RUNS.reference}/figures`)].map((e) => e.name)
    .filter((name) => name.endsWith(".html")).map((name) => name.slice(0, -5)).sort();
  assert(written.length > 0);
  await page.waitForFunction(
    (n) => document.querySelectorAll(".figure .main-svg").length >= n,
    {},
    written.length,
  );
  assertEquals(await page.$$eval(".figure figcaption", (els) => els.map((el) => el.textContent)), written);
  const figure = await page.$(".figure");
  await figure!.scrollIntoView();
  await figure!.screenshot({ path: await shotPath("figure") });
  await page.goto(`file://${work}/view/index.html${cell.href}`);
  await ready(page);
  assertEquals(await shownCount(page), mtg.n);
});

browserTest("view: filters narrow the samples table to the rows they select", async (page, work) => {
  const lines = await readLines(`${work}/${RUNS.reference}/samples.jsonl`);
  await open(page, work, "#/samples?run=r0");
  assertEquals(await shownCount(page), lines.length);
  await page.select('select[name="g.category"]', "MK");
  await ready(page);
  const mk = lines.filter((l) => l.category === "MK").map((l) => l.id);
  assertEquals(await shownCount(page), mk.length);
  assertEquals(await shownIds(page), mk);
  // score range: the judge's mean valid score, as the score column shows it
  const mean = (l: SampleLine) => {
    const v = l.scores.filter((s) => s.valid && s.value !== null).map((s) => s.value!);
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
  };
  await page.goto(`file://${work}/view/index.html#/samples?run=r0`);
  await ready(page);
  await page.type('input[name="smax"]', "4.5");
  await page.$eval('input[name="smax"]', (el) => el.dispatchEvent(new Event("change", { bubbles: true })));
  await ready(page);
  const low = lines.filter((l) => mean(l) !== null && mean(l)! <= 4.5).map((l) => l.id);
  assert(low.length > 0 && low.length < lines.length, "the sample has answers on both sides of 4.5");
  assertEquals(await shownIds(page), low);
  await screenshot(page, "samples");

  // judge–human disagreement on the PerMedCQA run: a physician's rubric value differs from the judges' usual one
  const persian = await readLines(`${work}/${RUNS.permedcqa}/samples.jsonl`);
  const disagreeing = persian.filter((l) => {
    const judged = l.scores.filter((s) => !s.scorer.startsWith("human:") && s.valid);
    const usual = (field: string) => {
      const counts = new Map<unknown, number>();
      for (const s of judged) counts.set(s.values?.[field], (counts.get(s.values?.[field]) ?? 0) + 1);
      return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
    };
    return l.scores.filter((s) => s.scorer.startsWith("human:")).some((h) =>
      Object.entries(h.values ?? {}).some(([field, value]) =>
        usual(field) !== undefined && usual(field) !== value
      )
    );
  }).map((l) => l.id);
  await page.goto(`file://${work}/view/index.html#/samples?run=r3`);
  await ready(page);
  await page.click('input[name="flag-disagreement"]');
  await ready(page);
  assert(disagreeing.length > 0);
  assertEquals(await shownCount(page), disagreeing.length);
  assertEquals(await shownIds(page), disagreeing);
});

/** Types `query` into the search box, submits it and waits for the hits. */
async function search(page: Page, query: string): Promise<string[]> {
  await page.$eval('input[name="q"]', (el) => ((el as HTMLInputElement).value = ""));
  await page.type('input[name="q"]', query);
  await page.click('form.filters button[type="submit"]');
  await page.waitForFunction((q) => location.hash.includes(encodeURIComponent(q)), {}, query);
  await ready(page);
  return await shownIds(page);
}

browserTest("view: full-text search finds Chinese and Persian text", async (page, work) => {
  const chinese = await readLines(`${work}/${RUNS.climedbench}/samples.jsonl`);
  await open(page, work, "#/samples?run=r2");
  const query = "心肌梗死";
  const expected = chinese.filter((l) => `${l.input}\n${l.answer}`.includes(query)).map((l) => l.id);
  assert(expected.length > 0 && expected.length < chinese.length);
  assertEquals(await search(page, query), expected);
  assertStringIncludes(await page.$eval(".count", (el) => el.textContent!), query);

  const persian = await readLines(`${work}/${RUNS.permedcqa}/samples.jsonl`);
  await page.goto(`file://${work}/view/index.html#/samples?run=r3`);
  await ready(page);
  // the words of question, answer and rationales, normalised as the project normalises Persian
  const words = (l: SampleLine) =>
    normalizePersian([l.input, l.answer ?? "", ...l.scores.map((s) => s.reason ?? "")].join(" "))
      .split(/[^\p{L}\p{M}\p{N}]+/u);
  const word = "بارداری";
  const withWord = persian.filter((l) => words(l).some((w) => w.startsWith(word))).map((l) => l.id);
  assert(withWord.length > 0 && withWord.length < persian.length);
  assertEquals(await search(page, word), withWord);
  // the same word typed with the Arabic yeh finds the same samples
  assertEquals(await search(page, word.replaceAll("ی", "ي")), withWord);
  await screenshot(page, "search");
});

browserTest(
  "view: a sample page shows the conversation as sent, each judge's rationale and every condition",
  async (page, work) => {
    const lines = await readLines(`${work}/${RUNS.reference}/samples.jsonl`);
    const sample = lines.find((l) => l.id.endsWith("-2"))!; // a second turn: the first turn is part of what was sent
    await open(page, work, "#/samples?run=r0");
    await page.click(`a[href*="id=${encodeURIComponent(sample.id)}"]`);
    await ready(page);
    const calls = (await Deno.readTextFile(`${work}/${RUNS.reference}/log/calls.jsonl`)).trim().split("\n")
      .map((l) => JSON.parse(l));
    const outputs = (await Deno.readTextFile(`${work}/${RUNS.reference}/log/outputs.jsonl`)).trim().split(
      "\n",
    )
      .map((l) => JSON.parse(l));
    const output = outputs.find((o) => o.sampleId === sample.id && o.condition === "default");
    const call = calls.find((c) => c.key === output.callKey);
    const shown = await page.$eval(
      '.condition[data-condition="default"]',
      (el) => (el as HTMLElement).innerText,
    );
    for (const message of call.request.messages) {
      assertStringIncludes(shown, message.content);
    }
    assert(call.request.messages.length >= 4, "the earlier turn is in the conversation as sent");
    for (const score of sample.scores) assertStringIncludes(shown, score.reason!);
    assertEquals(
      await page.$$eval('.condition[data-condition="default"] table.scores tbody tr', (rows) => rows.length),
      sample.scores.length,
    );
    assertStringIncludes(shown, "latency");
    const cot = await page.$eval('.condition[data-condition="cot"]', (el) => (el as HTMLElement).innerText);
    const cotOutput = outputs.find((o) => o.sampleId === sample.id && o.condition === "cot");
    const cotCall = calls.find((c) => c.key === cotOutput.callKey);
    assertStringIncludes(cot, cotCall.request.messages.at(-1).content);
    await screenshot(page, "sample");

    // human ratings on a PerMedCQA sample page
    const persian = await readLines(`${work}/${RUNS.permedcqa}/samples.jsonl`);
    const rated = persian.find((l) => l.scores.some((s) => s.scorer.startsWith("human:")))!;
    await page.goto(`file://${work}/view/index.html#/sample?run=r3&id=${encodeURIComponent(rated.id)}`);
    await ready(page);
    const ratings = await page.$eval("table.ratings", (el) => (el as HTMLElement).innerText);
    for (const rating of rated.scores.filter((s) => s.scorer.startsWith("human:"))) {
      assertStringIncludes(ratings, rating.judge!);
    }
  },
);

/** Returns each sample's usability under the LLMEval-Med rows of the run in `dir`. */
async function usability(dir: string): Promise<Map<string, number>> {
  const task = await getTask("llmeval-med");
  const summary = await summaryOf(dir);
  const store = new RunStore(`${dir}/run.sqlite`, { readOnly: true });
  try {
    const rows = task.rows(readRunView(store, "default"), {
      benchmark: summary.benchmark,
      model: summary.model,
      judge: summary.judge,
      condition: "default",
      offline: summary.offline,
      judgeRuns: summary.judge_runs,
    });
    return new Map(rows.map((r) => [r.id, r.values.usability!]));
  } finally {
    store.close();
  }
}

browserTest(
  "view: comparing two runs shows McNemar, the flipped items and the transcripts side by side",
  async (page, work) => {
    const a = await usability(`${work}/${RUNS.reference}`);
    const b = await usability(`${work}/${RUNS.retrieval}`);
    const ids = [...a.keys()].filter((id) => b.has(id));
    const expected = mcnemarExact(ids.map((id) => a.get(id)!), ids.map((id) => b.get(id)!));
    assert(expected.b > 0, "the two offline models differ");
    await open(page, work);
    await page.click('a.tab[href="#/compare"]');
    await ready(page);
    const options = await page.$$eval(
      'select[name="c"] option',
      (els) => els.map((o) => ({ value: (o as HTMLOptionElement).value, text: o.textContent! })),
    );
    const between = options.find((o) =>
      o.text.includes("offline:retrieval") && o.text.includes("offline:reference")
    )!;
    await page.select('select[name="c"]', between.value);
    await ready(page);
    const line = await page.$eval(".summary-line", (el) => el.textContent!.replace(/\s+/g, " "));
    const match = line.match(/McNemar b = (\d+), c = (\d+), p = ([\d.e+-]+)/);
    assert(match, line);
    assertEquals([Number(match[1]), Number(match[2])], [expected.b, expected.c]);
    assert(Math.abs(Number(match[3]) - expected.p) <= expected.p * 1e-2, `${match[3]} vs ${expected.p}`);
    assertStringIncludes(line, `over ${ids.length} pairs`);
    const flippedToB = ids.filter((id) => a.get(id) === 1 && b.get(id) === 0);
    assertEquals(
      await page.$$eval("ul.flip-a li a", (links) => links.map((l) => l.textContent!)),
      flippedToB,
    );
    assertEquals(await page.$$eval("ul.flip-b li a", (links) => links.length), expected.c);
    await screenshot(page, "compare");

    await page.click(`ul.flip-a li a[href*="id=${encodeURIComponent(flippedToB[0])}"]`);
    await ready(page);
    const sides = await page.$$eval(".side", (els) => els.map((el) => (el as HTMLElement).dataset.side));
    assertEquals(sides.length, 2);
    assert(await page.$(".side del") && await page.$(".side ins"), "the answers' differences are marked");
    await screenshot(page, "pair");
  },
);

Deno.test("view: bad arguments end with one line and exit code 2", async () => {
  const work = await Deno.makeTempDir({ prefix: "medeval-view-args-" });
  const none = await viewCli(work, []);
  assertEquals(none.code, 2);
  assertEquals(none.stderr.trim().split("\n").length, 1);
  assertStringIncludes(none.stderr, "name the run directories");
  await Deno.mkdir(`${work}/empty`);
  const noStore = await viewCli(work, ["empty"]);
  assertEquals(noStore.code, 2);
  assertStringIncludes(noStore.stderr, "empty: no run store (run.sqlite)");
  assertEquals([...Deno.readDirSync(`${work}/empty`)], [], "nothing is written when a run is missing");
  const missing = await viewCli(work, ["nowhere"]);
  assertEquals(missing.code, 2);
  assertStringIncludes(missing.stderr, "nowhere: no such directory");
  const several = await viewCli(work, ["a", "b"]);
  assertEquals(several.code, 2);
  assertStringIncludes(several.stderr, "--out is required");
  const unknown = await viewCli(work, ["empty", "--opn"]);
  assertEquals(unknown.code, 2);
  assertStringIncludes(unknown.stderr, "did you mean --open?");
  await Deno.remove(work, { recursive: true });
});

Deno.test("view: a folder that holds other files is never overwritten", async () => {
  const work = await prepare();
  await Deno.mkdir(`${work}/notes`, { recursive: true });
  await Deno.writeTextFile(`${work}/notes/mine.txt`, "keep me");
  const result = await viewCli(work, [RUNS.climedbench, "--out", "notes"]);
  assertEquals(result.code, 2);
  assertStringIncludes(result.stderr, "holds other files");
  assertEquals(await Deno.readTextFile(`${work}/notes/mine.txt`), "keep me");
});

// ---- the pieces, without a browser ----

Deno.test("view: search terms — Chinese as character pairs, Persian normalised, Latin words lower-cased", () => {
  assertEquals(terms("急性心肌梗死", false), ["急性", "性心", "心肌", "肌梗", "梗死"]);
  assertEquals(terms("心", false), ["心"]);
  assert(
    terms("急性心肌梗死").includes("死"),
    "the index keeps a run's last character for one-character queries",
  );
  // Arabic yeh and kaf, ZWNJ and a spaced verb prefix give the Persian form
  assertEquals(terms("مي خواهم", false), terms("می‌خواهم", false));
  assertEquals(terms("كودك", false), ["کودک"]);
  assertEquals(terms("Acute MI, ACUTE!", false), ["acute", "mi"]);
});

Deno.test("view: filters over the row index — group, score range, flags, metric counted; sorting", () => {
  const rows: RowIndex = {
    ids: ["a", "b", "c", "d"],
    fields: { category: { values: ["MK", "MR"], codes: [0, 1, 0, -1] } },
    resultChunk: [0, 0, 0, 0],
    conditions: {
      default: {
        score: [5, 2, null, 3.5],
        metrics: { usability: [1, 0, null, 0] },
        flags: [0, FLAG.judgeError | FLAG.truncated, FLAG.notRun, FLAG.truncated],
        verdict: {},
      },
    },
  };
  const run = (
    query: string,
    only?: Set<number>,
  ) => [...filterRows(rows, "default", filterFromParams(new URLSearchParams(query)), only ?? null)];
  assertEquals(run(""), [0, 1, 2, 3]);
  assertEquals(run("g.category=MK"), [0, 2]);
  assertEquals(run("smin=3"), [0, 3]);
  assertEquals(run("smin=2&smax=4"), [1, 3]);
  assertEquals(run("flag=truncated"), [1, 3]);
  assertEquals(run("flag=truncated&flag=judgeError"), [1]);
  assertEquals(run("count=usability"), [0, 1, 3]);
  assertEquals(run("m.usability=0"), [1, 3]);
  assertEquals(run("g.category=MK", new Set([2, 3])), [2]);
  assertEquals([...sortRows(rows, "default", Int32Array.from([0, 1, 2, 3]), "score", true)], [0, 3, 1, 2]);
});

Deno.test("view: a sample's flags and score come from its output, scores and call", () => {
  const score = (over: Record<string, unknown>) => ({
    sampleId: "s",
    condition: "default",
    scorer: "medjudge",
    judge: "j",
    run: 1,
    value: 1,
    values: { correctness: "Correct" },
    valid: true,
    reason: "ok",
    callKey: null,
    detail: null,
    ...over,
  });
  const output = { sampleId: "s", condition: "default", callKey: "k", text: "answer", error: null };
  const outcome = sampleOutcome(
    output,
    [
      score({}),
      score({ run: 2, value: 0, values: { correctness: "Correct" } }),
      score({ run: 3, valid: false, value: null }),
    ],
    { finishReason: "length", refusal: null, text: "answer" },
    "medjudge",
  );
  assertEquals(outcome.score, 0.5);
  assertEquals(outcome.verdict, { correctness: "Correct" });
  assertEquals(outcome.flags, FLAG.truncated | FLAG.judgeError);
  const rated = sampleOutcome(
    output,
    [
      score({}),
      score({ scorer: "human:physicians", judge: "p1", values: { correctness: "Incorrect" } }),
    ],
    undefined,
    "medjudge",
  );
  assertEquals(rated.flags, FLAG.humanRated | FLAG.disagreement);
  assertEquals(sampleOutcome(undefined, [], undefined, "medjudge").flags, FLAG.notRun);
  assertEquals(
    sampleOutcome(
      { ...output, text: null, error: "HTTP 500" },
      [score({ detail: { extraction_failed: true } })],
      undefined,
      null,
    )
      .flags,
    FLAG.answerError | FLAG.extractionFailure,
  );
});

Deno.test("view: a reply is flagged refused exactly when the summaries count it refused", () => {
  const output = { sampleId: "s", condition: "default", callKey: "k", text: "answer", error: null };
  const refused = (finishReason: string | null, refusal: string | null, text: string) =>
    (sampleOutcome(output, [], { finishReason, refusal, text }, null).flags & FLAG.refused) !== 0;
  // Filtered, with or without partial content.
  assert(refused("content_filter", null, ""));
  assert(refused("content_filter", null, "partial"));
  // A refusal with no content once trimmed (JavaScript's whitespace, not only spaces).
  assert(refused("stop", "I can't help with that.", ""));
  assert(refused("stop", "I can't help with that.", "\u3000\n"));
  // A refusal beside a real answer is an answer; no refusal, no flag.
  assert(!refused("stop", "partly", "B"));
  assert(!refused("stop", null, ""));
  assert(!refused("length", "", "   "));
});

Deno.test("view: outputs and scores are merged per sample in the store's id order", () => {
  assert(
    compareCodePoints("a", "b") < 0 && compareCodePoints("b", "a") > 0 && compareCodePoints("x", "x") === 0,
  );
  // SQLite orders by UTF-8 bytes: U+FF5E (3 bytes) before U+1F600 (4 bytes), unlike UTF-16 code units
  assert(compareCodePoints("\uFF5E", "\u{1F600}") < 0);
  const output = (id: string) => ({
    sampleId: id,
    condition: "default",
    callKey: null,
    text: id,
    error: null,
  });
  const score = (id: string) => storedScore({ sampleId: id, condition: "default" });
  const merged = [...recordsBySample([output("a"), output("c")], [score("a"), score("a"), score("b")])];
  assertEquals(merged.map((m) => [m.id, m.outputs.length, m.scores.length]), [["a", 1, 2], ["b", 0, 1], [
    "c",
    1,
    0,
  ]]);
});
