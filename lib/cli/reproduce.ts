/**
 * `deno task reproduce`: runs every benchmark's offline pipeline on the data the project has, and writes the
 * combined tables and figures under `figures/` and a report under `reports/`. Offline baselines and the offline
 * judge are labelled as such in every table, figure and report.
 * @module
 */
import { pathExists } from "../core/fs.ts";
import { getTask } from "../benchmarks/registry.ts";
import { runEval } from "../pipeline/run_eval.ts";
import { exportFigures } from "../report/figures.ts";
import { overviewTable, runFigures } from "../report/run_report.ts";
import type { Summary } from "../report/summary.ts";
import { groupTables, toMarkdown, writeTable } from "../report/tables.ts";
import { downloadedPath } from "./download.ts";

/** Options of {@linkcode reproduce}. */
export interface ReproduceOptions {
  /** Directory under which `figures/`, `reports/` and `runs/` are written. */
  root: string;
  /** Render SVG/PNG/PDF (needs Chromium); HTML is always written. */
  render: boolean;
}

/** Runs the offline LLMEval-Med pipeline (reference and retrieval baselines, offline judge) and reports it. */
async function reproduceLlmEvalMed(options: ReproduceOptions): Promise<string> {
  const task = await getTask("llmeval-med");
  const full = downloadedPath("llmeval-med");
  const data = (await pathExists(full))
    ? full
    : new URL(`../../${task.defaultDataPath}`, import.meta.url).pathname;
  const summaries: Summary[] = [];
  for (const model of ["offline:reference", "offline:retrieval"]) {
    const out = `${options.root}/runs/reproduce/llmeval-med/${model.replace(":", "_")}`;
    await Deno.remove(out, { recursive: true }).catch(() => {});
    const result = await runEval({
      benchmark: "llmeval-med",
      model,
      judge: "offline:overlap",
      judgeRuns: 1,
      data,
      out,
      progress: false,
      renderFigures: false,
    });
    summaries.push(result.summary);
  }
  const figuresDir = `${options.root}/figures/llmeval_med`;
  await Deno.remove(figuresDir, { recursive: true }).catch(() => {});
  await writeTable(figuresDir, "overview", overviewTable(summaries, task.report));
  for (const summary of summaries) {
    for (const [name, table] of Object.entries(groupTables(summary, task.report.metrics))) {
      await writeTable(figuresDir, `${summary.model.replace(":", "_")}_${name}`, table);
    }
  }
  const figures = runFigures(summaries, task.report);
  await exportFigures(figuresDir, figures, options.render);

  const relData = data.includes("/data/downloads/") ? "the full downloaded test set" : "the shipped sample";
  const lines = [
    "# LLMEval-Med — offline pipeline",
    "",
    `Data: ${relData} (${
      summaries[0].n
    } questions). Models: offline baselines only; judge: offline lexical overlap.`,
    "",
    "**These are OFFLINE sanity checks, not LLM-judged model results.** `offline:reference` answers with the",
    "reference itself (a ceiling that checks the pipeline); `offline:retrieval` answers with another question's",
    "reference (a floor). To evaluate a model, run `deno task eval llmeval-med --model NAME --base-url URL",
    "--judge NAME --judge-base-url URL` (3 judge runs by default, as in the paper).",
    "",
    toMarkdown(overviewTable(summaries, task.report)),
    ...summaries.map((s) => toMarkdown(groupTables(s, task.report.metrics).by_difficulty)),
    "Figures: " +
    Object.keys(figures).map((n) => `\`figures/llmeval_med/${n}.{html,svg,png,pdf}\``).join(", "),
    "",
  ];
  await Deno.mkdir(`${options.root}/reports`, { recursive: true });
  const report = `${options.root}/reports/llmeval_med.md`;
  await Deno.writeTextFile(report, lines.join("\n"));
  return report;
}

/** Re-creates every table, figure and report the project can make with the data it has. */
export async function reproduce(options: ReproduceOptions): Promise<string[]> {
  const reports = [await reproduceLlmEvalMed(options)];
  for (const report of reports) console.log(`wrote ${report}`);
  return reports;
}
