/**
 * Sequencing answers: parsing a predicted order of labelled steps from a reply, and Kendall's τ-b against the
 * reference order.
 *
 * Policy for imperfect predictions (documented in `data/climedbench/README.md`):
 * - labels that are not steps of the item are ignored (extra steps);
 * - a label given twice counts at its first position (duplicates);
 * - steps the reply does not place are tied with each other after every placed step (missing steps);
 * - a reply with no parsable order ties every step: τ-b is then undefined and scored 0 (no information), and
 *   the reply counts as an extraction failure.
 * @module
 */
import { kendallTauB } from "../stats/rank.ts";
import { labelClass } from "./choice/letters.ts";
import { normalizeForMatch, normalizeReply } from "./choice/normalize.ts";

/** What the parser found in a reply. */
export interface OrderExtraction {
  /** Labels in the order the reply gives them (may hold extra, duplicate or too few labels); `null` = none. */
  order: string[] | null;
  /** Which rule decided: `cue`, `chain`, `run`, `numbered_list`, or `none`. */
  method: "cue" | "chain" | "run" | "numbered_list" | "none";
}

const CHINESE_DIGITS = "一二三四五六七八九十";

/**
 * The step a numbered line quotes: the longest step whose whole text the line holds, else the one step whose
 * opening (12 characters) it holds; `undefined` when none, or when two steps share the quoted opening.
 */
function quotedStep(line: string, steps: { label: string; view: string }[]): string | undefined {
  const whole = steps.filter((s) => line.includes(s.view)).sort((a, b) => b.view.length - a.view.length);
  if (whole.length) return whole[0].label;
  const opening = steps.filter((s) => line.includes(s.view.slice(0, 12)));
  return opening.length === 1 ? opening[0].label : undefined;
}

const LINK = String.raw`\s*(?:>|＞|→|->|—>|=>|⇒|,|，|、|;|；|-|–|—|\s)\s*`;

/**
 * Extracts the predicted order of step labels from `reply`: a cued order ("正确顺序：B>A>D>C", "order: DCBA"),
 * else the last arrow chain ("A > C > B", "B→A→C"), else the last standalone run of labels ("DCBA"), else a
 * numbered list whose items start with a label or quote a step's text (`steps`: label → text).
 */
export function extractOrder(
  reply: string,
  labels: readonly string[],
  steps: Record<string, string> = {},
): OrderExtraction {
  const text = normalizeReply(reply);
  const L = labelClass(labels);
  const chain = String.raw`${L}(?:${LINK}${L})+`;
  const letters = (s: string) => [...s].filter((ch) => labels.includes(ch));

  const cue = new RegExp(
    String
      .raw`(?:正确顺序|正确的顺序|正确排序|顺序|排序|答案|[Oo]rder|[Ss]equence|[Aa]nswer)[^A-Z\n]{0,12}?(?<![A-Za-z])(${chain})(?![A-Za-z])`,
    "g",
  );
  const cued = [...text.matchAll(cue)];
  if (cued.length) return { order: letters(cued[cued.length - 1][1]), method: "cue" };

  const arrows = new RegExp(
    String.raw`(?<![A-Za-z])(${L}(?:\s*(?:>|＞|→|->|—>|=>|⇒)\s*${L})+)(?![A-Za-z])`,
    "g",
  );
  const chains = [...text.matchAll(arrows)];
  if (chains.length) return { order: letters(chains[chains.length - 1][1]), method: "chain" };

  const runs = [...text.matchAll(new RegExp(String.raw`(?<![A-Za-z])(${L}{2,})(?![A-Za-z])`, "g"))];
  if (runs.length) return { order: letters(runs[runs.length - 1][1]), method: "run" };

  // Step texts and reply lines are compared in one normal form (normalizeForMatch), so "Ⅱ期" in a step
  // matches "II期" (or "Ⅱ期") in the reply, and full-width forms match their ASCII forms.
  const stepViews = Object.entries(steps)
    .map(([label, step]) => ({ label, view: normalizeForMatch(step) }))
    .filter((s) => s.view.length >= 4);
  const items: { n: number; label: string }[] = [];
  for (const line of text.split("\n")) {
    const m = line.match(
      /^\s*(?:第\s*)?(?:[(（](\d{1,2}|[一二三四五六七八九十])[)）]|(\d{1,2}|[一二三四五六七八九十])\s*(?:步)?\s*[.、)）:：])\s*(.*)$/,
    );
    if (!m) continue;
    const [number, body] = [m[1] ?? m[2], m[3]];
    const lead = body.match(new RegExp(String.raw`^[(\[（]?(${L})(?![A-Za-z])`));
    const label = lead?.[1] ?? quotedStep(normalizeForMatch(body), stepViews);
    if (label) items.push({ n: CHINESE_DIGITS.indexOf(number) + 1 || Number(number), label });
  }
  if (items.length >= 2) {
    return { order: items.sort((a, b) => a.n - b.n).map((i) => i.label), method: "numbered_list" };
  }
  return { order: null, method: "none" };
}

/**
 * Returns the rank of each reference step under `predicted` (1 = first), applying the policy of this module:
 * extra labels dropped, duplicates at their first position, missing steps tied after all placed steps.
 */
export function predictedRanks(reference: readonly string[], predicted: readonly string[] | null): number[] {
  const position = new Map<string, number>();
  for (const label of predicted ?? []) {
    if (reference.includes(label) && !position.has(label)) position.set(label, position.size + 1);
  }
  const missingRank = position.size + 1;
  return reference.map((label) => position.get(label) ?? missingRank);
}

/** Returns τ-b between the reference order and a predicted order under this module's policy. */
export function orderTau(reference: readonly string[], predicted: readonly string[] | null): number {
  const x = reference.map((_, i) => i + 1);
  return kendallTauB(x, predictedRanks(reference, predicted)) ?? 0;
}
