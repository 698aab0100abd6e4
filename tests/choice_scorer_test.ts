/**
 * The shared choice scorer (lib/metrics/choice/scorer.ts) on samples with `choices`: single and multiple
 * answers, the key's letters exactly, unreadable replies counted as extraction failures with their reason.
 */
import { assertEquals, assertRejects } from "@std/assert";
import type { Choices, Sample } from "../lib/core/sample.ts";
import { type ChoiceScoreDetail, choiceScorer, scoreChoice } from "../lib/metrics/choice/scorer.ts";
import { NO_CONTEXT } from "./no_context.ts";

const OPTIONS = { A: "Aspirin", B: "Clopidogrel", C: "Warfarin", D: "Heparin", E: "None of the above" };

function sample(id: string, choices?: Choices): Sample {
  return {
    id,
    benchmark: "mcq",
    input: "Which drug?",
    reference: null,
    conversation: null,
    fields: {},
    extra: {},
    ...(choices ? { choices } : {}),
  };
}

const SINGLE = sample("s1", {
  labels: ["A", "B", "C", "D", "E"],
  options: OPTIONS,
  answer: ["B"],
  multiple: false,
});
const MULTIPLE = sample("m1", {
  labels: ["A", "B", "C", "D", "E"],
  options: OPTIONS,
  answer: ["D", "A"],
  multiple: true,
});

/** The one score of `answer` to `item`: value, extraction failure and detail. */
async function score(item: Sample, answer: string) {
  const scores = await choiceScorer().score({ sample: item, answer }, NO_CONTEXT);
  assertEquals(scores.length, 1);
  const [s] = scores;
  assertEquals([s.judge, s.run, s.valid, s.reason, s.callKey], [null, 1, true, null, null]);
  return { value: s.value, failure: s.values?.extraction_failure, detail: s.detail as ChoiceScoreDetail };
}

Deno.test("choice scorer: a single answer scores 1 for the key's letter, 0 for another", async () => {
  assertEquals(await score(SINGLE, "The answer is B."), {
    value: 1,
    failure: 0,
    detail: { metric: "accuracy", extracted: ["B"], method: "cue", extraction_failed: false },
  });
  assertEquals((await score(SINGLE, "答案：C")).value, 0);
  assertEquals((await score(SINGLE, "答案：C")).failure, 0);
  // The option's text is read through the item's options.
  assertEquals((await score(SINGLE, "I would give clopidogrel.")).value, 1);
  // "None of the above" is the item's option E, so it is read as E (wrong here).
  assertEquals((await score(SINGLE, "None of the above.")).detail.extracted, ["E"]);
});

Deno.test("choice scorer: a multiple answer scores 1 only for exactly the key's letters, in any order", async () => {
  assertEquals((await score(MULTIPLE, "答案：D、A")).value, 1);
  assertEquals((await score(MULTIPLE, "The correct answers are A and D.")).value, 1);
  assertEquals((await score(MULTIPLE, "答案：A")).value, 0);
  assertEquals((await score(MULTIPLE, "答案：A、C、D")).value, 0);
});

Deno.test("choice scorer: an unreadable reply scores 0 with extraction_failure 1 and its reason", async () => {
  assertEquals(await score(SINGLE, "The answer is B or C."), {
    value: 0,
    failure: 1,
    detail: {
      metric: "accuracy",
      extracted: null,
      method: "cue",
      extraction_failed: true,
      failure: "ambiguous",
    },
  });
  assertEquals((await score(SINGLE, "答案：F")).detail.failure, "not_an_option");
  assertEquals((await score(SINGLE, "I am not able to answer this.")).detail.failure, "no_answer");
  assertEquals((await score(SINGLE, "I am not able to answer this.")).failure, 1);
});

Deno.test("choice scorer: its name, and a sample without choices is the task's error", async () => {
  assertEquals(choiceScorer().name, "choice");
  assertEquals(choiceScorer({ name: "accuracy" }).name, "accuracy");
  await assertRejects(
    () => choiceScorer().score({ sample: sample("x1"), answer: "B" }, NO_CONTEXT),
    Error,
    "choice: sample x1 has no choices",
  );
  // scoreChoice is the same reading without the score record.
  assertEquals(scoreChoice(SINGLE.choices!, "答案：B").value, 1);
});
