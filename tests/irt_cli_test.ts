/**
 * `deno task irt` as a user meets it: each subcommand's own help, one-line mistakes, the layout a response CSV
 * was read as, numeric `items.csv`, banks that share no item with the responses, and the subset's summary.
 * @module
 */
import { assert, assertEquals, assertRejects, assertThrows } from "@std/assert";
import { ConfigError, InputError } from "../lib/core/errors.ts";
import { parseCsv } from "../lib/core/csv.ts";
import { irtCommand, irtUsage } from "../lib/cli/irt.ts";
import { parseResponsesCsv, type Responses } from "../lib/irt/responses.ts";
import { simulateAbilities, simulateItems, simulateResponses } from "../lib/irt/simulate.ts";
import { runCli } from "./run_cli.ts";

function wideCsv(data: Responses): string {
  return [
    ["person", ...data.items].join(","),
    ...data.persons.map((p, i) => [p, ...data.values[i]].join(",")),
  ]
    .join("\n") + "\n";
}

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "medeval-irt-cli-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs `irtCommand` and returns what it printed with console.log. */
async function printed(args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...parts: unknown[]) => lines.push(parts.join(" "));
  try {
    const code = await irtCommand(args);
    return { code, text: lines.join("\n") };
  } finally {
    console.log = log;
  }
}

/** The help line of `--flag` in a help page (its first line). */
function flagLine(help: string, flag: string): string {
  return help.split("\n").find((l) => l.trimStart().startsWith(`--${flag} `) || l.trim() === `--${flag}`) ??
    "";
}

Deno.test("help: each irt subcommand prints its own page explaining every flag it accepts", async () => {
  const flags: Record<string, string[]> = {
    fit: [
      "responses",
      "runs",
      "model",
      "out",
      "scorer",
      "threshold",
      "condition",
      "no-priors",
      "fallback",
      "nodes",
    ],
    cat: [
      "items",
      "parameterization",
      "responses",
      "model",
      "stop-se",
      "max-items",
      "min-items",
      "randomesque",
    ],
    subset: ["items", "parameterization", "size", "responses", "runs", "condition", "out"],
    mps: ["models", "benchmark", "base-url", "data", "limit", "threshold", "resume", "out"],
  };
  for (const [sub, names] of Object.entries(flags)) {
    const { code, text } = await printed([sub, "--help"]);
    assertEquals(code, 0);
    assertEquals(text, irtUsage(sub));
    assert(text.startsWith(`usage: deno task irt ${sub} [options]`), text.split("\n")[0]);
    for (const name of names) assert(flagLine(text, name).length > 40, `${sub} --help explains --${name}`);
  }
  assert(flagLine(irtUsage("fit"), "nodes").includes("quadrature nodes"));
  assert(flagLine(irtUsage("fit"), "condition").includes("only this condition"));
  assert(flagLine(irtUsage("fit"), "max-cycles").includes("stop the EM after N cycles"));
  assert(flagLine(irtUsage("cat"), "randomesque").includes("exposure control"));
  assert(flagLine(irtUsage("cat"), "min-items").includes("never stop before N items"));
  const overview = await printed(["--help"]);
  assert(overview.text.includes("deno task irt <fit|cat|subset|mps> --help"));
  assertEquals((await printed([])).text, overview.text);
});

Deno.test("an unknown flag is one line naming the closest known flag", async () => {
  await assertRejects(
    () => irtCommand(["fit", "--nodse", "61"]),
    ConfigError,
    "unknown option --nodse; did you mean --nodes? (deno task irt fit --help lists the options)",
  );
  const run = await runCli(["irt", "cat", "--randomesk", "3", "--items", "x.json", "--out", "nowhere"]);
  assertEquals(run.code, 2);
  assertEquals(
    run.stderr.trim(),
    "error: unknown option --randomesk; did you mean --randomesque? " +
      "(deno task irt cat --help lists the options)",
  );
});

Deno.test("response CSV: long files by common column names, in any order; the layout is said", () => {
  for (
    const header of ["person,item,resp", "id,item,score", "item,examinee,correct", "person,question,value"]
  ) {
    const names = header.split(",");
    const rows = [["A", "q1", "1"], ["A", "q2", "0"], ["B", "q2", "1"]].map(([p, i, r]) =>
      names.map((
        n,
      ) => (["item", "question"].includes(n) ? i : ["person", "id", "examinee"].includes(n) ? p : r))
        .join(",")
    );
    const data = parseResponsesCsv(`${header}\n${rows.join("\n")}\n`, "l.csv");
    assertEquals(
      [data.persons, data.items, data.values],
      [["A", "B"], ["q1", "q2"], [[1, 0], [null, 1]]],
      header,
    );
    assertEquals(
      data.layout,
      `long: ${
        [
          names.find((n) => ["person", "id", "examinee"].includes(n)),
          names.find((n) => ["item", "question"].includes(n)),
          names.find((n) => ["resp", "score", "correct", "value"].includes(n)),
        ].join(",")
      }`,
    );
  }
  assertEquals(
    parseResponsesCsv("person,q1,q2,freq\nA,1,0,2\n", "w.csv").layout,
    'wide: 2 items, examinee column "person", frequency column "freq"',
  );
  const error = assertThrows(() => parseResponsesCsv("person,item,verdict\nA,q1,1\n", "v.csv"), InputError);
  assert(
    error.message.startsWith("v.csv: line 1: columns person,item,verdict look like a long file"),
    error.message,
  );
  assert(error.message.includes("response, resp, score, correct, value"), error.message);
});

Deno.test("irt fit: says how the CSV was read; items.csv holds numbers in their own columns, not overwritten", async () => {
  await withDir(async (dir) => {
    const data = simulateResponses(
      simulateItems(6, "2pl", "cli-fit"),
      simulateAbilities(300, "cli-fit"),
      "cli-fit",
    );
    const long = [
      "person,item,resp",
      ...data.persons.flatMap((p, r) => data.items.map((i, c) => `${p},${i},${data.values[r][c]}`)),
    ];
    await Deno.writeTextFile(`${dir}/long.csv`, long.join("\n") + "\n");
    const run = await runCli([
      "irt",
      "fit",
      "--responses",
      `${dir}/long.csv`,
      "--model",
      "2pl",
      "--out",
      `${dir}/fit`,
      "--no-render",
    ]);
    assertEquals(run.code, 0, run.stderr);
    assert(
      run.stderr.includes(`read ${dir}/long.csv as long: person,item,resp: 300 examinee rows × 6 items`),
      run.stderr,
    );
    const rows = parseCsv(await Deno.readTextFile(`${dir}/fit/items.csv`)).map((r) => r.fields);
    assertEquals(rows[0], [
      "item",
      "a",
      "se_a",
      "b",
      "se_b",
      "c",
      "se_c",
      "d",
      "se_d",
      "n",
      "p_correct",
      "infit",
      "outfit",
      "q1",
      "q1_df",
      "q1_p",
      "flag",
    ]);
    assertEquals(rows.slice(1).map((r) => r[0]), data.items);
    for (const row of rows.slice(1)) {
      for (const cell of row.slice(1, 5)) {
        assert(Number.isFinite(Number(cell)) && cell !== "", `numeric cell "${cell}"`);
      }
    }
    const fit = JSON.parse(await Deno.readTextFile(`${dir}/fit/fit.json`));
    assertEquals(rows.slice(1).map((r) => Number(r[3])), fit.items.map((i: { b: number }) => i.b));
    const table = parseCsv(await Deno.readTextFile(`${dir}/fit/item_parameters.csv`)).map((r) => r.fields);
    assertEquals(table[0].slice(0, 5), ["item", "a", "SE(a)", "b", "SE(b)"]);
    assert(table.slice(1).every((r) => Number.isFinite(Number(r[1])) && !r[1].includes("(")));
  });
});

Deno.test("irt cat and irt subset: a bank sharing no item with the responses is one line naming both sides", async () => {
  await withDir(async (dir) => {
    const data = simulateResponses(
      simulateItems(5, "2pl", "cli-none"),
      simulateAbilities(20, "cli-none"),
      "cli-none",
    );
    await Deno.writeTextFile(`${dir}/r.csv`, wideCsv(data));
    // A complete fit.json (what `irt fit` writes), so the same test runs against the old reader too.
    const item = (id: string, a: number, b: number) => ({
      item: id,
      a,
      b,
      c: 0,
      se_a: 0.1,
      se_b: 0.1,
      se_c: 0,
    });
    const fit = {
      model: "2pl",
      n_persons: 100,
      n_items: 2,
      logLik: -1,
      converged: true,
      iterations: 3,
      persons: [],
    };
    await Deno.writeTextFile(
      `${dir}/fit.json`,
      JSON.stringify({ ...fit, items: [item("Q1", 1, 0), item("Q2", 1.2, 0.5)] }),
    );
    for (const sub of ["cat", "subset"]) {
      const rule = sub === "cat" ? ["--max-items", "3"] : [];
      const run = await runCli([
        "irt",
        sub,
        "--items",
        `${dir}/fit.json`,
        "--responses",
        `${dir}/r.csv`,
        ...rule,
        "--out",
        `${dir}/${sub}`,
      ]);
      assertEquals(run.code, 2, run.stderr);
      assertEquals(run.stderr.trim().split("\n").length, 1, run.stderr);
      assertEquals(run.errors, [
        `error: --items ${dir}/fit.json and the responses (${dir}/r.csv) share no item: the bank has "Q1", "Q2" ` +
        `(2 items), the responses have "item1", "item2", "item3" and 2 more (5 items)`,
      ]);
      assertThrows(() => Deno.statSync(`${dir}/${sub}`), Deno.errors.NotFound); // nothing written
    }
  });
});

Deno.test("irt subset: prints a summary with the rank agreement and where the per-examinee table is", async () => {
  await withDir(async (dir) => {
    const truth = simulateItems(40, "2pl", "cli-subset");
    const data = simulateResponses(truth, simulateAbilities(120, "cli-subset"), "cli-subset");
    await Deno.writeTextFile(`${dir}/r.csv`, wideCsv(data));
    const bank = truth.map((t, i) => ({ item: data.items[i], ...t }));
    await Deno.writeTextFile(`${dir}/bank.json`, JSON.stringify({ model: "2pl", items: bank }));
    const run = await runCli([
      "irt",
      "subset",
      "--items",
      `${dir}/bank.json`,
      "--size",
      "10",
      "--responses",
      `${dir}/r.csv`,
      "--out",
      `${dir}/s`,
      "--no-render",
    ]);
    assertEquals(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split("\n");
    assertEquals(lines.length, 3, run.stdout);
    assert(lines[0].startsWith("rapid assessment: 10 of 40 calibrated items; 120 examinees"), lines[0]);
    assert(/Kendall τ-b 0\.\d{3} \[0\.\d{3}, 0\.\d{3}\], Spearman ρ 0\.\d{3} \[/.test(lines[1]), lines[1]);
    assert(lines[2].includes(`${dir}/s/rapid_assessment.{md,csv,tex} (every examinee)`), lines[2]);
    assert(!data.persons.some((p) => run.stdout.includes(p)), "no examinee rows on the console");
    const table = parseCsv(await Deno.readTextFile(`${dir}/s/rapid_assessment.csv`));
    assertEquals(table.length, 121);
  });
});

Deno.test("irt fit --accel: none is plain EM (more E-steps, the same optimum); a bad value is one line", async () => {
  await withDir(async (dir) => {
    const data = simulateResponses(
      simulateItems(8, "2pl", "cli-accel"),
      simulateAbilities(400, "cli-accel"),
      "x",
    );
    await Deno.writeTextFile(`${dir}/wide.csv`, wideCsv(data));
    const fit = async (accel: string) => {
      const args = ["irt", "fit", "--responses", `${dir}/wide.csv`, "--model", "2pl", "--accel", accel];
      const run = await runCli([...args, "--out", `${dir}/${accel}`, "--no-render"]);
      assertEquals(run.code, 0, run.stderr);
      return JSON.parse(await Deno.readTextFile(`${dir}/${accel}/fit.json`));
    };
    const [fast, plain] = [await fit("squarem"), await fit("none")];
    assertEquals([fast.acceleration, plain.acceleration], ["squarem", "none"]);
    assert(fast.e_steps < plain.e_steps, `${fast.e_steps} vs ${plain.e_steps}`);
    assert(
      Math.abs(fast.logLik - plain.logLik) < 1e-5,
      JSON.stringify([fast, plain]).slice(0, 300),
    );
    const bad = await runCli([
      "irt",
      "fit",
      "--responses",
      `${dir}/wide.csv`,
      "--model",
      "2pl",
      "--accel",
      "fast",
      "--out",
      `${dir}/b`,
    ]);
    assertEquals(bad.code, 2);
    assertEquals(bad.stderr.trim(), 'error: --accel expects squarem or none, got "fast"');
  });
});
