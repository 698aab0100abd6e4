/**
 * Input errors for MedGPTEval's robustness data sets C, D and E: the first-round question of a Chinese medical
 * dialogue rewritten with punctuation errors (C), grammatical errors (D) or spelling errors (E). The rewriting is
 * programmatic and seeded: a salt such as `dialogue-01:C:3` fixes every random choice, so the same question,
 * kind and salt always give the same variant.
 *
 * - `punctuation`: delete a full-width mark (，。？！、；：“”（）), replace it by a wrong one (，→。, 。→，, ？→。,
 *   ，→、, ；→，, or its half-width form such as ，→, and ？→?), or insert a stray ，。、 between two Han characters.
 * - `grammar`: on the words of `Intl.Segmenter("zh")`, swap two adjacent Han words of one clause, delete or
 *   duplicate a function word (的 了 是 在 把 被 吗 呢 就 都 还 也 和), or insert a misplaced particle (了 的 着 过)
 *   after a Han word.
 * - `spelling`: replace a Han character by a homophone or a shape-similar character, with the candidates of
 *   {@linkcode perturbText} (`homophone` and `shape` kinds).
 *
 * A variant gets about one edit per 25 non-whitespace characters (at least 1, at most 4). ASCII letters and
 * digits, and every character directly before or after one, are never changed, removed or separated, so medical
 * values (7.8, 5.2×4.8 cm, 92 g/L, 52岁) and abbreviations (Hp, CT) survive intact. A position changed by one
 * edit is not touched again by a later edit of the same variant, so edits never cancel each other out.
 * @module
 */
import { mulberry32, seedFrom } from "../stats/rng.ts";
import { perturbText } from "./perturb.ts";

/** The kinds of input error. */
export const INPUT_ERROR_KINDS = ["punctuation", "grammar", "spelling"] as const;

/** A kind of input error: one of {@linkcode INPUT_ERROR_KINDS}. */
export type InputErrorKind = typeof INPUT_ERROR_KINDS[number];

/** One erroneous variant of a text and what was done to it. */
export interface InputErrorVariant {
  /** The variant (always differs from the original when any edit is possible). */
  text: string;
  /**
   * Short English descriptions of the edits in the order applied, e.g. `deleted "，" at 12`,
   * `swapped "每天" and "快走"`, `"糖"→"塘" (homophone) at 9`; positions are code-point indices in the text as
   * it was when the edit was made.
   */
  edits: string[];
}

const HAN = /^\p{Script=Han}$/u;
const HAN_WORD = /^\p{Script=Han}+$/u;
const ALNUM = /^[0-9A-Za-z０-９Ａ-Ｚａ-ｚ]$/u;

/** Full-width Chinese punctuation marks that the punctuation kind deletes or replaces. */
const PUNCTUATION = new Set([..."，。？！、；：“”（）"]);

/** Wrong replacements of each mark: a confusable Chinese mark or the half-width form. */
const WRONG_MARKS: Readonly<Record<string, readonly string[]>> = {
  "，": ["。", "、", ","],
  "。": ["，", "."],
  "？": ["。", "?"],
  "！": ["。", "!"],
  "、": ["，", ","],
  "；": ["，", ";"],
  "：": ["，", ":"],
  "“": ['"'],
  "”": ['"'],
  "（": ["("],
  "）": [")"],
};

/** Marks inserted between two Han characters. */
const STRAY_MARKS = ["，", "。", "、"];

/** Function words that the grammar kind deletes or duplicates. */
const FUNCTION_WORDS = new Set([
  "的",
  "了",
  "是",
  "在",
  "把",
  "被",
  "吗",
  "呢",
  "就",
  "都",
  "还",
  "也",
  "和",
]);

/** Particles that the grammar kind inserts after a Han word. */
const PARTICLES = ["了", "的", "着", "过"];

/** Character-level kinds of {@linkcode perturbText} used for spelling errors. */
const SPELLING_KINDS = ["homophone", "shape"] as const;

/** Returns the number of edits for a text: about 1 per 25 non-whitespace characters, between 1 and 4. */
function editCount(chars: readonly string[]): number {
  const countable = chars.filter((ch) => !/\s/u.test(ch)).length;
  return Math.max(1, Math.min(4, Math.round(countable / 25)));
}

/** Marks the characters that must stay: ASCII (and full-width) letters and digits and their direct neighbours. */
function guardMask(chars: readonly string[]): boolean[] {
  const alnum = chars.map((ch) => ALNUM.test(ch));
  return chars.map((_, i) => alnum[i] || alnum[i - 1] === true || alnum[i + 1] === true);
}

/** Returns a uniformly chosen element of a non-empty list. */
function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)];
}

/** One character of a text being edited. */
interface Cell {
  ch: string;
  /** Must not change (ASCII letter or digit, or next to one). */
  guard: boolean;
  /** Already changed by an edit of this variant, or next to a deletion. */
  touched: boolean;
}

function cells(chars: readonly string[]): Cell[] {
  const guard = guardMask(chars);
  return chars.map((ch, i) => ({ ch, guard: guard[i], touched: false }));
}

/** A possible edit: applying it changes `cells` in place and returns its description. */
type Edit = () => string;

function punctuationEdits(cs: Cell[], random: () => number): Edit[][] {
  const free = (i: number) => i >= 0 && i < cs.length && !cs[i].guard && !cs[i].touched;
  const deletions: Edit[] = [];
  const replacements: Edit[] = [];
  const insertions: Edit[] = [];
  cs.forEach((cell, i) => {
    if (!free(i)) return;
    if (PUNCTUATION.has(cell.ch)) {
      deletions.push(() => {
        cs.splice(i, 1);
        if (cs[i - 1]) cs[i - 1].touched = true;
        if (cs[i]) cs[i].touched = true;
        return `deleted "${cell.ch}" at ${i}`;
      });
      replacements.push(() => {
        const mark = pick(random, WRONG_MARKS[cell.ch]);
        cs[i] = { ch: mark, guard: false, touched: true };
        return `replaced "${cell.ch}" with "${mark}" at ${i}`;
      });
    }
    if (HAN.test(cell.ch) && free(i + 1) && HAN.test(cs[i + 1].ch)) {
      insertions.push(() => {
        const mark = pick(random, STRAY_MARKS);
        cs[i].touched = true;
        cs[i + 1].touched = true;
        cs.splice(i + 1, 0, { ch: mark, guard: false, touched: true });
        return `inserted "${mark}" at ${i + 1}`;
      });
    }
  });
  return [deletions, replacements, insertions];
}

/** Applies `n` edits, each of a uniformly chosen available type, then a uniformly chosen instance of it. */
function applyEdits(n: number, random: () => number, available: () => Edit[][]): string[] {
  const edits: string[] = [];
  for (let step = 0; step < n; step++) {
    const types = available().filter((list) => list.length > 0);
    if (types.length === 0) break;
    edits.push(pick(random, pick(random, types))());
  }
  return edits;
}

function punctuationVariant(text: string, random: () => number): InputErrorVariant {
  const chars = [...text];
  const cs = cells(chars);
  const edits = applyEdits(editCount(chars), random, () => punctuationEdits(cs, random));
  return { text: cs.map((c) => c.ch).join(""), edits };
}

/** One word token of a text being edited. */
interface Token {
  text: string;
  /** Consists only of Han characters. */
  han: boolean;
  /** Contains or touches an ASCII letter or digit. */
  guard: boolean;
  /** Already changed by an edit of this variant, or next to a deletion. */
  touched: boolean;
}

let segmenter: Intl.Segmenter | undefined;

function tokens(text: string): Token[] {
  segmenter ??= new Intl.Segmenter("zh", { granularity: "word" });
  const guard = guardMask([...text]);
  const result: Token[] = [];
  let offset = 0;
  for (const { segment } of segmenter.segment(text)) {
    const length = [...segment].length;
    result.push({
      text: segment,
      han: HAN_WORD.test(segment),
      guard: guard.slice(offset, offset + length).some(Boolean),
      touched: false,
    });
    offset += length;
  }
  return result;
}

function grammarEdits(ts: Token[], random: () => number): Edit[][] {
  const free = (i: number) => i >= 0 && i < ts.length && ts[i].han && !ts[i].guard && !ts[i].touched;
  const at = (i: number) => ts.slice(0, i).reduce((sum, t) => sum + [...t.text].length, 0);
  const swaps: Edit[] = [];
  const deletions: Edit[] = [];
  const duplications: Edit[] = [];
  const insertions: Edit[] = [];
  ts.forEach((token, i) => {
    if (!free(i)) return;
    if (free(i + 1) && ts[i + 1].text !== token.text) {
      swaps.push(() => {
        const next = ts[i + 1];
        ts[i] = { ...next, touched: true };
        ts[i + 1] = { ...token, touched: true };
        return `swapped "${token.text}" and "${next.text}"`;
      });
    }
    if (FUNCTION_WORDS.has(token.text)) {
      deletions.push(() => {
        const position = at(i);
        ts.splice(i, 1);
        if (ts[i - 1]) ts[i - 1].touched = true;
        if (ts[i]) ts[i].touched = true;
        return `deleted "${token.text}" at ${position}`;
      });
      duplications.push(() => {
        token.touched = true;
        ts.splice(i + 1, 0, { ...token });
        return `duplicated "${token.text}" at ${at(i)}`;
      });
    }
    const particles = PARTICLES.filter((p) => p !== token.text);
    insertions.push(() => {
      const particle = pick(random, particles);
      token.touched = true;
      ts.splice(i + 1, 0, { text: particle, han: true, guard: false, touched: true });
      return `inserted "${particle}" after "${token.text}" at ${at(i + 1)}`;
    });
  });
  return [swaps, deletions, duplications, insertions];
}

function grammarVariant(text: string, random: () => number): InputErrorVariant {
  const ts = tokens(text);
  const edits = applyEdits(editCount([...text]), random, () => grammarEdits(ts, random));
  return { text: ts.map((t) => t.text).join(""), edits };
}

const spellingEligible = new Map<string, boolean>();

/** Returns whether {@linkcode perturbText} of `kind` has a replacement for the single character `ch`. */
function hasReplacement(kind: typeof SPELLING_KINDS[number], ch: string): boolean {
  const key = `${kind}:${ch}`;
  let found = spellingEligible.get(key);
  if (found === undefined) {
    found = HAN.test(ch) && perturbText(ch, { kind, rate: 1, seed: "probe" }, "probe").eligible > 0;
    spellingEligible.set(key, found);
  }
  return found;
}

function spellingEdits(cs: Cell[], random: () => number): Edit[][] {
  return SPELLING_KINDS.map((kind) =>
    cs.flatMap((cell, i) => {
      if (cell.guard || cell.touched || !hasReplacement(kind, cell.ch)) return [];
      const edit: Edit = () => {
        // A seed drawn from this variant's generator makes perturbText pick one of its candidates.
        const seed = String(Math.floor(random() * 2 ** 32));
        const replaced = perturbText(cell.ch, { kind, rate: 1, seed }, "input-error").text;
        cs[i] = { ch: replaced, guard: false, touched: true };
        return `"${cell.ch}"→"${replaced}" (${kind}) at ${i}`;
      };
      return [edit];
    })
  );
}

function spellingVariant(text: string, random: () => number): InputErrorVariant {
  const chars = [...text];
  const cs = cells(chars);
  const edits = applyEdits(editCount(chars), random, () => spellingEdits(cs, random));
  return { text: cs.map((c) => c.ch).join(""), edits };
}

const VARIANT_MAKERS: Record<InputErrorKind, (text: string, random: () => number) => InputErrorVariant> = {
  punctuation: punctuationVariant,
  grammar: grammarVariant,
  spelling: spellingVariant,
};

/** Returns one variant of `text` with errors of `kind`; `salt` (e.g. "dialogue-01:C:3") fixes the random choices. */
export function inputErrorVariant(text: string, kind: InputErrorKind, salt: string): InputErrorVariant {
  const make = VARIANT_MAKERS[kind];
  if (!make) {
    throw new RangeError(`unknown input error kind "${kind}"; known: ${INPUT_ERROR_KINDS.join(", ")}`);
  }
  let variant: InputErrorVariant = { text, edits: [] };
  // Edits never undo each other, so the first attempt differs whenever it made an edit; the retries are a guard.
  for (let attempt = 0; attempt < 4; attempt++) {
    const suffix = attempt === 0 ? "" : `:retry${attempt}`;
    variant = make(text, mulberry32(seedFrom(`input-error:${kind}:${salt}${suffix}:${text}`)));
    if (variant.text !== text || variant.edits.length === 0) break;
  }
  return variant;
}

/**
 * Returns `count` variants, pairwise distinct and different from `text` where the text allows it (retries with
 * new salts, bounded); same inputs → same outputs. Variant `i` is first tried with salt `${salt}:${i}`; when the
 * text admits fewer distinct variants, the list is filled up with repeats.
 */
export function inputErrorVariants(
  text: string,
  kind: InputErrorKind,
  count: number,
  salt: string,
): InputErrorVariant[] {
  if (!Number.isInteger(count) || count < 0) {
    throw new RangeError(`variant count must be a non-negative integer, got ${count}`);
  }
  const variants: InputErrorVariant[] = [];
  const seen = new Set<string>([text]);
  const maxAttempts = count * 20;
  let attempt = 0;
  for (; attempt < maxAttempts && variants.length < count; attempt++) {
    const variant = inputErrorVariant(text, kind, `${salt}:${attempt}`);
    if (seen.has(variant.text)) continue;
    seen.add(variant.text);
    variants.push(variant);
  }
  for (; variants.length < count; attempt++) {
    variants.push(inputErrorVariant(text, kind, `${salt}:${attempt}`));
  }
  return variants;
}
