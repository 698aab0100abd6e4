import { assertEquals, assertThrows } from "@std/assert";
import {
  MTG_RATING_SPEC,
  mtgHumanScore,
  mtgHumanUsable,
  mtgRatingOf,
} from "../lib/benchmarks/llmeval_med/human_eval.ts";
import { readRatings } from "../lib/store/import_ratings.ts";
import { InputError } from "../lib/core/errors.ts";
import type { RatingSpec } from "../lib/core/task.ts";

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
  assertThrows(
    () => read("sample_id,safety,B,C,D\n"),
    InputError,
    'r.csv: line 1: field "E": no column for field "E"; columns are: sample_id, safety, B, C, D; map one with',
  );
});

Deno.test("ratings CSV: columns found by case, spacing and published name; ids by the data's own id, unique only", () => {
  const spec: RatingSpec = {
    description: "test",
    fields: [
      { name: "clinical_impact", min: 1, max: 2, integer: true, levels: ["Negligible", "Critical"] },
      { name: "social_decorum", min: 0, max: 2, integer: true },
    ],
  };
  const ids = new Set(["bench:pmq-test-0001", "bench:pmq-test-0002", "x:dup", "y:dup"]);
  const read = (text: string, columns?: Record<string, string>) =>
    readRatings(new TextEncoder().encode(text), "r.csv", spec, { sampleIds: ids, columns });
  const ok = read(
    "Instance_ID,Rater,Clinical Impact,Social decorum\npmq-test-0001,a,critical,2\nbench:pmq-test-0002,a,1,0\n",
  );
  assertEquals(ok.ratings.map((r) => [r.sampleId, r.values]), [
    ["bench:pmq-test-0001", { clinical_impact: "Critical", social_decorum: 2 }],
    ["bench:pmq-test-0002", { clinical_impact: "Negligible", social_decorum: 0 }],
  ]);
  // --columns maps the file's names; a long file's field names are matched the same way.
  const mapped = read("Frage,Arzt,Auswirkung,Ton\npmq-test-0001,a,Critical,1\n", {
    sample_id: "Frage",
    rater: "arzt",
    clinical_impact: "Auswirkung",
    social_decorum: "Ton",
  });
  assertEquals(mapped.ratings[0].values, { clinical_impact: "Critical", social_decorum: 1 });
  const long = read(
    "question_id,rater,field,value\npmq-test-0002,a,Clinical_impact,Negligible\n" +
      "pmq-test-0002,a,SOCIAL DECORUM,1\n",
  );
  assertEquals(long.ratings[0].values, { clinical_impact: "Negligible", social_decorum: 1 });
  // An id that names two samples is refused, naming them.
  assertThrows(
    () => read("id,rater,clinical_impact,social_decorum\ndup,a,1,1\n"),
    InputError,
    'r.csv: line 2: field "id": "dup" names several samples of this run (x:dup, y:dup); give the sample id',
  );
});
