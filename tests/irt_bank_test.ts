/**
 * Item banks calibrated elsewhere: JSON with items only, a bare array, CSV in a, b, c or in mirt's
 * slope-intercept form, a full fit.json; one-line errors naming file, line and field; and `irt cat` on them.
 * @module
 */
import { assert, assertAlmostEquals, assertEquals, assertThrows } from "@std/assert";
import { InputError } from "../lib/core/errors.ts";
import { calibrate } from "../lib/irt/calibrate.ts";
import { fitFile } from "../lib/irt/fit_file.ts";
import { parseItemBank } from "../lib/irt/item_bank.ts";
import { itemInformation } from "../lib/irt/model.ts";
import { simulateAbilities, simulateItems, simulateResponses } from "../lib/irt/simulate.ts";
import { runCli } from "./run_cli.ts";

const REFERENCE = JSON.parse(
  await Deno.readTextFile(new URL("./fixtures/irt/lsat7_reference.json", import.meta.url)),
);

interface ReferenceItem {
  item: string;
  a: number;
  b: number;
  c: number;
  d: number;
}

Deno.test("item bank: CSV item,a,b,c, JSON with items only, and a bare JSON array read alike", () => {
  const csv = parseItemBank("item,a,b,c\nQ1,1.2,0.3,0.2\nQ2,0.8,-1,0\n", "bank.csv");
  assertEquals([...csv.items], [["Q1", { a: 1.2, b: 0.3, c: 0.2 }], ["Q2", { a: 0.8, b: -1, c: 0 }]]);
  assertEquals(csv.format, "CSV, a, b, c, 2 items");
  const json = parseItemBank(
    '{"model":"3pl","items":[{"item":"Q1","a":1.2,"b":0.3,"c":0.2},{"item":"Q2","a":0.8,"b":-1}]}',
    "bank.json",
  );
  assertEquals([...json.items], [...csv.items]);
  assertEquals([json.model, json.thetas], ["3pl", []]);
  const bare = parseItemBank(
    '[{"id":"Q1","a":1.2,"b":0.3,"g":0.2},{"name":"Q2","a":0.8,"b":-1}]',
    "bare.json",
  );
  assertEquals([...bare.items], [...csv.items]);
  // 2PL without a c column: c = 0.
  assertEquals(parseItemBank("item,a,b\nQ1,1,2\n", "two.csv").items.get("Q1"), { a: 1, b: 2, c: 0 });
});

Deno.test("item bank: LSAT7's reference parameters in mirt's slope-intercept form give b = −d/a", () => {
  for (const name of ["2pl", "3pl_prior"]) {
    const items: ReferenceItem[] = REFERENCE.fits[name].items;
    // As R writes coef(fit, simplify = TRUE)$items with write.csv: row names in an unnamed first column.
    const csv = ['"","a1","d","g","u"', ...items.map((i) => `"${i.item}",${i.a},${i.d},${i.c},1`)].join("\n");
    const bank = parseItemBank(csv, "mirt.csv", "slope-intercept");
    assertEquals([...bank.items.keys()], items.map((i) => i.item));
    for (const want of items) {
      const got = bank.items.get(want.item)!;
      assertAlmostEquals(got.a, want.a, 1e-12);
      assertAlmostEquals(got.b, want.b, 1e-9, `${name} ${want.item} b`);
      assertAlmostEquals(got.c, want.c, 1e-12);
    }
    assert(bank.format.startsWith("CSV, slope-intercept (b = −d/a), 5 items"), bank.format);
    const error = assertThrows(() => parseItemBank(csv, "mirt.csv"), InputError);
    assertEquals(
      error.message,
      'mirt.csv: field "b": no b, but d is given: for slope-intercept parameters (z = aθ + d) state ' +
        "--parameterization slope-intercept",
    );
  }
});

Deno.test("item bank: a full fit.json is a bank too, with its examinees' abilities", () => {
  const data = simulateResponses(
    simulateItems(5, "2pl", "bank-fit"),
    simulateAbilities(200, "bank-fit"),
    "bank-fit",
  );
  const file = fitFile(calibrate(data, { model: "2pl" }), {});
  const bank = parseItemBank(JSON.stringify(file), "fit.json");
  assertEquals([...bank.items.keys()], file.items.map((i) => i.item));
  assertEquals(bank.items.get(file.items[0].item), { a: file.items[0].a, b: file.items[0].b, c: 0 });
  assertEquals(bank.thetas, file.persons.map((p) => p.theta));
});

Deno.test("item bank: mistakes are one line naming the file, the line or entry, and the field", () => {
  const cases: [string, string, string][] = [
    ["item,a,b,c\nQ1,1,0,0\nQ2,1,x,0\n", "b.csv", 'b.csv: line 3: field "b": expected a number, got "x"'],
    ["item,a,b,c\nQ1,1,0,1.2\n", "b.csv", 'b.csv: line 2: field "c": expected 0 <= c < 1, got 1.2'],
    ["item,a,b\nQ1,1,0\nQ1,2,0\n", "b.csv", 'b.csv: line 3: field "item": duplicate item "Q1"'],
    ["item,b,c\nQ1,0,0\n", "b.csv", 'b.csv: line 1: no a column in "item,b,c"'],
    [
      "item,a,b,u\nQ1,1,0,0.9\n",
      "b.csv",
      'b.csv: line 2: field "u": upper asymptote 0.9: only 1PL/2PL/3PL items (u = 1) are supported',
    ],
    ["item,a,b\nQ1,1\n", "b.csv", "b.csv: line 2: expected 3 fields like the header, got 2"],
    [
      '{"items":[{"item":"Q1","a":1,"b":0},3]}',
      "b.json",
      'b.json: items[1]: expected an object like {"item":"Q1","a":1,"b":0}',
    ],
    [
      '{"items":[{"item":"Q1","a":"1","b":0},{"item":"Q2","b":0}]}',
      "b.json",
      'b.json: items[1]: field "a": missing',
    ],
    ['{"model":"2pl"}', "b.json", 'b.json: field "items": expected an array of items (or a bare JSON array)'],
    ["{oops", "b.json", "b.json: not JSON"],
  ];
  for (const [text, file, message] of cases) {
    const error = assertThrows(() => parseItemBank(text, file), InputError);
    assert(error.message.startsWith(message), `${error.message}\n  wanted: ${message}`);
  }
});

Deno.test("irt cat: a slope-intercept CSV bank calibrated elsewhere runs a simulated CAT", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-irt-bank-" });
  try {
    const truth = simulateItems(30, "2pl", "bank-cat");
    const data = simulateResponses(truth, simulateAbilities(25, "bank-cat"), "bank-cat");
    const csv = ["item,a,d", ...truth.map((t, i) => `${data.items[i]},${t.a},${-t.a * t.b}`)].join("\n");
    await Deno.writeTextFile(`${dir}/bank.csv`, csv + "\n");
    await Deno.writeTextFile(
      `${dir}/r.csv`,
      [["person", ...data.items].join(","), ...data.persons.map((p, r) => [p, ...data.values[r]].join(","))]
        .join("\n") + "\n",
    );
    const args = [
      "irt",
      "cat",
      "--items",
      `${dir}/bank.csv`,
      "--responses",
      `${dir}/r.csv`,
      "--max-items",
      "5",
    ];
    const refused = await runCli([...args, "--out", `${dir}/cat`]);
    assertEquals(refused.code, 2);
    assert(refused.errors[0].includes("state --parameterization slope-intercept"), refused.stderr);
    const run = await runCli([
      ...args,
      "--parameterization",
      "slope-intercept",
      "--out",
      `${dir}/cat`,
      "--no-render",
    ]);
    assertEquals(run.code, 0, run.stderr);
    assert(
      run.stderr.includes(`read ${dir}/bank.csv as an item bank: CSV, slope-intercept (b = −d/a), 30 items`),
    );
    const cat = JSON.parse(await Deno.readTextFile(`${dir}/cat/cat.json`));
    assertEquals(cat.persons.length, 25);
    // Every test starts with the item most informative at θ = 0 under the bank's parameters.
    const info = truth.map((t) => itemInformation(t, 0));
    const best = data.items[info.indexOf(Math.max(...info))];
    for (const person of cat.persons) assertEquals(person.items[0].item, best);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
