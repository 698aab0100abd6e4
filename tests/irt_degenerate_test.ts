/**
 * IRT calibration on degenerate data: items answered all right or all wrong, too few examinees or responses,
 * examinees with every item right or wrong, estimates the data do not pin down, the EM's caps and its progress.
 * @module
 */
import { assert, assertAlmostEquals, assertEquals, assertThrows } from "@std/assert";
import { InputError } from "../lib/core/errors.ts";
import { calibrate } from "../lib/irt/calibrate.ts";
import { type CycleProgress, fitIrt } from "../lib/irt/fit.ts";
import { fitFile } from "../lib/irt/fit_file.ts";
import { itemFlags, SE_BOUND } from "../lib/irt/item_flags.ts";
import { readResponsesCsv, type Responses } from "../lib/irt/responses.ts";
import { simulateAbilities, simulateItems, simulateResponses } from "../lib/irt/simulate.ts";
import { fitProgress } from "../lib/cli/irt.ts";
import { runCli } from "./run_cli.ts";
import { sharedPath, testWithShared } from "./shared_data.ts";

const REFERENCE = JSON.parse(
  await Deno.readTextFile(new URL("./fixtures/irt/lsat7_reference.json", import.meta.url)),
);

/** The items of `data` every respondent got right (or wrong), computed here independently of the library. */
function uniformItems(data: Responses, value: 0 | 1): string[] {
  return data.items.filter((_, i) => data.values.every((row) => row[i] === null || row[i] === value));
}

/** Adds columns to response data: `name` → that value for every examinee. */
function withColumns(data: Responses, columns: Record<string, 0 | 1>): Responses {
  return {
    ...data,
    items: [...data.items, ...Object.keys(columns)],
    values: data.values.map((row) => [...row, ...Object.values(columns)]),
  };
}

const THREE_BY_200 = simulateResponses(simulateItems(200, "2pl", "three"), [-1, 0, 1], "three");

/** Whether an item's SEs break the bound, recomputed from the numbers (null SEs count as broken). */
function beyondBound(
  item: { se_a: number | null; se_b: number | null; se_c: number | null },
  guessing: boolean,
) {
  const over = (se: number | null, bound: number) => se === null || !Number.isFinite(se) || se > bound;
  return over(item.se_a, SE_BOUND.a) || over(item.se_b, SE_BOUND.b) ||
    (guessing && over(item.se_c, SE_BOUND.c));
}

Deno.test("3 examinees × 200 items, 1PL: items all right or all wrong are left out by name, the fit converges", () => {
  const right = uniformItems(THREE_BY_200, 1);
  const wrong = uniformItems(THREE_BY_200, 0);
  assert(right.length > 10 && wrong.length > 0, `${right.length} all right, ${wrong.length} all wrong`);
  const calibration = calibrate(THREE_BY_200, { model: "1pl" });
  assertEquals(calibration.excludedItems.filter((x) => x.reason === "all right").map((x) => x.item), right);
  assertEquals(calibration.excludedItems.filter((x) => x.reason === "all wrong").map((x) => x.item), wrong);
  const kept = THREE_BY_200.items.filter((id) => !right.includes(id) && !wrong.includes(id));
  assertEquals(calibration.fit.items.map((it) => it.item), kept);
  assert(calibration.fit.converged, `stopped by ${calibration.fit.stoppedBy}`);
  const rightWarning = calibration.warnings.find((w) => w.includes("all right left out"))!;
  for (const id of right.slice(0, 20)) assert(rightWarning.includes(`"${id}"`), `${id} named`);
  assert(calibration.warnings.some((w) => w.includes(`all wrong left out`) && w.includes(`"${wrong[0]}"`)));
  for (const item of calibration.fit.items) {
    assert(Number.isFinite(item.b) && Math.abs(item.b) < 10, `${item.item} b = ${item.b}`);
  }
  const file = fitFile(calibration, {});
  assertEquals(file.excluded_items!.map((x) => x.item).toSorted(), [...right, ...wrong].toSorted());
});

for (const model of ["2pl", "3pl"] as const) {
  Deno.test(`3 examinees × 200 items, ${model.toUpperCase()}: every estimate beyond the SE bound is flagged and named`, () => {
    const calibration = calibrate(THREE_BY_200, { model });
    const { fit } = calibration;
    assert(fit.iterations <= 500, `${fit.iterations} cycles`);
    if (!fit.converged) {
      assert(
        calibration.warnings.some((w) => w.includes("stopped at the cycle cap (500 cycles, --max-cycles)")),
      );
    }
    const file = fitFile(calibration, {});
    const flagged = file.items.filter((it) => it.flag).map((it) => it.item);
    const expected = fit.items.filter((it) => beyondBound(it, model === "3pl")).map((it) => it.item);
    assert(expected.length > 0, "a fit on three examinees has unidentified items");
    assertEquals(flagged, expected);
    const warning = calibration.warnings.find((w) => w.includes("beyond the sane bound"))!;
    assert(warning.startsWith(`${expected.length} item(s)`), warning);
    for (const id of expected.slice(0, 10)) assert(warning.includes(`"${id}"`), id);
  });
}

Deno.test("1 examinee × 40 items: a one-line input error naming the examinee, before any EM cycle", () => {
  const one = simulateResponses(simulateItems(40, "1pl", "one"), [0.3], "one");
  const error = assertThrows(() => calibrate(one, { model: "1pl", source: "one.csv" }), InputError);
  assertEquals(
    error.message,
    'one.csv: calibration needs at least 2 examinees with responses, got 1 ("sim1")',
  );
});

Deno.test("fewer than 2 usable items: a one-line input error naming what was left out and why", () => {
  const data: Responses = {
    persons: ["p1", "p2", "p3"],
    items: ["mixed", "easy", "hard", "lonely"],
    values: [[1, 1, 0, 1], [0, 1, 0, null], [1, 1, 0, null]],
    weights: [1, 1, 1],
  };
  const error = assertThrows(() => calibrate(data, { model: "1pl", source: "few.csv" }), InputError);
  assertEquals(
    error.message,
    'few.csv: calibration needs at least 2 items answered both right and wrong, got 1 of 4 (left out: "easy" ' +
      'all right, "hard" all wrong, "lonely" fewer than 2 responses)',
  );
});

Deno.test("items with fewer than 2 responses and examinees left without a calibrated item are named", () => {
  const base = simulateResponses(
    simulateItems(6, "2pl", "sparse"),
    simulateAbilities(300, "sparse"),
    "sparse",
  );
  const data: Responses = {
    persons: [...base.persons, "only-rare"],
    items: [...base.items, "rare"],
    values: [...base.values.map((row) => [...row, null]), [...base.items.map(() => null), 1]],
    weights: [...base.weights, 1],
  };
  const calibration = calibrate(data, { model: "2pl" });
  assertEquals(calibration.excludedItems.map((x) => [x.item, x.reason]), [[
    "rare",
    "fewer than 2 responses",
  ]]);
  assertEquals(calibration.excludedPersons, [{
    person: "only-rare",
    reason: "no response to a calibrated item",
  }]);
  assert(calibration.warnings.some((w) => w.includes('"rare"') && w.includes("fewer than 2 responses")));
  assert(calibration.warnings.some((w) => w.includes('"only-rare"')));
  assertEquals(calibration.persons.length, 300);
});

Deno.test("an all-right and an all-wrong item leave the other items' estimates exactly as without them", () => {
  const base = simulateResponses(simulateItems(8, "2pl", "edge"), simulateAbilities(800, "edge"), "edge");
  const data = withColumns(base, { always: 1, never: 0 });
  const calibration = calibrate(data, { model: "2pl" });
  assertEquals(calibration.excludedItems.map((x) => [x.item, x.reason]), [["always", "all right"], [
    "never",
    "all wrong",
  ]]);
  const alone = calibrate(base, { model: "2pl" });
  for (const [i, item] of calibration.fit.items.entries()) {
    assertAlmostEquals(item.b, alone.fit.items[i].b, 1e-9, item.item);
    assertAlmostEquals(item.se_b!, alone.fit.items[i].se_b!, 1e-9, item.item);
  }
  assert(calibration.flags.every((f) => f === null), calibration.flags.join("; "));
});

testWithShared(
  "LSAT7 plus an item everyone got right: the item is left out by name, the five others keep mirt-equal estimates",
  ["data/irt/LSAT7.csv"],
  async () => {
    const lsat = await readResponsesCsv(sharedPath("data/irt/LSAT7.csv"));
    const calibration = calibrate(withColumns(lsat, { Easy: 1 }), { model: "2pl" });
    assertEquals(calibration.excludedItems, [{ item: "Easy", reason: "all right", n: 1000, right: 1000 }]);
    assert(
      calibration.warnings.some((w) =>
        w.includes("all right left out of the calibration") && w.includes('"Easy"')
      ),
    );
    assertEquals(calibration.fit.items.map((it) => it.item), lsat.items);
    const reference = REFERENCE.fits["2pl"];
    for (const [i, item] of calibration.fit.items.entries()) {
      assertAlmostEquals(item.b, reference.items[i].b, 1e-4, item.item);
      assertAlmostEquals(item.se_b!, reference.items[i].se_b, 1e-4, item.item);
    }
    assertAlmostEquals(calibration.fit.logLik, reference.logLik, 1e-5);
    // 308 examinees with all five right and 12 with all wrong stay in the calibration, named and prior-bound.
    assert(
      calibration.warnings.some((w) =>
        w.startsWith("308 examinee(s) (1 response pattern(s)) answered every")
      ),
    );
    assertEquals(calibration.persons.filter((p) => p.extreme).map((p) => [p.weight, p.extreme]), [
      [12, "all wrong"],
      [308, "all right"],
    ]);
  },
);

Deno.test("SE flags: an SE beyond the bound, or none, is named; sane ones are not", () => {
  const item = {
    item: "x",
    a: 0.01,
    b: -39.9,
    c: 0,
    d: 0.4,
    se_a: 0.5,
    se_b: 1.4e7,
    se_c: 0,
    se_d: 1,
    n: 10,
    p_correct: 1,
  };
  assertEquals(itemFlags(item, false, true), [`SE(b) 1.4e+7 > ${SE_BOUND.b}`]);
  assertEquals(itemFlags({ ...item, se_a: null }, false, true), [
    "no SE(a): information not invertible",
    `SE(b) 1.4e+7 > ${SE_BOUND.b}`,
  ]);
  assertEquals(itemFlags({ ...item, se_b: 0.4 }, false, true), []);
  assertEquals(itemFlags({ ...item, se_b: 0.4, se_c: 0.3 }, true, true), [`SE(c) 0.300 > ${SE_BOUND.c}`]);
  assertEquals(itemFlags(item, false, false), [], "no SEs asked for, nothing to flag");
});

Deno.test("caps: the cycle cap and the wall-time cap stop the EM and the warning names which one", () => {
  const data = simulateResponses(simulateItems(10, "2pl", "caps"), simulateAbilities(400, "caps"), "caps");
  const cycles = calibrate(data, { model: "2pl", maxIterations: 3 });
  assertEquals([cycles.fit.stoppedBy, cycles.fit.iterations, cycles.fit.converged], ["max-cycles", 3, false]);
  assert(
    cycles.warnings.some((w) => w.startsWith("EM did not converge: stopped at the cycle cap (3 cycles")),
  );
  // An injected clock that advances one second per reading reaches a 2.5 s cap after two cycles.
  let now = 0;
  const timed = calibrate(data, { model: "2pl", maxSeconds: 2.5, clock: () => (now += 1000) });
  assertEquals([timed.fit.stoppedBy, timed.fit.converged], ["max-seconds", false]);
  assert(timed.fit.iterations < 3, `${timed.fit.iterations} cycles`);
  assert(timed.warnings.some((w) => w.includes(`stopped at the time cap (2.5 s, --max-seconds) after`)));
  assertEquals(fitFile(timed, {}).stopped_by, "max-seconds");
  assertEquals(calibrate(data, { model: "2pl" }).fit.stoppedBy, "converged");
});

Deno.test("progress: every EM cycle is reported with its log-likelihood change; shown only on a terminal", () => {
  const data = simulateResponses(
    simulateItems(10, "2pl", "progress"),
    simulateAbilities(300, "progress"),
    "progress",
  );
  const seen: CycleProgress[] = [];
  const fit = fitIrt(data, { model: "2pl", onCycle: (p) => seen.push(p) });
  assertEquals(seen.map((p) => p.cycle), Array.from({ length: fit.iterations }, (_, k) => k + 1));
  assert(Number.isNaN(seen[0].logLikChange));
  for (let k = 1; k < seen.length; k++) {
    assertAlmostEquals(seen[k].logLikChange, seen[k].logLik - seen[k - 1].logLik, 1e-9);
    assert(seen[k].logLikChange > -1e-8, `EM never lowers the likelihood (cycle ${k + 1})`);
  }
  assertEquals(fitProgress(false, () => {}), undefined);
  const written: string[] = [];
  let clock = 0;
  const progress = fitProgress(true, (text) => written.push(text), () => clock)!;
  progress.onCycle(seen[0]);
  progress.onCycle(seen[1]);
  clock = 1000;
  progress.onCycle(seen[2]);
  progress.done();
  assertEquals(written.length, 3, "at most four lines a second, then the line is cleared");
  assert(written[0].includes("EM cycle 1: logLik") && written[0].includes("(change –)"), written[0]);
  assert(written[1].includes(`EM cycle 3: logLik ${seen[2].logLik.toFixed(3)}`), written[1]);
  assertEquals(written[2], "\r\x1b[K");
});

Deno.test("CLI: 1 × 40 ends with one error line and exit 2, nothing written; 3 × 200 names what it left out", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-irt-degenerate-" });
  try {
    const csv = (data: Responses) =>
      [["person", ...data.items].join(","), ...data.persons.map((p, i) => [p, ...data.values[i]].join(","))]
        .join("\n") + "\n";
    const one = simulateResponses(simulateItems(40, "1pl", "one"), [0.3], "one");
    await Deno.writeTextFile(`${dir}/one.csv`, csv(one));
    const failed = await runCli([
      "irt",
      "fit",
      "--responses",
      `${dir}/one.csv`,
      "--model",
      "1pl",
      "--out",
      `${dir}/o1`,
    ]);
    assertEquals(failed.code, 2);
    assertEquals(failed.errors, [
      `error: ${dir}/one.csv: calibration needs at least 2 examinees with responses, got 1 ("sim1")`,
    ]);
    assertEquals(failed.stderr.trim().split("\n").length, 1, "the error is the only line, no stack trace");
    assertThrows(() => Deno.statSync(`${dir}/o1`), Deno.errors.NotFound);
    await Deno.writeTextFile(`${dir}/three.csv`, csv(THREE_BY_200));
    const three = await runCli([
      "irt",
      "fit",
      "--responses",
      `${dir}/three.csv`,
      "--model",
      "1pl",
      "--out",
      `${dir}/o3`,
      "--no-render",
    ]);
    assertEquals(three.code, 0, three.stderr);
    assert(!three.stderr.includes("EM cycle"), "no progress line when stderr is not a terminal");
    assert(
      three.stderr.includes(`warning: ${uniformItems(THREE_BY_200, 1).length} item(s) all right left out`),
    );
    const file = JSON.parse(await Deno.readTextFile(`${dir}/o3/fit.json`));
    assertEquals(file.stopped_by, "converged");
    const rows = (await Deno.readTextFile(`${dir}/o3/items.csv`)).trim().split("\n");
    assertEquals(rows.length, 201, "every item has a row in items.csv, the left-out ones too");
    const wrong = uniformItems(THREE_BY_200, 0)[0];
    assert(
      rows.some((r) => r.startsWith(`${wrong},`) && r.endsWith(",left out of the calibration: all wrong")),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
