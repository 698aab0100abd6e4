/**
 * `deno task irt fit | cat | subset | mps`: calibrate items (1PL/2PL/3PL) from a response CSV or collected
 * runs, run adaptive tests (simulated from known responses, or live against a model), select a
 * rapid-assessment subset and compare its ranking with the full benchmark, and build multi-agent participants.
 * @module
 */
import { parseArgs } from "node:util";
import { ConfigError } from "../core/errors.ts";
import { csvText } from "../core/csv.ts";
import type { Table } from "../core/report_spec.ts";
import { calibrate } from "../irt/calibrate.ts";
import { type CatOptions, heldOutAccuracy, simulateCat } from "../irt/cat.ts";
import { fitFile, itemParameters, readFitFile } from "../irt/fit_file.ts";
import { responsesFromRuns } from "../irt/from_runs.ts";
import { NO_PRIORS } from "../irt/item_terms.ts";
import { IRT_MODELS, type IrtModel } from "../irt/model.ts";
import { catTraceFigure, informationFigure, itemsTable, rapidFigure, rapidTable } from "../irt/report.ts";
import { readResponsesCsv, type Responses } from "../irt/responses.ts";
import { RAPID_SUBSET_SIZE, rapidAssessment, selectSubset } from "../irt/subset.ts";
import { adaptiveEval } from "../pipeline/adaptive_eval.ts";
import { runParticipants } from "../pipeline/mps_runs.ts";
import { exportFigures } from "../report/figures.ts";
import { formatEstimate, toMarkdown, writeTable } from "../report/tables.ts";

/** Usage of `deno task irt`. */
export const IRT_USAGE =
  `  deno task irt fit (--responses FILE.csv | --runs DIR...) --model 1pl|2pl|3pl --out DIR
                   [--scorer S] [--threshold T] [--condition C] [--no-priors] [--fallback] [--nodes N]
                   [--ability eap|map] [--no-render]
      (CSV wide: person?,ITEM...,freq? with 1/0/empty; or long: person,item,response)
  deno task irt cat --items DIR/fit.json (--responses FILE.csv | --model NAME [--benchmark B] [--base-url URL]
                    [--data FILE] [--scorer S] [--threshold T] [--resume]) [--stop-se S] [--max-items N]
                    [--min-items N] [--randomesque K] [--estimator eap|mle] [--seed S] --out DIR
  deno task irt subset --items DIR/fit.json [--size 243] (--runs DIR... | --responses FILE.csv) --out DIR
  deno task irt mps --models A,B,... [--benchmark climedbench] [--base-url URL] [--data FILE] [--limit N] --out DIR
      (each model alone and with every other as debater: generation -> debate -> reflection, one run each)`;

const OPTIONS = {
  responses: { type: "string" },
  runs: { type: "string", multiple: true },
  model: { type: "string" },
  models: { type: "string" },
  out: { type: "string" },
  scorer: { type: "string" },
  threshold: { type: "string" },
  condition: { type: "string" },
  "no-priors": { type: "boolean" },
  fallback: { type: "boolean" },
  nodes: { type: "string" },
  ability: { type: "string" },
  "no-render": { type: "boolean" },
  items: { type: "string" },
  "stop-se": { type: "string" },
  "max-items": { type: "string" },
  "min-items": { type: "string" },
  randomesque: { type: "string" },
  estimator: { type: "string" },
  seed: { type: "string" },
  size: { type: "string" },
  benchmark: { type: "string" },
  "base-url": { type: "string" },
  data: { type: "string" },
  limit: { type: "string" },
  resume: { type: "boolean" },
} as const;

type Values = ReturnType<typeof parse>["values"];

function parse(args: string[]) {
  return parseArgs({ args, allowPositionals: true, options: OPTIONS });
}

function number(
  values: Values,
  flag: keyof Values,
  check: (n: number) => boolean,
  want: string,
): number | undefined {
  const raw = values[flag];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== "string" || raw.trim() === "" || !Number.isFinite(n) || !check(n)) {
    throw new ConfigError(`--${flag} expects ${want}, got "${raw}"`);
  }
  return n;
}

function required(values: Values, flag: "out" | "items"): string {
  const value = values[flag];
  if (!value) throw new ConfigError(`--${flag} is required (deno task irt --help)`);
  return value;
}

/** The run directories: `--runs A --runs B` or `--runs A B C` (the rest as positionals). */
function runDirs(values: Values, positionals: string[]): string[] {
  return values.runs ? [...values.runs, ...positionals] : [];
}

async function loadResponses(values: Values, positionals: string[]) {
  const dirs = runDirs(values, positionals);
  if (values.responses && dirs.length) throw new ConfigError("give --responses or --runs, not both");
  const threshold = number(values, "threshold", () => true, "a number");
  if (values.responses) {
    const warnings: string[] = [];
    return {
      data: await readResponsesCsv(values.responses),
      source: { responses: values.responses },
      warnings,
    };
  }
  if (!dirs.length) throw new ConfigError("give the responses: --responses FILE.csv or --runs DIR...");
  const read = await responsesFromRuns(dirs, {
    scorer: values.scorer,
    threshold,
    condition: values.condition,
  });
  return {
    data: read.data,
    source: {
      runs: dirs,
      scorer: read.scorer,
      threshold: threshold ?? null,
      condition: values.condition ?? null,
    },
    warnings: read.warnings,
  };
}

function matrixText(data: Responses): string {
  const weighted = data.weights.some((w) => w !== 1);
  return csvText([
    ["person", ...data.items, ...(weighted ? ["freq"] : [])],
    ...data.persons.map((p, i) => [p, ...data.values[i], ...(weighted ? [data.weights[i]] : [])]),
  ]);
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await Deno.writeTextFile(path, `${JSON.stringify(value, null, 2)}\n`);
}

async function fitCommand(values: Values, positionals: string[]): Promise<number> {
  const model = values.model as IrtModel;
  if (!IRT_MODELS.includes(model)) throw new ConfigError(`--model expects one of ${IRT_MODELS.join(", ")}`);
  const out = required(values, "out");
  if (values.ability && !["eap", "map"].includes(values.ability)) {
    throw new ConfigError("--ability expects eap or map");
  }
  const nodes = number(
    values,
    "nodes",
    (n) => Number.isInteger(n) && n >= 61 && n <= 401,
    "an integer 61..401",
  );
  const { data, source, warnings } = await loadResponses(values, positionals);
  const calibration = calibrate(data, {
    model,
    nodes,
    fallback: values.fallback,
    priors: values["no-priors"] ? NO_PRIORS : undefined,
    ability: values.ability as "eap" | "map" | undefined,
  });
  calibration.warnings.unshift(...warnings);
  const file = fitFile(calibration, source);
  await Deno.mkdir(out, { recursive: true });
  await writeJson(`${out}/fit.json`, file);
  await Deno.writeTextFile(
    `${out}/items.csv`,
    csvText([
      [
        "item",
        "a",
        "b",
        "c",
        "se_a",
        "se_b",
        "se_c",
        "n",
        "p_correct",
        "infit",
        "outfit",
        "q1",
        "q1_df",
        "q1_p",
      ],
      ...file.items.map((i) => [
        i.item,
        i.a,
        i.b,
        i.c,
        i.se_a,
        i.se_b,
        i.se_c,
        i.n,
        i.p_correct,
        i.infit,
        i.outfit,
        i.q1,
        i.q1_df,
        i.q1_p,
      ]),
    ]),
  );
  await Deno.writeTextFile(
    `${out}/persons.csv`,
    csvText([["person", "theta", "se"], ...file.persons.map((p) => [p.person, p.theta, p.se])]),
  );
  if (!values.responses) await Deno.writeTextFile(`${out}/responses.csv`, matrixText(data));
  await writeTable(out, "items", itemsTable(file));
  await exportFigures(out, {
    information: informationFigure(
      file.items,
      `Test information: ${model.toUpperCase()}, ${file.n_items} items`,
    ),
  }, !values["no-render"]);
  for (const warning of file.warnings ?? []) console.error(`warning: ${warning}`);
  console.log(
    `${file.model.toUpperCase()}: ${file.n_items} items, ${file.n_persons} examinees, logLik ${
      file.logLik.toFixed(3)
    }, ${file.converged ? "converged" : "NOT converged"} in ${file.iterations} cycles`,
  );
  console.log(`  outputs: ${out}/fit.json, items.csv, persons.csv, items.md, information.*`);
  return 0;
}

function catOptions(values: Values): CatOptions {
  const stopSe = number(values, "stop-se", (n) => n > 0, "a number > 0");
  const maxItems = number(values, "max-items", (n) => Number.isInteger(n) && n >= 1, "an integer >= 1");
  if (stopSe === undefined && maxItems === undefined) {
    throw new ConfigError("give a stopping rule: --stop-se S, --max-items N or both");
  }
  if (values.estimator && !["eap", "mle"].includes(values.estimator)) {
    throw new ConfigError("--estimator expects eap or mle");
  }
  return {
    stopSe,
    maxItems,
    minItems: number(values, "min-items", (n) => Number.isInteger(n) && n >= 1, "an integer >= 1"),
    randomesque: number(values, "randomesque", (n) => Number.isInteger(n) && n >= 1, "an integer >= 1"),
    estimator: values.estimator as "eap" | "mle" | undefined,
    seed: values.seed ?? "0",
  };
}

async function catCommand(values: Values): Promise<number> {
  const fit = await readFitFile(required(values, "items"));
  const out = required(values, "out");
  const options = catOptions(values);
  const pool = itemParameters(fit);
  if (!values.responses && !values.model) throw new ConfigError("give --responses FILE.csv or --model NAME");
  if (values.responses && values.model) throw new ConfigError("give --responses or --model, not both");
  await Deno.mkdir(out, { recursive: true });
  if (values.responses) {
    const data = await readResponsesCsv(values.responses);
    const persons = simulateCat(data, pool, options);
    const held = heldOutAccuracy(data, pool, persons);
    const prediction = { ...held.estimate, design_effect: held.designEffect };
    const n = held.estimate.n;
    await writeJson(`${out}/cat.json`, {
      mode: "simulated",
      options,
      held_out_prediction: prediction,
      persons,
    });
    const mean = persons.reduce((s, p) => s + p.items_used, 0) / Math.max(1, persons.length);
    console.log(`${persons.length} adaptive tests, ${mean.toFixed(1)} items on average (pool ${pool.size})`);
    if (n) {
      console.log(
        `  held-out responses predicted from the CAT θ: ${
          formatEstimate(held.estimate, true)
        } (n=${n}, 95% CI)`,
      );
    }
    if (persons.length) await exportFigures(out, { trace: catTraceFigure(persons[0]) }, !values["no-render"]);
  } else {
    const limit = number(values, "limit", (x) => Number.isInteger(x) && x >= 1, "an integer >= 1");
    const threshold = number(values, "threshold", () => true, "a number");
    const result = await adaptiveEval(
      {
        benchmark: values.benchmark ?? "climedbench",
        model: values.model!,
        baseUrl: values["base-url"],
        data: values.data,
        limit,
        out: `${out}/run`,
        resume: values.resume,
        progress: false,
      },
      pool,
      { ...options, scorer: values.scorer, threshold },
    );
    await writeJson(`${out}/cat.json`, {
      mode: "live",
      options,
      not_in_data: result.missing,
      calls: result.calls,
      persons: [result.person],
    });
    const p = result.person;
    console.log(
      `${p.person}: θ ${p.theta.toFixed(3)} (SE ${
        p.se.toFixed(3)
      }) after ${p.items_used} items (${p.stop}); ` +
        `${result.calls.sent} calls sent, ${result.calls.cached} from the run store`,
    );
    await exportFigures(out, { trace: catTraceFigure(p) }, !values["no-render"]);
  }
  console.log(`  outputs: ${out}/cat.json`);
  return 0;
}

async function subsetCommand(values: Values, positionals: string[]): Promise<number> {
  const fit = await readFitFile(required(values, "items"));
  const out = required(values, "out");
  const size = number(values, "size", (n) => Number.isInteger(n) && n >= 1, "an integer >= 1") ??
    RAPID_SUBSET_SIZE;
  const pool = itemParameters(fit);
  const { data, warnings } = await loadResponses(values, positionals);
  if (size > pool.size) {
    warnings.push(`--size ${size} is more than the ${pool.size} calibrated items: all are used`);
  }
  const subset = selectSubset(pool, size, fit.persons.map((p) => p.theta));
  const report = rapidAssessment(data, pool, subset);
  await Deno.mkdir(out, { recursive: true });
  await writeJson(`${out}/subset.json`, { ...report, warnings });
  const table: Table = rapidTable(report);
  table.notes.push(...warnings);
  await writeTable(out, "rapid_assessment", table);
  await exportFigures(out, { rapid_assessment: rapidFigure(report) }, !values["no-render"]);
  console.log(toMarkdown(table));
  console.log(`  outputs: ${out}/subset.json, rapid_assessment.md, rapid_assessment.*`);
  return 0;
}

async function mpsCommand(values: Values): Promise<number> {
  const models = (values.models ?? "").split(",").map((m) => m.trim()).filter(Boolean);
  const out = required(values, "out");
  const limit = number(values, "limit", (x) => Number.isInteger(x) && x >= 1, "an integer >= 1");
  const runs = await runParticipants(
    {
      benchmark: values.benchmark ?? "climedbench",
      baseUrl: values["base-url"],
      data: values.data,
      limit,
      resume: values.resume,
      renderFigures: !values["no-render"],
    },
    models,
    out,
  );
  const { data } = await responsesFromRuns(runs.map((r) => r.dir), { scorer: values.scorer });
  await Deno.writeTextFile(`${out}/responses.csv`, matrixText(data));
  console.log(`${data.persons.length} participants × ${data.items.length} items from ${runs.length} runs`);
  console.log(
    `  outputs: ${out}/responses.csv; calibrate with: deno task irt fit --responses ${out}/responses.csv`,
  );
  return 0;
}

/** `irt`: returns the exit code. */
export async function irtCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parse(rest);
  const unexpected = sub === "fit" || sub === "subset" ? (values.runs ? [] : positionals) : positionals;
  if (unexpected.length) {
    throw new ConfigError(`irt ${sub}: unexpected "${unexpected[0]}" (flags start with --)`);
  }
  switch (sub) {
    case "fit":
      return await fitCommand(values, positionals);
    case "cat":
      return await catCommand(values);
    case "subset":
      return await subsetCommand(values, positionals);
    case "mps":
      return await mpsCommand(values);
    default:
      throw new ConfigError(`irt: expected fit, cat, subset or mps${sub ? `, got "${sub}"` : ""}`);
  }
}
