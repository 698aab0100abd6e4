/**
 * Choice extraction over answer frames (issue 23, item 4): every cue verb with every way of joining letters is
 * read whole, and no hedged, open or withdrawn list is read as a confident answer.
 */
import { assertEquals } from "@std/assert";
import { extractChoice } from "../lib/metrics/choice/extract.ts";

const read = (reply: string) => extractChoice(reply).letters?.join("") ?? null;

/** Every cue + list + tail combination, with the letters it must give; the mismatches are returned. */
function misread(cues: string[], lists: [string, string | null][], tails: string[], space: string): string[] {
  const wrong: string[] = [];
  for (const cue of cues) {
    for (const [list, want] of lists) {
      for (const tail of tails) {
        const reply = cue + space + list + tail;
        const got = read(reply);
        if (got !== want) wrong.push(`${JSON.stringify(reply)} → ${got} (want ${want})`);
      }
    }
  }
  return wrong;
}

Deno.test("choice frames: the issue's examples read all three letters", () => {
  for (const reply of ["我选择A、B、C", "我选择 A、B 和 C", "我选 A、B 和 C", "答案是 A、B 和 C"]) {
    assertEquals(read(reply), "ABC", reply);
  }
});

Deno.test("choice frames: Chinese cue verbs × joiners × trailing words give the whole list", () => {
  const cues = [
    "我选择",
    "我选",
    "应选",
    "宜选",
    "本题选择",
    "正确选项为",
    "正确答案是",
    "本题答案：",
    "综上所述，故选",
    "所以选",
  ];
  const lists: [string, string][] = [
    ["A、B、C", "ABC"],
    ["A、B 和 C", "ABC"],
    ["A，C及D", "ACD"],
    ["A、B、以及D", "ABD"],
    ["A 、 B 、 D", "ABD"],
    ["A,B,C", "ABC"],
    ["A项、C项和E项", "ACE"],
    ["选项A和选项C", "AC"],
    ["（A）（D）（E）", "ADE"],
    ["A（阿司匹林）和C（氯吡格雷）", "AC"],
    ["B", "B"],
  ];
  const tails = ["", "。", "这几项。", " 这几项。", "，因为它们均符合诊断标准。", "等。", "吧。"];
  assertEquals(misread(cues, lists, tails, ""), []);
  assertEquals(misread(cues, lists, tails, " "), []);
});

Deno.test("choice frames: English cue verbs × joiners × trailing words give the whole list", () => {
  const cues = [
    "I choose",
    "I'd go with",
    "We would go with",
    "Go with",
    "My picks are",
    "I select",
    "The answers are",
  ];
  const lists: [string, string][] = [
    ["A, B, and C", "ABC"],
    ["A, C, & D", "ACD"],
    ["A and C and E", "ACE"],
    ["A&C&E", "ACE"],
    ["A , B , C and E", "ABCE"],
    ["A, D", "AD"],
    ["(A), (B) and (D)", "ABD"],
    ["options A and D", "AD"],
    ["A (aspirin) and C (clopidogrel)", "AC"],
    ["A (not C) and D", "AD"],
    ["A and C as well as D", "ACD"],
    ["A together with C", "AC"],
    ["B", "B"],
  ];
  const tails = [
    "",
    ".",
    "!",
    " since all of them are supported by the guideline.",
    " — both are first-line.",
  ];
  assertEquals(misread(cues, lists, tails, " "), []);
});

Deno.test("choice frames: letters offered as alternatives are never read as an answer", () => {
  const zh: [string, null][] = ["A或C", "A还是C", "A/C", "A，也可能是C", "A、B或C", "A（或C）"].map((
    l,
  ) => [l, null]);
  const en: [string, null][] = ["A or C", "A, possibly C", "A, maybe C", "A; possibly C", "A (or C) and D"]
    .map((l) => [l, null]);
  assertEquals(
    misread(["我选择", "答案是", "很难说是", "选B还是选"], zh, ["", "。", "？", "这几项。"], ""),
    [],
  );
  assertEquals(
    misread(["I choose", "The answer is", "Possibly", "Maybe"], en, ["", ".", " — I can't decide."], " "),
    [],
  );
  assertEquals(read("选B还是选D？两者都有依据，我拿不准。"), null);
  assertEquals(read("Possibly B, possibly D — there isn't enough information to choose."), null);
});

Deno.test("choice frames: a list ends at a new clause after a comma, else where it ends is not definite", () => {
  // A new clause after a comma takes its letters.
  assertEquals(read("本题选D，A、B、C三项都不正确。"), "D");
  assertEquals(read("The answer is B, and A would be wrong because of the rash."), "B");
  assertEquals(read("The answers are A, B and C, D is wrong."), "ABC");
  // Words that neither close the list nor follow a comma leave it open: not read as its first letter.
  assertEquals(read("The answer is A and B is a distractor."), null);
  assertEquals(read("A、C均为常见不良反应。"), null);
  assertEquals(read("I choose A (B is wrong) and C."), null);
  assertEquals(read("The answers are A and C but also D."), null);
  // Words pointing back at the list, then excluding it.
  assertEquals(read("答案是A、B、C这几项之外的D。"), "D");
});

Deno.test("choice frames: a correction states the answer; an afterthought does not", () => {
  assertEquals(read("I'd go with B — actually, no, D."), "D");
  assertEquals(read("The answer is C — make that D."), "D");
  assertEquals(read("I select B and C. Actually, B, C and E — I forgot E."), "BCE");
  assertEquals(read("I'll pick A and C. Correction: C is wrong, so the answer is just A."), "A");
  assertEquals(read("Final answer: D. Sorry, scratch that — the final answer is E."), "E");
  assertEquals(read("应选A、B。抱歉，漏了D，正确答案是A、B、D。"), "ABD");
  assertEquals(read("The answer is C. Actually, A is better."), null);
});
