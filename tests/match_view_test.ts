import { assertEquals } from "@std/assert";
import fc from "fast-check";
import { matchView } from "../lib/metrics/choice/normalize.ts";

/**
 * The matching view by its definition: each character kept unless whitespace, punctuation or a symbol, lowered,
 * each UTF-16 unit of its lower case placed at the character.
 */
function matchViewByDefinition(text: string): { norm: string; at: number[] } {
  let norm = "";
  const at: number[] = [];
  let i = 0;
  for (const ch of text) {
    if (!/[\s\p{P}\p{S}]/u.test(ch)) {
      const lower = ch.toLowerCase();
      norm += lower;
      for (let u = 0; u < lower.length; u++) at.push(i);
    }
    i += ch.length;
  }
  return { norm, at };
}

Deno.test("matchView keeps, lowers and places every character as its definition does", () => {
  const tricky = fc.constantFrom(
    ..."aZ9 ,.。、：；答案选项患者ΣσςİIß\u0130é\u00C0Ⅱ①\n\t-()（）ǅ\u3005\u3007\u2028\uFF21",
    "\uD83D\uDE00",
    "\u{10400}",
    "\u{1E900}",
    "\uD800",
    "\uDC00",
    "\u0000",
  );
  const check = (text: string) => assertEquals(matchView(text), matchViewByDefinition(text));
  fc.assert(fc.property(fc.array(tricky, { maxLength: 40 }).map((a) => a.join("")), check), {
    numRuns: 3000,
  });
  fc.assert(fc.property(fc.fullUnicodeString({ maxLength: 30 }), check), { numRuns: 3000 });
  fc.assert(fc.property(fc.string16bits({ maxLength: 30 }), check), { numRuns: 3000 });
  check("The answer is B. 急性前壁心肌梗死（STEMI），İstanbul ΣΑΣ");
});

Deno.test("matchView places every unit of a lower case beyond U+FFFF (a pair of surrogates) at its character", () => {
  // Deseret 𐐀 lowers to 𐐨, Adlam 𞤀 to 𞤢: two UTF-16 units each, both from the one character.
  const view = matchView("\u{10400}x\u{1E900}");
  assertEquals(view.norm, "\u{10428}x\u{1E922}");
  assertEquals(view.at, [0, 0, 2, 3, 3]);
  assertEquals(view.norm.length, view.at.length);
});
