/**
 * The choice extractor (lib/metrics/choice/extract.ts): every reply of the written corpora
 * (tests/fixtures/climedbench/choice_replies*.jsonl) gives the reading a careful grader records, final answers
 * win over letters mentioned while reasoning, and a reply that is not definite is not extractable and says why.
 * `choice_frames_test.ts` checks the answer frames (cue × joiner × tail).
 */
import { assert, assertEquals } from "@std/assert";
import { CHOICE_RULES, choiceCorrect, extractChoice } from "../lib/metrics/choice/extract.ts";
import { readCorpus } from "./corpus.ts";

interface CorpusReply {
  reply: string;
  expected: string | null;
  labels?: string;
  options?: Record<string, string>;
  note?: string;
}

Deno.test("choice extractor: every reply of the written corpora (>= 450) gives the expected reading", async () => {
  // Replies written for the project (tests/fixtures/climedbench/choice_replies*.jsonl), each with the reading a
  // careful grader records (`null` = not extractable).
  const corpus = await readCorpus<CorpusReply>("climedbench", "choice_replies");
  assert(corpus.length >= 450, `corpus has ${corpus.length} replies`);
  assertEquals(new Set(corpus.map((c) => c.reply)).size, corpus.length, "a reply is listed twice");
  const wrong: string[] = [];
  const reasons = new Map<string, number>();
  let failures = 0;
  for (const item of corpus) {
    const got = extractChoice(item.reply, item.labels ? [...item.labels] : undefined, item.options ?? {});
    if (got.letters === null) failures++;
    const text = got.letters ? got.letters.join("") : null;
    if (text !== item.expected) wrong.push(`${JSON.stringify(item.reply)} → ${text} (want ${item.expected})`);
    // A reply that is not extractable says why (reported per reason); one that is says nothing of a failure.
    if ((got.letters === null) !== (got.failure !== undefined)) {
      wrong.push(`${JSON.stringify(item.reply)} → letters ${got.letters}, failure ${got.failure}`);
    }
    if (got.failure) reasons.set(got.failure, (reasons.get(got.failure) ?? 0) + 1);
  }
  assertEquals(wrong, []);
  // The corpus exercises every reason a reply cannot be read.
  assertEquals([...reasons.keys()].sort(), ["ambiguous", "no_answer", "not_an_option"]);
  console.log(
    `choice corpus: ${corpus.length} replies, extraction failures ${failures} (${
      (100 * failures / corpus.length).toFixed(1)
    }%: ${[...reasons].map(([reason, n]) => `${reason} ${n}`).join(", ")})`,
  );
});

Deno.test("choice extractor: final answer wins over letters mentioned while reasoning; multi-answer scoring", () => {
  assertEquals(extractChoice("A看似合理，但B更符合。最终答案：B").letters, ["B"]);
  assertEquals(extractChoice("答案：Ｃ").letters, ["C"]);
  // Plural English cues and lists: every letter is read, none is taken for an article.
  assertEquals(extractChoice("The right options are A and E.").letters, ["A", "E"]);
  assertEquals(extractChoice("Correct answers: A, D, and E").letters, ["A", "D", "E"]);
  assertEquals(extractChoice("My answers: C, E").letters, ["C", "E"]);
  assertEquals(extractChoice("正确选项为B和E").letters, ["B", "E"]);
  assertEquals(extractChoice("A 70-year-old man has an answer: D and A").letters, ["A", "D"]);
  assertEquals(extractChoice("\\boxed{\\text{E}}").letters, ["E"]);
  assert(choiceCorrect(["A", "C", "D"], ["D", "A", "C"]));
  assert(!choiceCorrect(["A", "C"], ["A", "C", "D"]));
  assert(!choiceCorrect(null, ["A"]));
});

Deno.test("choice extractor: a reply that is not definite is not extractable, and says why", () => {
  const failure = (reply: string, labels?: string[], options?: Record<string, string>) => {
    const got = extractChoice(reply, labels, options);
    assertEquals(got.letters, null, reply);
    return got.failure;
  };
  assertEquals(failure("The answer is D or E."), "ambiguous");
  assertEquals(failure("答案：C/D"), "ambiguous");
  assertEquals(failure("答案应为B，或者E。"), "ambiguous");
  assertEquals(failure("Answer: A\n\nThe smear shows blasts.\n\nThe answer is E."), "ambiguous");
  assertEquals(failure("最终答案：F", ["A", "B", "C", "D"]), "not_an_option");
  assertEquals(
    failure("None of the choices fits this patient.", ["A", "B"], { A: "x-ray", B: "MRI" }),
    "not_an_option",
  );
  assertEquals(failure("Vitamin D deficiency and type B gastritis were considered."), "no_answer");
  assertEquals(failure("   "), "no_answer");
  // A correction word turns a later, different answer into the answer.
  assertEquals(extractChoice("Answer: A\n\nWait, the smear shows blasts, so the answer is E.").letters, [
    "E",
  ]);
});

Deno.test("choice extractor: the rules stand in their documented order; the corpus exercises every method", async () => {
  assertEquals(CHOICE_RULES.map((rule) => rule.name), [
    "cue",
    "verdict",
    "letters_only",
    "leading_option",
    "hedge",
    "none_of_the_above",
    "option_text",
    "lone_letter",
  ]);
  for (const rule of CHOICE_RULES) {
    assert(rule.doc.length > 40, `rule ${rule.name} says what it reads and why`);
  }
  // An earlier rule decides before a later one reads: a statement over a verdict, a hedge over an opening
  // option or a lone letter, a lone letter only alone.
  const options = { A: "阿司匹林", B: "氯吡格雷", C: "华法林", D: "肝素" };
  const read = (reply: string) => {
    const got = extractChoice(reply, ["A", "B", "C", "D"], options);
    return [got.letters?.join("") ?? null, got.method, got.failure ?? null];
  };
  assertEquals(read("A is correct. The answer is C."), ["C", "cue", null]);
  assertEquals(read("B is correct."), ["B", "verdict", null]);
  assertEquals(read("ACD"), ["ACD", "letters_only", null]);
  assertEquals(read("B. 氯吡格雷"), ["B", "leading_option", null]);
  assertEquals(read("B. 氯吡格雷，无法确定"), [null, "none", "ambiguous"]);
  assertEquals(read("无法确定，首选（A）。"), [null, "none", "ambiguous"]);
  assertEquals(read("以上都不是"), [null, "none", "not_an_option"]);
  assertEquals(read("考虑阿司匹林（B）"), [null, "option_text", "ambiguous"]);
  assertEquals(read("首选（A）。"), ["A", "lone_letter", null]);
  const corpus = await readCorpus<CorpusReply>("climedbench", "choice_replies");
  const methods = new Set(
    corpus.map((c) => extractChoice(c.reply, c.labels ? [...c.labels] : undefined, c.options ?? {}).method),
  );
  assertEquals([...methods].sort(), [
    "cue",
    "leading_option",
    "letters_only",
    "lone_letter",
    "none",
    "option_text",
    "verdict",
  ]);
});
