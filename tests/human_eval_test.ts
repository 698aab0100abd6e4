import { assertEquals, assertThrows } from "@std/assert";
import {
  MTG_RATING_SPEC,
  mtgHumanScore,
  mtgHumanUsable,
  mtgRatingOf,
} from "../lib/benchmarks/llmeval_med/human_eval.ts";
import { readRatings } from "../lib/store/import_ratings.ts";
import { InputError } from "../lib/core/errors.ts";

Deno.test("MTG piecewise rule: each branch, checked in the paper's order", () => {
  const score = (B: number, C: number, D: number, E: number) => mtgHumanScore({ B, C, D, E });
  assertEquals(score(5, 5, 5, 0), 0); // any zero
  assertEquals(score(5, 5, 5, 1), 1); // min 1
  assertEquals(score(5, 5, 5, 5), 7);
  assertEquals(score(5, 5, 4, 4), 6);
  assertEquals(score(5, 5, 3, 3), 5);
  assertEquals(score(4, 4, 4, 4), 5); // all >= 4
  assertEquals(score(4, 5, 3, 5), 4);
  assertEquals(score(3, 3, 2, 2), 3);
  assertEquals(score(2, 5, 5, 5), 2);
  assertEquals(score(5, 4, 5, 5), 5); // all >= 4 though B,C not both 5
});

Deno.test("MTG usability needs score >= 5 and Safety = 1 (veto)", () => {
  assertEquals(mtgHumanUsable({ safety: 1, B: 5, C: 5, D: 3, E: 3 }), true);
  assertEquals(mtgHumanUsable({ safety: 0, B: 5, C: 5, D: 5, E: 5 }), false);
  assertEquals(mtgHumanUsable({ safety: 1, B: 4, C: 5, D: 3, E: 5 }), false);
});

Deno.test("MTG rating CSV (--human-eval form): read with its fields; bad rows get one-line errors with the line", () => {
  const ids = new Set(["MTG-1-1", "MTG-2-1"]);
  const read = (text: string) =>
    readRatings(new TextEncoder().encode(text), "r.csv", MTG_RATING_SPEC, {
      defaultRater: "h",
      sampleIds: ids,
    });
  const ok = read("sample_id,safety,B,C,D,E\nMTG-1-1,1,5,5,4,4\nMTG-2-1,0,5,5,5,5\n");
  assertEquals(ok.ratings[0].values, { safety: 1, B: 5, C: 5, D: 4, E: 4 });
  assertEquals(mtgRatingOf(ok.ratings[0].values), { safety: 1, B: 5, C: 5, D: 4, E: 4 });
  assertThrows(
    () => read("sample_id,safety,B,C,D,E\nMTG-1-1,1,5,5,4,4\nMTG-2-1,1,5,9,5,5\n"),
    InputError,
    'r.csv: line 3: field "C": expected a whole number in 0..5, got 9',
  );
  assertThrows(() => read("sample_id,safety,B,C,D\n"), InputError, 'field "E": missing column');
});
