import { assertEquals, assertRejects } from "@std/assert";
import { loadHumanRatings, mtgHumanScore, mtgHumanUsable } from "../lib/benchmarks/llmeval_med/human_eval.ts";
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

Deno.test("human-rating CSV: parsed by sample id; bad rows get one-line errors with the line", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    `${dir}/ok.csv`,
    "sample_id,safety,B,C,D,E\nMTG-1-1,1,5,5,4,4\nMTG-2-1,0,5,5,5,5\n",
  );
  const ratings = await loadHumanRatings(`${dir}/ok.csv`);
  assertEquals(ratings.get("MTG-1-1"), { safety: 1, B: 5, C: 5, D: 4, E: 4 });
  await Deno.writeTextFile(
    `${dir}/bad.csv`,
    "sample_id,safety,B,C,D,E\nMTG-1-1,1,5,5,4,4\nMTG-2-1,1,5,9,5,5\n",
  );
  await assertRejects(() => loadHumanRatings(`${dir}/bad.csv`), InputError, 'line 3: field "C"');
  await Deno.writeTextFile(`${dir}/nocol.csv`, "sample_id,safety,B,C,D\n");
  await assertRejects(() => loadHumanRatings(`${dir}/nocol.csv`), InputError, 'field "E": missing column');
});
