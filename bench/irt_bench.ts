/**
 * IRT benchmarks (part of `deno task bench`; also `deno run -A bench/irt_bench.ts`). Measures issue 28's IRT
 * goals and prints each beside its goal and the value before the EM was accelerated, writing them to
 * `reports/bench/irt.json`:
 *
 * - a converged 3PL (default priors) at the paper's shape, 16 examinees × 33,735 items (CliMedBench's size):
 *   `irt fit` as a whole command on a generated response file, and `calibrate` in process, ≤ 30 s;
 * - a converged 3PL at 2,000 × 100, as a whole command ≤ 1.5 s and in process;
 * - calibrations of the degenerate data of `tests/irt_degenerate_test.ts` (3 × 200 in each model, an item with
 *   one response, items all right or all wrong, LSAT7 plus an item everyone got right), each ≤ 2 s.
 *
 * Beside each: EM cycles and E-steps, and whether the fit converged. The machine's load average is recorded
 * too (the timings are wall-clock). IRT_BENCH_REPEATS (default 3) sets how many times the small cases run (the
 * median is reported; the paper's shape runs once). `deno bench` also times one CAT step over a 33,735-item pool.
 * @module
 */
import { loadavg } from "node:os";
import { calibrate, type Calibration } from "../lib/irt/calibrate.ts";
import { CatSession } from "../lib/irt/cat.ts";
import type { IrtModel } from "../lib/irt/model.ts";
import { readResponsesCsv, type Responses } from "../lib/irt/responses.ts";
import { simulateAbilities, simulateItems, simulateResponses } from "../lib/irt/simulate.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const SHARED_LSAT7 = new URL("../../shared/data/irt/LSAT7.csv", import.meta.url).pathname;
const REPEATS = Number(Deno.env.get("IRT_BENCH_REPEATS") ?? 3);

/**
 * Seconds before the acceleration (commit fd6c835: plain EM, Fisher-scoring M-steps), on the project's 2-core
 * machine: the issue's 6.1 s whole command and, for the rest, the same cases run there. `null`: it did not
 * converge within the time noted.
 */
const PREVIOUS: Record<string, { seconds: number | null; cycles?: number; note?: string }> = {
  "3PL 16 × 33,735, whole command": {
    seconds: null,
    note: "not converged within 120 s (0.75–0.9 s per cycle)",
  },
  "3PL 16 × 33,735, in process": { seconds: null, note: "not converged within 120 s (0.75–1 s per cycle)" },
  "3PL 2,000 × 100, whole command": { seconds: 6.1, cycles: 115 },
  "3PL 2,000 × 100, in process": { seconds: 4.8, cycles: 115 },
  "degenerate: 3 × 200, 1PL": { seconds: 1.05, cycles: 181 },
  "degenerate: 3 × 200, 2PL": { seconds: 0.14, cycles: 15 },
  "degenerate: 3 × 200, 3PL": {
    seconds: 1.62,
    cycles: 500,
    note: "stopped at the 500-cycle cap, not converged",
  },
  "degenerate: 301 × 7 with a one-response item, 2PL": { seconds: 0.05, cycles: 46 },
  "degenerate: 800 × 10 with an all-right and an all-wrong item, 2PL": { seconds: 0.2, cycles: 44 },
  "degenerate: LSAT7 plus an all-right item, 2PL": { seconds: 0.02, cycles: 76 },
};

/** One measured case beside its goal and its previous value. */
interface Measure {
  name: string;
  seconds: number;
  goal_seconds: number;
  met: boolean;
  previous_seconds: number | null;
  previous_cycles?: number;
  previous_note?: string;
  converged: boolean;
  cycles: number;
  e_steps?: number;
  /** Seconds of the EM and standard errors alone (from the fit). */
  fit_seconds?: number;
  runs?: number[];
}

function round(x: number, digits = 3): number {
  return Math.round(x * 10 ** digits) / 10 ** digits;
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function measure(
  name: string,
  goal: number,
  runs: number[],
  fit: { converged: boolean; cycles: number; eSteps?: number; fitSeconds?: number },
): Measure {
  const seconds = round(median(runs));
  const previous = PREVIOUS[name] ?? { seconds: null };
  return {
    name,
    seconds,
    goal_seconds: goal,
    met: fit.converged && seconds <= goal,
    previous_seconds: previous.seconds,
    ...(previous.cycles === undefined ? {} : { previous_cycles: previous.cycles }),
    ...(previous.note ? { previous_note: previous.note } : {}),
    converged: fit.converged,
    cycles: fit.cycles,
    ...(fit.eSteps === undefined ? {} : { e_steps: fit.eSteps }),
    ...(fit.fitSeconds === undefined ? {} : { fit_seconds: round(fit.fitSeconds) }),
    runs: runs.map((x) => round(x)),
  };
}

/** Responses as a wide CSV (`person,ITEM...` with 1, 0 or empty), the layout `irt fit --responses` reads. */
function wideCsv(data: Responses): string {
  const lines = [["person", ...data.items].join(",")];
  for (const [p, row] of data.values.entries()) {
    lines.push([data.persons[p], ...row.map((v) => v ?? "")].join(","));
  }
  return lines.join("\n") + "\n";
}

/** Calibrates in process `repeats` times; the runs' seconds and the last calibration. */
function inProcess(data: Responses, model: IrtModel, repeats: number): { runs: number[]; last: Calibration } {
  const runs: number[] = [];
  let last: Calibration | undefined;
  for (let r = 0; r < repeats; r++) {
    const started = performance.now();
    last = calibrate(data, { model });
    runs.push((performance.now() - started) / 1000);
  }
  return { runs, last: last! };
}

/** Runs `irt fit` as its own process (spawn to exit) `repeats` times; the runs' seconds and the last fit.json. */
async function wholeCommand(csv: string, model: IrtModel, dir: string, repeats: number) {
  const runs: number[] = [];
  let file: { converged: boolean; iterations: number; e_steps?: number; seconds?: number } | undefined;
  for (let r = 0; r < repeats; r++) {
    const out = `${dir}/out${r}`;
    const args = ["run", "-A", `${ROOT}lib/cli/main.ts`, "irt", "fit", "--responses", csv, "--model", model];
    const started = performance.now();
    const result = await new Deno.Command(Deno.execPath(), {
      args: [...args, "--out", out, "--no-render"],
      cwd: ROOT,
      stdout: "null",
      stderr: "piped",
    }).output();
    runs.push((performance.now() - started) / 1000);
    if (!result.success) throw new Error(`irt fit failed: ${new TextDecoder().decode(result.stderr)}`);
    file = JSON.parse(await Deno.readTextFile(`${out}/fit.json`));
  }
  return { runs, file: file! };
}

/** Measures every case; returns the report. */
async function measureAll(): Promise<Record<string, unknown>> {
  const dir = await Deno.makeTempDir({ prefix: "medeval-irt-bench-" });
  const measures: Measure[] = [];
  const record = (m: Measure) => {
    measures.push(m);
    console.log(line(m));
  };
  try {
    const wide = simulateResponses(
      simulateItems(33_735, "3pl", "bench-wide"),
      simulateAbilities(16, "bench-wide"),
      "bench-wide",
    );
    const tall = simulateResponses(
      simulateItems(100, "3pl", "bench-tall"),
      simulateAbilities(2000, "bench-tall"),
      "bench-tall",
    );
    for (
      const [shape, data, goal, repeats] of [
        ["16 × 33,735", wide, 30, 1],
        ["2,000 × 100", tall, 1.5, REPEATS],
      ] as const
    ) {
      const csv = `${dir}/${shape.replace(/\W+/g, "_")}.csv`;
      await Deno.writeTextFile(csv, wideCsv(data));
      const command = await wholeCommand(csv, "3pl", `${dir}/${shape.replace(/\W+/g, "_")}`, repeats);
      record(measure(`3PL ${shape}, whole command`, goal, command.runs, {
        converged: command.file.converged,
        cycles: command.file.iterations,
        eSteps: command.file.e_steps,
        fitSeconds: command.file.seconds,
      }));
      const run = inProcess(data, "3pl", repeats);
      record(measure(`3PL ${shape}, in process`, goal, run.runs, {
        converged: run.last.fit.converged,
        cycles: run.last.fit.iterations,
        eSteps: run.last.fit.eSteps,
        fitSeconds: run.last.fit.seconds,
      }));
    }
    for (const [name, data, model] of degenerateCases()) {
      const run = inProcess(data, model, REPEATS);
      record(measure(`degenerate: ${name}`, 2, run.runs, {
        converged: run.last.fit.converged,
        cycles: run.last.fit.iterations,
        eSteps: run.last.fit.eSteps,
        fitSeconds: run.last.fit.seconds,
      }));
    }
    try {
      const lsat = await readResponsesCsv(SHARED_LSAT7);
      const run = inProcess(withColumns(lsat, { Easy: 1 }), "2pl", REPEATS);
      record(measure("degenerate: LSAT7 plus an all-right item, 2PL", 2, run.runs, {
        converged: run.last.fit.converged,
        cycles: run.last.fit.iterations,
        eSteps: run.last.fit.eSteps,
        fitSeconds: run.last.fit.seconds,
      }));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      console.log(`(LSAT7 case skipped: ${SHARED_LSAT7} is not beside this clone)`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return {
    generated: new Date().toISOString(),
    deno: Deno.version.deno,
    load_average: loadavg().map((x) => round(x, 2)),
    note: "seconds are wall-clock: whole commands from spawn to exit (`irt fit --no-render`), in-process " +
      "`calibrate` (screening, EM, standard errors, abilities, item fit); previous values are plain EM at " +
      "commit fd6c835 on the same machine",
    measures,
  };
}

/** Adds columns to response data: `name` → that value for every examinee. */
function withColumns(data: Responses, columns: Record<string, 0 | 1>): Responses {
  return {
    ...data,
    items: [...data.items, ...Object.keys(columns)],
    values: data.values.map((row) => [...row, ...Object.values(columns)]),
  };
}

/** The degenerate data of tests/irt_degenerate_test.ts, built the same way. */
function degenerateCases(): [string, Responses, IrtModel][] {
  const three = simulateResponses(simulateItems(200, "2pl", "three"), [-1, 0, 1], "three");
  const base = simulateResponses(
    simulateItems(6, "2pl", "sparse"),
    simulateAbilities(300, "sparse"),
    "sparse",
  );
  const sparse: Responses = {
    persons: [...base.persons, "only-rare"],
    items: [...base.items, "rare"],
    values: [...base.values.map((row) => [...row, null]), [...base.items.map(() => null), 1]],
    weights: [...base.weights, 1],
  };
  const edge = simulateResponses(simulateItems(8, "2pl", "edge"), simulateAbilities(800, "edge"), "edge");
  return [
    ["3 × 200, 1PL", three, "1pl"],
    ["3 × 200, 2PL", three, "2pl"],
    ["3 × 200, 3PL", three, "3pl"],
    ["301 × 7 with a one-response item, 2PL", sparse, "2pl"],
    [
      "800 × 10 with an all-right and an all-wrong item, 2PL",
      withColumns(edge, { always: 1, never: 0 }),
      "2pl",
    ],
  ];
}

/** One printed line: the case, now, goal, before, cycles. */
function line(m: Measure): string {
  const before = m.previous_seconds === null ? (m.previous_note ?? "–") : `${m.previous_seconds} s` +
    (m.previous_cycles ? ` (${m.previous_cycles} cycles)` : "") +
    (m.previous_note ? `, ${m.previous_note}` : "");
  const cycles = `${m.cycles} cycles${m.e_steps === undefined ? "" : ` / ${m.e_steps} E-steps`}`;
  return `${m.met ? "met " : "MISS"} ${m.name}: ${m.seconds} s (goal ≤ ${m.goal_seconds} s; ${cycles}` +
    `${m.converged ? "" : ", NOT converged"}) — before: ${before}`;
}

const report = await measureAll();
await Deno.mkdir(`${ROOT}reports/bench`, { recursive: true });
await Deno.writeTextFile(`${ROOT}reports/bench/irt.json`, JSON.stringify(report, null, 2) + "\n");
console.log("written: reports/bench/irt.json");

const POOL = new Map(
  simulateItems(33_735, "3pl", "bench-wide").map((item, i) => [`item${i}`, item]),
);
const session = new CatSession(POOL, { maxItems: 100_000 }, "bench");
let step = 0;
Deno.bench("one CAT step over a 33,735-item pool (record a response, choose the next item)", () => {
  const item = session.next()!;
  session.record(item, (step++ % 2) as 0 | 1);
});
