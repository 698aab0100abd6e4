import { assert, assertEquals, assertNotEquals, assertThrows } from "@std/assert";
import fc from "fast-check";
import {
  INPUT_ERROR_KINDS,
  type InputErrorKind,
  inputErrorVariant,
  inputErrorVariants,
} from "../lib/ablations/input_errors.ts";
import { loadCharacterTables } from "../lib/ablations/perturb.ts";

// Perturbations read the pinyin and traditional-form tables, loaded on demand.
await loadCharacterTables();

const DIABETES =
  "医生您好，我今年52岁，确诊2型糖尿病三年了，现在每天吃二甲双胍0.5g，空腹血糖还是7.8左右，是不是要加药？";
const HP = "体检查出幽门螺杆菌Hp阳性，呼气试验数值是152，需要马上吃药治疗吗？家里人也要一起查吗？";
const THYROID = "B超发现甲状腺结节1.2×0.8 cm，血红蛋白92 g/L，医生说要复查，我需要做穿刺吗？";
const NO_PUNCTUATION = "最近总是失眠怎么办";
const QUESTIONS = [DIABETES, HP, THYROID, NO_PUNCTUATION];

/** Substrings that every variant must keep: values with units, abbreviations, ages. */
const KEPT: Record<string, string[]> = {
  [DIABETES]: ["52岁", "2型", "0.5g", "7.8左"],
  [HP]: ["Hp", "152，"],
  [THYROID]: ["B超", "1.2×0.8 cm，", "92 g/L，"],
  [NO_PUNCTUATION]: [],
};

const FUNCTION_WORDS = new Set([..."的了是在把被吗呢就都还也和"]);
const PARTICLES = new Set([..."了的着过"]);
const HAN = /\p{Script=Han}/u;

const hanOnly = (text: string) => [...text].filter((ch) => HAN.test(ch)).join("");
const withoutHan = (text: string) => [...text].filter((ch) => !HAN.test(ch)).join("");
const withoutPunctuation = (text: string) => text.replace(/\p{P}/gu, "");
const digits = (text: string) => text.replace(/[^0-9]/g, "");

/** Counts of each character of `text`. */
function multiset(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  return counts;
}

/** Characters whose count differs between the two texts. */
function countChanges(a: string, b: string): string[] {
  const ma = multiset(a);
  const mb = multiset(b);
  return [...new Set([...ma.keys(), ...mb.keys()])].filter((ch) => ma.get(ch) !== mb.get(ch));
}

Deno.test("input errors: each kind gives 10 pairwise distinct variants, all differing from the question", () => {
  for (const question of QUESTIONS) {
    for (const kind of INPUT_ERROR_KINDS) {
      const variants = inputErrorVariants(question, kind, 10, `dialogue-01:${kind}`);
      assertEquals(variants.length, 10);
      assertEquals(new Set(variants.map((v) => v.text)).size, 10, `${kind}: ${question}`);
      for (const variant of variants) {
        assertNotEquals(variant.text, question);
        assert(variant.edits.length >= 1 && variant.edits.length <= 4, JSON.stringify(variant.edits));
      }
    }
  }
});

Deno.test("input errors: same salt gives the same output, a different salt a different one", () => {
  for (const kind of INPUT_ERROR_KINDS) {
    const a = inputErrorVariants(DIABETES, kind, 10, "dialogue-01:C");
    assertEquals(inputErrorVariants(DIABETES, kind, 10, "dialogue-01:C"), a);
    assertNotEquals(inputErrorVariants(DIABETES, kind, 10, "dialogue-02:C"), a);
    assertEquals(inputErrorVariant(HP, kind, "x:3"), inputErrorVariant(HP, kind, "x:3"));
    const single = new Set(Array.from({ length: 8 }, (_, i) => inputErrorVariant(HP, kind, `x:${i}`).text));
    assert(single.size > 1, kind);
  }
});

Deno.test("input errors: digits, units, Latin letters and the character after a digit survive every variant", () => {
  for (const question of QUESTIONS) {
    for (const kind of INPUT_ERROR_KINDS) {
      for (const variant of inputErrorVariants(question, kind, 10, "keep")) {
        for (const part of KEPT[question]) assert(variant.text.includes(part), `${part} in ${variant.text}`);
        assertEquals(digits(variant.text), digits(question));
        assertEquals(variant.text.replace(/[^A-Za-z]/g, ""), question.replace(/[^A-Za-z]/g, ""));
      }
    }
  }
});

Deno.test("punctuation errors keep every Han character and everything else but punctuation, in order", () => {
  for (const question of QUESTIONS) {
    for (const variant of inputErrorVariants(question, "punctuation", 10, "C")) {
      assertEquals(withoutPunctuation(variant.text), withoutPunctuation(question));
      assertEquals(hanOnly(variant.text), hanOnly(question));
      for (const edit of variant.edits) assert(/^(deleted|replaced|inserted) "/.test(edit), edit);
    }
  }
  const halfWidth = inputErrorVariants(DIABETES, "punctuation", 40, "C")
    .flatMap((v) => v.edits)
    .filter((edit) => / with "[,.?!;:"()]"/.test(edit));
  assert(halfWidth.length > 0, "some replacement is a half-width mark");
});

Deno.test("punctuation errors: a question without punctuation still gets stray marks inserted", () => {
  for (const variant of inputErrorVariants(NO_PUNCTUATION, "punctuation", 10, "C")) {
    assert(variant.edits.every((edit) => edit.startsWith("inserted ")), JSON.stringify(variant.edits));
    assertEquals(withoutPunctuation(variant.text), NO_PUNCTUATION);
    assert(/[，。、]/.test(variant.text));
  }
});

Deno.test("grammar errors only reorder Han words and drop or add function words and particles", () => {
  const allowed = new Set([...FUNCTION_WORDS, ...PARTICLES]);
  const seen = new Set<string>();
  for (const question of QUESTIONS) {
    for (const variant of inputErrorVariants(question, "grammar", 10, "D")) {
      assertEquals(withoutHan(variant.text), withoutHan(question));
      assertEquals(multiset(digits(variant.text)), multiset(digits(question)));
      for (const ch of countChanges(hanOnly(variant.text), hanOnly(question))) {
        assert(allowed.has(ch), `"${ch}" changed in ${variant.text}`);
      }
      for (const edit of variant.edits) {
        const type = /^(swapped|deleted|duplicated|inserted) "/.exec(edit)?.[1];
        assert(type, edit);
        seen.add(type);
      }
    }
  }
  assertEquals(seen, new Set(["swapped", "deleted", "duplicated", "inserted"]));
});

Deno.test("spelling errors keep the length and replace only Han characters away from digits and letters", () => {
  const kinds = new Set<string>();
  for (const question of QUESTIONS) {
    const before = [...question];
    for (const variant of inputErrorVariants(question, "spelling", 10, "E")) {
      const after = [...variant.text];
      assertEquals(after.length, before.length);
      const changed = before.flatMap((ch, i) => (ch !== after[i] ? [i] : []));
      assertEquals(changed.length, variant.edits.length);
      for (const i of changed) {
        assert(HAN.test(before[i]) && HAN.test(after[i]), `${before[i]}→${after[i]}`);
        for (const neighbour of [before[i - 1], before[i + 1]]) {
          assert(!/[0-9A-Za-z]/.test(neighbour ?? ""), `changed next to "${neighbour}"`);
        }
      }
      for (const edit of variant.edits) {
        const match = /^"(.)"→"(.)" \((homophone|shape)\) at (\d+)$/u.exec(edit);
        assert(match, edit);
        assertEquals([before[Number(match[4])], after[Number(match[4])]], [match[1], match[2]]);
        kinds.add(match[3]);
      }
    }
  }
  assertEquals(kinds, new Set(["homophone", "shape"]));
});

Deno.test("input errors: the number of edits grows mildly with length, from 1 to 4", () => {
  const edits = (text: string) => inputErrorVariant(text, "spelling", "n").edits.length;
  assertEquals(edits("我头疼"), 1);
  assertEquals(edits(HP), 2);
  assertEquals(edits(DIABETES.repeat(4)), 4);
  for (const kind of INPUT_ERROR_KINDS) {
    assertEquals(inputErrorVariant(DIABETES.repeat(4), kind, "n").edits.length, 4);
  }
});

Deno.test("input errors: texts that allow no edit come back unchanged; bad counts are rejected", () => {
  for (const kind of INPUT_ERROR_KINDS) {
    for (const text of ["", "HbA1c 7.8%", "   "]) {
      assertEquals(inputErrorVariant(text, kind, "s"), { text, edits: [] });
      const variants = inputErrorVariants(text, kind, 3, "s");
      assertEquals(variants, [{ text, edits: [] }, { text, edits: [] }, { text, edits: [] }]);
    }
    assertEquals(inputErrorVariants(DIABETES, kind, 0, "s"), []);
    assertThrows(() => inputErrorVariants(DIABETES, kind, -1, "s"), RangeError);
  }
  assertThrows(() => inputErrorVariant(DIABETES, "typo" as InputErrorKind, "s"), RangeError);
});

Deno.test("input errors (property): deterministic, numbers and the character after them kept, never throws", () => {
  const piece = fc.oneof(
    fc.constantFrom(..."我头疼血糖高吃药的了是在吗呢就都还也和医生岁型每天快走检查肝功能正常"),
    fc.constantFrom(..."0123456789"),
    fc.constantFrom("7.8", "5.2", "Hp", "mg", " ", "，", "。", "？", "、", "（", "）"),
  );
  const text = fc.array(piece, { maxLength: 60 }).map((parts) => parts.join(""));
  const kind = fc.constantFrom(...INPUT_ERROR_KINDS);
  fc.assert(
    fc.property(text, kind, fc.string({ maxLength: 8 }), (question, k, salt) => {
      const variant = inputErrorVariant(question, k, salt);
      assertEquals(inputErrorVariant(question, k, salt), variant);
      assert(variant.edits.length <= 4);
      assertEquals(digits(variant.text), digits(question));
      for (const [run] of question.matchAll(/[0-9]+(?:\.[0-9]+)?[^0-9]?/gu)) {
        assert(variant.text.includes(run), `"${run}" lost in ${JSON.stringify(variant.text)}`);
      }
      if (/\p{Script=Han}{2}/u.test(question) && variant.edits.length > 0) {
        assertNotEquals(variant.text, question);
      }
    }),
    { numRuns: 300 },
  );
});
