import { assertEquals } from "@std/assert";
import fc from "fast-check";
import { matchView } from "../lib/metrics/choice/normalize.ts";

/** The matching view by its definition: each character kept unless whitespace, punctuation or a symbol, lowered. */
function matchViewByDefinition(text: string): { norm: string; at: number[] } {
  let norm = "";
  const at: number[] = [];
  let i = 0;
  for (const ch of text) {
    if (!/[\s\p{P}\p{S}]/u.test(ch)) {
      for (const unit of ch.toLowerCase()) {
        norm += unit;
        at.push(i);
      }
    }
    i += ch.length;
  }
  return { norm, at };
}

Deno.test("matchView keeps, lowers and places every character as its definition does", () => {
  const tricky = fc.constantFrom(
    ..."aZ9 ,.。、：；答案选项患者ΣσςİIß\u0130é\u00C0Ⅱ①\n\t-()（）ǅ\u3005\u3007\u2028\uFF21",
    "\uD83D\uDE00",
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
