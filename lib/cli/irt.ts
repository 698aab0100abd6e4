/**
 * `deno task irt fit | cat | subset | mps`: calibrate items (1PL/2PL/3PL) from a response CSV or collected
 * runs, run adaptive tests (simulated from known responses, or live against a model), select a
 * rapid-assessment subset and compare its ranking with the full benchmark, and build multi-agent participants.
 * Each subcommand has its own `--help`, generated from its flag table.
 * @module
 */
import { type CommandSpec, commandUsage, type FlagValues, parseCommand } from "./args.ts";
import { ConfigError } from "../core/errors.ts";
import { csvText } from "../core/csv.ts";
import type { Table } from "../core/report_spec.ts";
import { calibrate, MINIMUM_EXAMINEES } from "../irt/calibrate.ts";
import { type CatOptions, heldOutAccuracy, simulateCat } from "../irt/cat.ts";
import {
  type Acceleration,
  ACCELERATIONS,
  type CycleProgress,
  DEFAULT_MAX_CYCLES,
  DEFAULT_MAX_SECONDS,
} from "../irt/fit.ts";
import { fitFile } from "../irt/fit_file.ts";
import { responsesFromRuns } from "../irt/from_runs.ts";
import { type ItemBank, type Parameterization, PARAMETERIZATIONS, readItemBank } from "../irt/item_bank.ts";
import { NO_PRIORS } from "../irt/item_terms.ts";
import { IRT_MODELS, type IrtModel } from "../irt/model.ts";
import {
  catTraceFigure,
  informationFigure,
  itemsCsv,
  itemsTable,
  rapidFigure,
  rapidTable,
} from "../irt/report.ts";
import { readResponsesCsv, type Responses } from "../irt/responses.ts";
import { nameList } from "../irt/screen.ts";
import { RAPID_SUBSET_SIZE, rapidAssessment, selectSubset } from "../irt/subset.ts";
import { adaptiveEval } from "../pipeline/adaptive_eval.ts";
import { runParticipants } from "../pipeline/mps_runs.ts";
import { exportFigures } from "../report/figures.ts";
import { formatEstimate, writeTable } from "../report/tables.ts";

/** Overview of `deno task irt` (printed in the global usage and by `deno task irt --help`). */
export const IRT_USAGE = `  deno task irt fit     calibrate 1PL/2PL/3PL items from a response CSV or runs
  deno task irt cat     adaptive test over an item bank: simulated from known responses, or live against a model
  deno task irt subset  rapid-assessment subset of an item bank, its ranking compared with the full benchmark
  deno task irt mps     multi-agent participants: every model alone and with every other as debater
      (deno task irt <fit|cat|subset|mps> --help explains each option)`;

const RESPONSES = {
  help: "response CSV: wide (person?,ITEM...,freq? with 1/0/empty) or long (three columns: examinee, item, " +
    "response; the response column may be named response, resp, score, correct or value)",
  value: "FILE.csv",
} as const;
const RUNS = {
  help: "run directories to read responses from (each run's model and condition is one examinee); " +
    "`--runs A B C` takes the directories after it",
  value: "DIR",
  multiple: true,
} as const;
const SCORER = {
  help: "scorer whose value is the response (default: the runs' only scorer)",
  value: "NAME",
} as const;
const THRESHOLD = {
  help: "graded scores at or above T count as right (required for graded scores; choice items are 1/0)",
  value: "T",
} as const;
const CONDITION = {
  help: "only this condition of the runs (default: every condition, each its own examinee, e.g. `A → B` " +
    "for an MPS pair)",
  value: "NAME",
} as const;
const NO_RENDER = { help: "write figures as HTML only (no Chromium for SVG/PNG/PDF)" } as const;
const BANK = {
  help: 'item bank: a fit.json, JSON with items only ({"items":[{"item":"Q1","a":1.2,"b":0.3,"c":0.2}]} ' +
    "or a bare array), or CSV item,a,b,c (item,a,d,g with --parameterization slope-intercept), e.g. from mirt",
  value: "FILE",
} as const;
const PARAMETERIZATION = {
  help:
    "how the bank states its items: irt (a, b, c; default) or slope-intercept (a, d, g with z = aθ + d, " +
    "as mirt reports by default; b = −d/a)",
  value: "FORM",
} as const;
const BENCHMARK = { help: "benchmark of the runs (default climedbench)", value: "NAME" } as const;
const BASE_URL = { help: "model server (default $OPENAI_BASE_URL)", value: "URL" } as const;
const DATA = { help: "data file (default: the benchmark's shipped sample)", value: "FILE" } as const;
const LIMIT = { help: "at most N samples of the data (in file order)", value: "N" } as const;
const RESUME = {
  help: "continue the stored runs in --out (calls already answered are not sent again)",
} as const;

const FIT_SPEC = {
  command: "deno task irt fit",
  description: "Calibrates 1PL, 2PL or 3PL items by marginal maximum likelihood (Bock–Aitkin EM) from a " +
    "response CSV or from run directories. Items answered all right or all wrong, or by fewer than 2 examinees, " +
    "have no finite estimate and are left out (named in the warnings, fit.json and items.csv); examinees who got " +
    "every item right or wrong stay in (their abilities are bounded by the N(0, 1) population distribution) and " +
    "are named; estimates whose standard error is beyond a sane bound are flagged. On a terminal the EM shows " +
    "its progress.",
  positionals: "",
  flags: {
    responses: RESPONSES,
    runs: RUNS,
    model: { help: "1pl (one common slope), 2pl or 3pl (with guessing)", value: "MODEL" },
    out: {
      help: "output directory (fit.json, items.csv, persons.csv, item_parameters.*, information.*)",
      value: "DIR",
    },
    scorer: SCORER,
    threshold: THRESHOLD,
    condition: CONDITION,
    "no-priors": {
      help: "no priors on a and c (3PL has weak ones by default: log a ~ N(0, 0.5²), c ~ Beta(5, 17))",
    },
    fallback: {
      help:
        "with too few examinees for the model (about 100 / 500 / 1,000 for 1PL / 2PL / 3PL), fit the most " +
        "complex one they support instead of only warning",
    },
    nodes: {
      help: "quadrature nodes over [−6, 6] for the ability integral, 61..401 (default 61, a 0.2 step; more " +
        "nodes are slower and change estimates only in late decimals)",
      value: "N",
    },
    ability: {
      help: "examinee ability estimator: eap (posterior mean, default) or map (posterior mode)",
      value: "eap|map",
    },
    "max-cycles": {
      help: `stop the EM after N cycles (default ${DEFAULT_MAX_CYCLES}); the fit says so`,
      value: "N",
    },
    "max-seconds": {
      help: `stop the EM after S seconds of wall time (default ${DEFAULT_MAX_SECONDS}); the fit says so`,
      value: "S",
    },
    accel: {
      help:
        "EM acceleration: squarem (default; the log posterior never falls) or none (plain EM); both reach " +
        "the same optimum",
      value: "squarem|none",
    },
    "no-render": NO_RENDER,
  },
  notes: [
    "examples:",
    "  deno task irt fit --responses responses.csv --model 2pl --out irt/fit",
    "  deno task irt fit --runs runs/mps/*/ --model 1pl --out irt/fit",
  ],
} satisfies CommandSpec;

const CAT_SPEC = {
  command: "deno task irt cat",
  description: "Computerized adaptive testing over a calibrated item bank: after each response θ is " +
    "re-estimated and the next item is the most informative at it. Simulated from known responses " +
    "(--responses: one test per examinee, with how well the CAT θ predicts the responses it did not ask) or live " +
    "against a model (--model: only the selected items are sent; the run is stored and --resume replays it).",
  flags: {
    items: BANK,
    parameterization: PARAMETERIZATION,
    responses: { ...RESPONSES, help: `simulate tests from these known responses; ${RESPONSES.help}` },
    model: { help: "test this model live (a served model name)", value: "NAME" },
    benchmark: BENCHMARK,
    "base-url": BASE_URL,
    data: DATA,
    limit: LIMIT,
    scorer: {
      help: "scorer whose value is the response (default: the benchmark's only scorer)",
      value: "NAME",
    },
    threshold: { help: "a live score at or above T counts as right (default: only 1 is right)", value: "T" },
    resume: { help: "continue (replay) the stored live test in --out" },
    "stop-se": { help: "stop once the ability's standard error is at or below S", value: "S" },
    "max-items": { help: "stop after N items (give --stop-se, --max-items or both)", value: "N" },
    "min-items": { help: "never stop before N items, whatever the standard error (default 1)", value: "N" },
    randomesque: {
      help:
        "exposure control: pick the next item at random among the K most informative (default 1: always " +
        "the most informative)",
      value: "K",
    },
    estimator: {
      help: "eap (default) or mle (maximum likelihood once a right and a wrong answer are seen)",
      value: "eap|mle",
    },
    seed: { help: "seed of the randomesque draws (default 0)", value: "S" },
    out: { help: "output directory (cat.json, trace figure; the live run store under run/)", value: "DIR" },
    "no-render": NO_RENDER,
  },
  notes: [
    "examples:",
    "  deno task irt cat --items irt/fit/fit.json --responses responses.csv --stop-se 0.3 --max-items 40 --out irt/cat",
    "  deno task irt cat --items mirt_items.csv --parameterization slope-intercept --model qwen2.5-7b \\",
    "    --base-url http://localhost:8000/v1 --max-items 30 --out irt/cat_qwen",
  ],
} satisfies CommandSpec;

const SUBSET_SPEC = {
  command: "deno task irt subset",
  description:
    "Rapid assessment (CliMedBench §7): chooses a fixed subset of the bank's items that carries the " +
    "most information across the examinees' abilities, estimates each examinee's θ from the subset alone and " +
    "compares the ranking with the full benchmark's (Kendall τ-b and Spearman ρ with 95% CIs). Prints a summary; " +
    "the per-examinee table is written to --out.",
  flags: {
    items: BANK,
    parameterization: PARAMETERIZATION,
    size: { help: `items in the subset (default ${RAPID_SUBSET_SIZE}, the paper's)`, value: "N" },
    responses: RESPONSES,
    runs: RUNS,
    scorer: SCORER,
    threshold: THRESHOLD,
    condition: CONDITION,
    out: { help: "output directory (subset.json, rapid_assessment.{md,csv,tex} and figure)", value: "DIR" },
    "no-render": NO_RENDER,
  },
} satisfies CommandSpec;

const MPS_SPEC = {
  command: "deno task irt mps",
  description:
    "Multi-agent participant synthesis (CliMedBench §7, Algorithm 1): one run per model, in which " +
    "every other model debates (generation → debate → reflection); each model alone and each ordered pair is " +
    "one participant. Writes the runs and their responses.csv for `irt fit`.",
  flags: {
    models: { help: "the models, comma-separated (at least two)", value: "A,B,..." },
    benchmark: BENCHMARK,
    "base-url": BASE_URL,
    data: DATA,
    limit: LIMIT,
    scorer: SCORER,
    threshold: {
      help: "graded scores at or above T count as right; without it, items with graded scores (sequencing, " +
        "open answers) are left out of responses.csv, with a warning",
      value: "T",
    },
    resume: RESUME,
    out: { help: "output directory (one run per model, responses.csv)", value: "DIR" },
    "no-render": NO_RENDER,
  },
} satisfies CommandSpec;

/** The `--help` page of `irt SUB` (the overview without a known SUB). */
export function irtUsage(sub?: string): string {
  const spec = SPECS[sub as keyof typeof SPECS];
  return spec ? commandUsage(spec) : `usage:\n${IRT_USAGE}`;
}

const SPECS = { fit: FIT_SPEC, cat: CAT_SPEC, subset: SUBSET_SPEC, mps: MPS_SPEC };

type FitValues = FlagValues<typeof FIT_SPEC.flags>;
type CatValues = FlagValues<typeof CAT_SPEC.flags>;
type SubsetValues = FlagValues<typeof SUBSET_SPEC.flags>;
type MpsValues = FlagValues<typeof MPS_SPEC.flags>;

function number(
  flag: string,
  raw: string | undefined,
  check: (n: number) => boolean,
  want: string,
): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n) || !check(n)) {
    throw new ConfigError(`--${flag} expects ${want}, got "${raw}"`);
  }
  return n;
}

const integer = (min: number) => (n: number) => Number.isInteger(n) && n >= min;

function required(value: string | undefined, flag: string, command: string): string {
  if (!value) throw new ConfigError(`--${flag} is required (deno task irt ${command} --help)`);
  return value;
}

/** The run directories: `--runs A --runs B` or `--runs A B C` (the rest as positionals). */
function runDirs(runs: string[] | undefined, positionals: string[]): string[] {
  return runs ? [...runs, ...positionals] : [];
}

/**
 * Responses from `--responses` or `--runs`, with where they came from and `read`, the line saying how they were
 * read (printed on stderr once the command has succeeded, so that a mistake stays one line).
 */
async function loadResponses(
  values: { responses?: string; scorer?: string; threshold?: string; condition?: string },
  dirs: string[],
) {
  if (values.responses && dirs.length) throw new ConfigError("give --responses or --runs, not both");
  const threshold = number("threshold", values.threshold, () => true, "a number");
  if (values.responses) {
    const data = await readResponsesCsv(values.responses);
    return {
      data,
      source: { responses: values.responses },
      name: values.responses,
      read: `read ${values.responses} as ${data.layout}: ${data.persons.length} examinee rows × ` +
        `${data.items.length} items`,
      warnings: [] as string[],
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
    name: dirs.join(", "),
    read:
      `read ${dirs.length} run(s): ${read.data.persons.length} examinees × ${read.data.items.length} items`,
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

/**
 * The EM's progress reporter for a terminal: one line, rewritten at most four times a second, with the cycle,
 * the log-likelihood and its change. `undefined` (nothing shown) when `terminal` is false, e.g. in CI or a pipe.
 */
export function fitProgress(
  terminal: boolean,
  write: (text: string) => void,
  now: () => number = () => performance.now(),
): { onCycle: (p: CycleProgress) => void; done: () => void } | undefined {
  if (!terminal) return undefined;
  let last = -Infinity;
  let shown = false;
  return {
    onCycle(p) {
      const time = now();
      if (time - last < 250) return;
      last = time;
      shown = true;
      const change = Number.isFinite(p.logLikChange) ? p.logLikChange.toExponential(2) : "–";
      write(
        `\r\x1b[K  EM cycle ${p.cycle}: logLik ${p.logLik.toFixed(3)} (change ${change}), ` +
          `largest parameter change ${p.parameterChange.toExponential(2)}, ${p.seconds.toFixed(0)} s`,
      );
    },
    done() {
      if (shown) write("\r\x1b[K");
    },
  };
}

function stderrIsTerminal(): boolean {
  return Deno.stderr.isTerminal() && !Deno.env.get("CI");
}

async function fitCommand(values: FitValues, positionals: string[]): Promise<number> {
  const model = values.model as IrtModel;
  if (!IRT_MODELS.includes(model)) throw new ConfigError(`--model expects one of ${IRT_MODELS.join(", ")}`);
  const out = required(values.out, "out", "fit");
  if (values.ability && !["eap", "map"].includes(values.ability)) {
    throw new ConfigError("--ability expects eap or map");
  }
  const nodes = number("nodes", values.nodes, (n) => integer(61)(n) && n <= 401, "an integer 61..401");
  const maxIterations = number("max-cycles", values["max-cycles"], integer(1), "an integer >= 1");
  const maxSeconds = number("max-seconds", values["max-seconds"], (n) => n > 0, "a number of seconds > 0");
  const accel = values.accel;
  if (accel !== undefined && !ACCELERATIONS.includes(accel as Acceleration)) {
    throw new ConfigError(`--accel expects ${ACCELERATIONS.join(" or ")}, got "${accel}"`);
  }
  const { data, source, name, read, warnings } = await loadResponses(
    values,
    runDirs(values.runs, positionals),
  );
  const encoder = new TextEncoder();
  const progress = fitProgress(stderrIsTerminal(), (text) => Deno.stderr.writeSync(encoder.encode(text)));
  let calibration;
  try {
    calibration = calibrate(data, {
      model,
      nodes,
      fallback: values.fallback,
      priors: values["no-priors"] ? NO_PRIORS : undefined,
      ability: values.ability as "eap" | "map" | undefined,
      maxIterations,
      maxSeconds,
      acceleration: accel as Acceleration | undefined,
      onCycle: progress?.onCycle,
      source: name,
    });
  } finally {
    progress?.done();
  }
  calibration.warnings.unshift(...warnings);
  const file = fitFile(calibration, source);
  await Deno.mkdir(out, { recursive: true });
  await writeJson(`${out}/fit.json`, file);
  await Deno.writeTextFile(`${out}/items.csv`, itemsCsv(file));
  await Deno.writeTextFile(
    `${out}/persons.csv`,
    csvText([
      ["person", "theta", "se", "flag"],
      ...file.persons.map((p) => [
        p.person,
        p.theta,
        p.se,
        p.extreme ? `every calibrated item ${String(p.extreme).slice(4)}: prior-bound` : null,
      ]),
    ]),
  );
  if (!values.responses) await Deno.writeTextFile(`${out}/responses.csv`, matrixText(data));
  await writeTable(out, "item_parameters", itemsTable(file));
  await exportFigures(out, {
    information: informationFigure(
      file.items,
      `Test information: ${model.toUpperCase()}, ${file.n_items} items`,
    ),
  }, !values["no-render"]);
  console.error(read);
  for (const warning of file.warnings ?? []) console.error(`warning: ${warning}`);
  const stopped = file.converged
    ? `converged in ${file.iterations} cycles`
    : `NOT converged: stopped by ${
      file.stopped_by === "max-seconds" ? "the time cap" : "the cycle cap"
    } after ` +
      `${file.iterations} cycles`;
  console.log(
    `${file.model.toUpperCase()}: ${file.n_items} items, ${file.n_persons} examinees, logLik ${
      file.logLik.toFixed(3)
    }, ${stopped}`,
  );
  const flagged = file.items.filter((it) => it.flag).length;
  const left = file.excluded_items?.length ?? 0;
  if (flagged || left) {
    console.log(`  ${left} item(s) left out, ${flagged} flagged: see the flag column of items.csv`);
  }
  console.log(
    `  outputs: ${out}/fit.json, items.csv (numbers), persons.csv, item_parameters.{md,csv,tex}, information.*`,
  );
  return 0;
}

/** Reads `--items` as an item bank (`bank.format` says what was read). */
async function loadBank(
  values: { items?: string; parameterization?: string },
  command: string,
): Promise<ItemBank> {
  const path = required(values.items, "items", command);
  const form = values.parameterization;
  if (form !== undefined && !PARAMETERIZATIONS.includes(form as Parameterization)) {
    throw new ConfigError(`--parameterization expects ${PARAMETERIZATIONS.join(" or ")}, got "${form}"`);
  }
  return await readItemBank(path, form as Parameterization | undefined);
}

/** Says on stderr how the bank and the responses were read, with the bank's warnings. */
function sayRead(path: string, bank: ItemBank, read: string): void {
  console.error(`read ${path} as an item bank: ${bank.format}`);
  for (const warning of bank.warnings) console.error(`warning: ${warning}`);
  console.error(read);
}

/** Refuses responses that share no item with the bank, naming a few of each side's items. */
function requireSharedItems(
  bank: ItemBank,
  data: Responses,
  itemsFlag: string,
  responsesName: string,
): string[] {
  const shared = data.items.filter((id) => bank.items.has(id));
  if (shared.length === 0) {
    throw new ConfigError(
      `--items ${itemsFlag} and the responses (${responsesName}) share no item: the bank has ` +
        `${nameList([...bank.items.keys()], 3)} (${bank.items.size} items), the responses have ` +
        `${nameList(data.items, 3)} (${data.items.length} items)`,
    );
  }
  return shared;
}

function catOptions(values: CatValues): CatOptions {
  const stopSe = number("stop-se", values["stop-se"], (n) => n > 0, "a number > 0");
  const maxItems = number("max-items", values["max-items"], integer(1), "an integer >= 1");
  if (stopSe === undefined && maxItems === undefined) {
    throw new ConfigError("give a stopping rule: --stop-se S, --max-items N or both");
  }
  if (values.estimator && !["eap", "mle"].includes(values.estimator)) {
    throw new ConfigError("--estimator expects eap or mle");
  }
  return {
    stopSe,
    maxItems,
    minItems: number("min-items", values["min-items"], integer(1), "an integer >= 1"),
    randomesque: number("randomesque", values.randomesque, integer(1), "an integer >= 1"),
    estimator: values.estimator as "eap" | "mle" | undefined,
    seed: values.seed ?? "0",
  };
}

async function catCommand(values: CatValues): Promise<number> {
  const out = required(values.out, "out", "cat");
  const options = catOptions(values);
  if (!values.responses && !values.model) throw new ConfigError("give --responses FILE.csv or --model NAME");
  if (values.responses && values.model) throw new ConfigError("give --responses or --model, not both");
  const bank = await loadBank(values, "cat");
  const pool = bank.items;
  if (values.responses) {
    const { data, read } = await loadResponses({ responses: values.responses }, []);
    requireSharedItems(bank, data, values.items!, values.responses);
    sayRead(values.items!, bank, read);
    const persons = simulateCat(data, pool, options);
    const held = heldOutAccuracy(data, pool, persons);
    const prediction = { ...held.estimate, design_effect: held.designEffect };
    const n = held.estimate.n;
    await Deno.mkdir(out, { recursive: true });
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
    const limit = number("limit", values.limit, integer(1), "an integer >= 1");
    const threshold = number("threshold", values.threshold, () => true, "a number");
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
    console.error(`read ${values.items} as an item bank: ${bank.format}`);
    for (const warning of bank.warnings) console.error(`warning: ${warning}`);
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

async function subsetCommand(values: SubsetValues, positionals: string[]): Promise<number> {
  const out = required(values.out, "out", "subset");
  const size = number("size", values.size, integer(1), "an integer >= 1") ?? RAPID_SUBSET_SIZE;
  const bank = await loadBank(values, "subset");
  const { data, name, read, warnings } = await loadResponses(values, runDirs(values.runs, positionals));
  const shared = requireSharedItems(bank, data, values.items!, name);
  sayRead(values.items!, bank, read);
  // Only items the responses hold can be compared with the full benchmark.
  const pool = new Map(shared.map((id) => [id, bank.items.get(id)!]));
  if (pool.size < bank.items.size) {
    warnings.push(
      `${bank.items.size - pool.size} of the bank's ${bank.items.size} items are not in the responses: ` +
        "the subset is chosen among the other " + pool.size,
    );
  }
  if (size > pool.size) {
    warnings.push(`--size ${size} is more than the ${pool.size} usable items: all are used`);
  }
  const subset = selectSubset(pool, size, bank.thetas);
  const report = rapidAssessment(data, pool, subset);
  await Deno.mkdir(out, { recursive: true });
  await writeJson(`${out}/subset.json`, { ...report, warnings });
  const table: Table = rapidTable(report);
  table.notes.push(...warnings);
  await writeTable(out, "rapid_assessment", table);
  await exportFigures(out, { rapid_assessment: rapidFigure(report) }, !values["no-render"]);
  for (const warning of warnings) console.error(`warning: ${warning}`);
  const answered = report.persons.reduce((s, p) => s + (p.subset.n ?? 0), 0) /
    Math.max(1, report.persons.length);
  console.log(
    `rapid assessment: ${report.size} of ${pool.size} calibrated items; ${report.persons.length} examinees, ` +
      `${answered.toFixed(1)} subset items answered on average (full benchmark: ${report.fullItems} items)`,
  );
  console.log(
    `  rank agreement with the full benchmark: Kendall τ-b ${formatEstimate(report.kendall, false, 3)}, ` +
      `Spearman ρ ${formatEstimate(report.spearman, false, 3)} (95% CIs)`,
  );
  console.log(
    `  outputs: ${out}/rapid_assessment.{md,csv,tex} (every examinee), subset.json, rapid_assessment figure`,
  );
  return 0;
}

/** The model an `irt fit` of this many examinees should start with (the most complex they support). */
function suggestedModel(examinees: number): IrtModel {
  return [...IRT_MODELS].reverse().find((m) => examinees >= MINIMUM_EXAMINEES[m]) ?? "1pl";
}

async function mpsCommand(values: MpsValues): Promise<number> {
  const models = (values.models ?? "").split(",").map((m) => m.trim()).filter(Boolean);
  const out = required(values.out, "out", "mps");
  const limit = number("limit", values.limit, integer(1), "an integer >= 1");
  const threshold = number("threshold", values.threshold, () => true, "a number");
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
  const { data, warnings } = await responsesFromRuns(runs.map((r) => r.dir), {
    scorer: values.scorer,
    threshold,
    graded: "leave-out",
  });
  await Deno.writeTextFile(`${out}/responses.csv`, matrixText(data));
  for (const warning of warnings) console.error(`warning: ${warning}`);
  console.log(`${data.persons.length} participants × ${data.items.length} items from ${runs.length} runs`);
  if (data.items.length === 0) {
    throw new ConfigError(
      `no item has right/wrong responses (${out}/responses.csv is empty): rerun with --threshold T --resume`,
    );
  }
  console.log(`  outputs: ${out}/responses.csv and one run per model under ${out}/`);
  console.log(
    `  calibrate with: deno task irt fit --responses ${out}/responses.csv --model ${
      suggestedModel(data.persons.length)
    } --out ${out}/fit`,
  );
  return 0;
}

/** `irt`: returns the exit code. */
export async function irtCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
    console.log(irtUsage());
    return 0;
  }
  if (!Object.hasOwn(SPECS, sub)) {
    throw new ConfigError(`irt: expected fit, cat, subset or mps, got "${sub}" (deno task irt --help)`);
  }
  const spec = SPECS[sub as keyof typeof SPECS];
  const parsed = parseCommand(spec as CommandSpec, rest);
  if (parsed.help) {
    console.log(irtUsage(sub));
    return 0;
  }
  const { positionals } = parsed;
  const runs = (parsed.values as { runs?: string[] }).runs;
  const unexpected = (sub === "fit" || sub === "subset") && runs ? [] : positionals;
  if (unexpected.length) {
    throw new ConfigError(`irt ${sub}: unexpected "${unexpected[0]}" (flags start with --)`);
  }
  switch (sub) {
    case "fit":
      return await fitCommand(parsed.values as FitValues, positionals);
    case "cat":
      return await catCommand(parsed.values as CatValues);
    case "subset":
      return await subsetCommand(parsed.values as SubsetValues, positionals);
    default:
      return await mpsCommand(parsed.values as MpsValues);
  }
}
