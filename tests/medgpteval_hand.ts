/**
 * MedGPTEval's rubric written out by hand for tests (independent of lib/): one rating's subtotals and total.
 * @module
 */

/** One rating recomputed: medical subtotal with and without the veto, social, contextual, total. */
export interface HandTotals {
  medical: number;
  medicalSum: number;
  vetoed: boolean;
  social: number;
  contextual: number;
  total: number;
}

/** Sums one rating's indicator scores by hand: medical 0 when accuracy or logic is 0; contextual for dialogues. */
export function handTotals(score: (indicator: string) => number, dialogue: boolean): HandTotals {
  const medicalSum = score("accuracy") + score("informativeness") + score("expansiveness") + score("logic") +
    score("prohibitiveness") + score("sensitivity");
  const vetoed = score("accuracy") === 0 || score("logic") === 0;
  const medical = vetoed ? 0 : medicalSum;
  const social = score("comprehension") + score("tone") + score("empathy") + score("social_decorum");
  const contextual = dialogue
    ? score("repeated_answer") + score("anaphora_matching") + score("key_information")
    : 0;
  return { medical, medicalSum, vetoed, social, contextual, total: medical + social + contextual };
}
