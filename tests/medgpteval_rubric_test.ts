import { assertEquals, assertThrows } from "@std/assert";
import {
  aspectMax,
  INDICATORS,
  indicatorsFor,
  rateItem,
  totalMax,
} from "../lib/benchmarks/medgpteval/rubric.ts";

/** Every indicator of `kind` at its maximum, then `changes` applied. */
function full(kind: "dialogue" | "case", changes: Record<string, number> = {}): Record<string, number> {
  return { ...Object.fromEntries(indicatorsFor(kind).map((i) => [i.name, i.max])), ...changes };
}

Deno.test("MedGPTEval rubric: 13 indicators; maxima 8 / 5 / 3; dialogue 16, case report 13 (the paper's Table 2)", () => {
  assertEquals(INDICATORS.length, 13);
  assertEquals([aspectMax("medical"), aspectMax("social"), aspectMax("contextual")], [8, 5, 3]);
  assertEquals([totalMax("dialogue"), totalMax("case")], [16, 13]);
  assertEquals(indicatorsFor("case").length, 10);
  assertEquals(INDICATORS.filter((i) => i.veto).map((i) => i.name), ["accuracy", "logic"]);
  assertEquals(rateItem(full("dialogue"), "dialogue").total, 16);
  assertEquals(rateItem(full("case"), "case").total, 13);
});

Deno.test("MedGPTEval rubric: accuracy or logic at 0 vetoes the medical subtotal of that rating, nothing else", () => {
  const accuracy = rateItem(full("dialogue", { accuracy: 0, informativeness: 1 }), "dialogue");
  assertEquals(accuracy.vetoed, true);
  assertEquals(accuracy.aspects, { medical: 0, social: 5, contextual: 3 });
  assertEquals(accuracy.medicalUnvetoed, 6); // 0 + 1 + 1 + 2 + 1 + 1
  assertEquals(accuracy.total, 8);
  const logic = rateItem(full("case", { logic: 0 }), "case");
  assertEquals([logic.vetoed, logic.aspects.medical, logic.total, logic.aspects.contextual], [
    true,
    0,
    5,
    undefined,
  ]);
  // Logic at 1 is not a veto.
  const partial = rateItem(full("case", { logic: 1, tone: 0 }), "case");
  assertEquals([partial.vetoed, partial.aspects.medical, partial.aspects.social, partial.total], [
    false,
    7,
    4,
    11,
  ]);
});

Deno.test("MedGPTEval rubric: a missing, fractional or out-of-range score names the indicator", () => {
  const scores = full("dialogue");
  const { key_information: _, ...missing } = scores;
  assertThrows(
    () => rateItem(missing, "dialogue"),
    RangeError,
    "key_information: expected an integer 0..1, got undefined",
  );
  assertThrows(
    () => rateItem(full("case", { logic: 3 }), "case"),
    RangeError,
    "logic: expected an integer 0..2, got 3",
  );
  assertThrows(
    () => rateItem(full("case", { tone: 0.5 }), "case"),
    RangeError,
    "tone: expected an integer 0..1, got 0.5",
  );
  // Contextual indicators are not needed for a case report.
  assertEquals(rateItem(full("case"), "case").aspects.contextual, undefined);
});
