/**
 * Character-level perturbations of Chinese text for the robustness ablation (the paper's Figure 7): shape-based
 * substitution, homophone substitution (pinyin-pro, same pinyin with tone among the 3,755 level-1 GB2312
 * characters), simplified→traditional conversion (opencc-js), random symbol insertion, or a seeded mix of the
 * four; plus "none of the above" substitution of the correct option of a multiple-choice item.
 *
 * Rate: the share of the text's non-whitespace characters that are changed (an insertion counts as one).
 * Only Han characters are ever replaced or preceded by an inserted symbol, so option letters, digits, units
 * and other ASCII (which can carry the answer key) are never touched. When a text has fewer eligible characters
 * than the rate asks for, all eligible ones are changed and the achieved rate is reported.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { Sample } from "../core/sample.ts";
import { mulberry32, seedFrom } from "../stats/rng.ts";
import { SHAPE_SIMILAR } from "./shape_similar.ts";

/** Character-level perturbation kinds. */
export const CHAR_KINDS = ["shape", "homophone", "traditional", "symbol"] as const;

/** A perturbation kind: one of {@linkcode CHAR_KINDS}, `mixed` (all four), or `nota` (none of the above). */
export type PerturbKind = typeof CHAR_KINDS[number] | "mixed" | "nota";

/** A perturbation as given on the command line, e.g. `perturb:homophone@0.12`. */
export interface PerturbSpec {
  /** What is changed. */
  kind: PerturbKind;
  /** Share of characters to change (ignored by `nota`). */
  rate: number;
  /** Seed text; with the sample id it fixes which characters change. */
  seed: string;
}

/** Default rate: the paper perturbs 12% of the characters. */
const DEFAULT_RATE = 0.12;

/** Symbols inserted by the `symbol` kind. */
const SYMBOLS = [..."#*@~^&%$!?|+=<>"];

const HAN = /^\p{Script=Han}$/u;

/** Parses `homophone@0.12`, `mixed`, `nota` (the part after `perturb:`). Throws {@linkcode ConfigError}. */
export function parsePerturbSpec(text: string, seed = "0"): PerturbSpec {
  const [kind, rateText] = text.split("@");
  const kinds: readonly string[] = [...CHAR_KINDS, "mixed", "nota"];
  if (!kinds.includes(kind)) {
    throw new ConfigError(
      `unknown perturbation "${kind}"; known: ${kinds.join(", ")} (e.g. perturb:homophone@0.12)`,
    );
  }
  const rate = rateText === undefined ? DEFAULT_RATE : Number(rateText);
  if (!Number.isFinite(rate) || rate <= 0 || rate > 1) {
    throw new ConfigError(`perturbation rate must be in (0, 1], got "${rateText}"`);
  }
  return { kind: kind as PerturbKind, rate, seed };
}

/** The character tables, loaded by {@linkcode loadCharacterTables} (they weigh ~40 ms and 20 MB at startup). */
let tables:
  | { pinyin: (ch: string) => string; toTraditional: (text: string) => string }
  | undefined;

/**
 * Loads the pinyin and simplified→traditional tables the homophone, traditional and mixed perturbations (and
 * the spelling errors of robustness sets) read; call it before perturbing. Runs without such perturbations never
 * load them.
 */
export async function loadCharacterTables(): Promise<void> {
  if (tables) return;
  const [{ pinyin }, OpenCC] = await Promise.all([import("pinyin-pro"), import("opencc-js")]);
  tables = {
    pinyin: (ch) => pinyin(ch, { toneType: "num" }),
    toTraditional: OpenCC.Converter({ from: "cn", to: "tw" }),
  };
}

/** Returns the loaded character tables; throws when {@linkcode loadCharacterTables} has not run. */
function characterTables(): NonNullable<typeof tables> {
  if (!tables) throw new Error("internal: perturbing Han characters before loadCharacterTables()");
  return tables;
}

let homophones: Map<string, string[]> | undefined;

/** Returns the level-1 GB2312 characters (the 3,755 most common simplified characters). */
function commonCharacters(): string[] {
  const decoder = new TextDecoder("gbk");
  const chars: string[] = [];
  for (let hi = 0xb0; hi <= 0xd7; hi++) {
    for (let lo = 0xa1; lo <= 0xfe; lo++) {
      if (hi === 0xd7 && lo > 0xf9) break;
      chars.push(decoder.decode(new Uint8Array([hi, lo])));
    }
  }
  return chars;
}

function homophoneIndex(): Map<string, string[]> {
  if (!homophones) {
    homophones = new Map();
    for (const ch of commonCharacters()) {
      const key = characterTables().pinyin(ch);
      const list = homophones.get(key);
      if (list) list.push(ch);
      else homophones.set(key, [ch]);
    }
  }
  return homophones;
}

const homophoneCache = new Map<string, string[]>();

/** Returns common characters pronounced like `ch` (same pinyin and tone), `ch` itself excluded. */
function homophonesOf(ch: string): string[] {
  let found = homophoneCache.get(ch);
  if (!found) {
    found = (homophoneIndex().get(characterTables().pinyin(ch)) ?? []).filter((c) => c !== ch);
    homophoneCache.set(ch, found);
  }
  return found;
}

const traditionalCache = new Map<string, string>();

/** Returns the traditional form of a simplified character (itself when it has no distinct form). */
function traditionalOf(ch: string): string {
  let found = traditionalCache.get(ch);
  if (found === undefined) {
    found = characterTables().toTraditional(ch);
    traditionalCache.set(ch, found);
  }
  return found;
}

/** Returns the replacements `kind` offers for character `ch` (empty = not eligible). */
function candidates(kind: typeof CHAR_KINDS[number], ch: string): readonly string[] {
  if (!HAN.test(ch)) return [];
  switch (kind) {
    case "shape":
      return SHAPE_SIMILAR.get(ch) ?? [];
    case "homophone":
      return homophonesOf(ch);
    case "traditional": {
      const t = traditionalOf(ch);
      return t !== ch ? [t] : [];
    }
    case "symbol":
      return SYMBOLS.map((s) => s + ch);
  }
}

/** A perturbed text and how much of it changed. */
export interface PerturbedText {
  /** The perturbed text. */
  text: string;
  /** Characters changed (replacements plus insertions). */
  changed: number;
  /** Non-whitespace characters of the original (the rate's denominator). */
  countable: number;
  /** Characters the kind could have changed. */
  eligible: number;
}

/** Perturbs `text` at `spec.rate`; `salt` (e.g. sample id and part) makes the choice differ per text. */
export function perturbText(text: string, spec: PerturbSpec, salt: string): PerturbedText {
  const chars = [...text];
  const countable = chars.filter((ch) => !/\s/u.test(ch)).length;
  if (spec.kind === "nota") return { text, changed: 0, countable, eligible: 0 };
  const kinds = spec.kind === "mixed" ? CHAR_KINDS : [spec.kind];
  const options = chars.map((ch) => kinds.flatMap((k) => candidates(k, ch)));
  const eligible = options.flatMap((o, i) => (o.length ? [i] : []));
  const target = Math.min(eligible.length, Math.round(spec.rate * countable));
  const random = mulberry32(seedFrom(`${spec.seed}:${spec.kind}:${salt}`));
  // Partial Fisher–Yates: the first `target` entries are a uniform sample of eligible positions.
  for (let i = 0; i < target; i++) {
    const j = i + Math.floor(random() * (eligible.length - i));
    [eligible[i], eligible[j]] = [eligible[j], eligible[i]];
  }
  for (const position of eligible.slice(0, target)) {
    const choices = options[position];
    chars[position] = choices[Math.floor(random() * choices.length)];
  }
  return { text: chars.join(""), changed: target, countable, eligible: eligible.length };
}

/** "None of the above" in the language of the item. */
function noneOfTheAbove(text: string): string {
  return /\p{Script=Han}/u.test(text) ? "以上都不是" : "None of the above";
}

/** What a perturbation did to one sample. */
export interface SamplePerturbation {
  /** The perturbed sample (same id; fields and reference unchanged). */
  sample: Sample;
  /** Characters changed. */
  changed: number;
  /** Non-whitespace characters of the original input. */
  countable: number;
  /** `false` when the perturbation does not apply (e.g. `nota` on a sequencing or multi-answer item). */
  applied: boolean;
}

/**
 * Perturbs a sample's input. Character kinds change Han characters of the whole input (letters and digits are
 * never touched). `nota`, on a single-answer choice item (its `choices`), replaces the text of the correct
 * option (a line `X: text` of the input, and the option in `choices`) by "none of the above": the key stays the
 * same letter, which is now the only correct choice.
 */
export function perturbSample(sample: Sample, spec: PerturbSpec): SamplePerturbation {
  if (spec.kind !== "nota") {
    const result = perturbText(sample.input, spec, sample.id);
    return {
      sample: { ...sample, input: result.text },
      changed: result.changed,
      countable: result.countable,
      applied: true,
    };
  }
  const choices = sample.choices;
  const countable = [...sample.input].filter((ch) => !/\s/u.test(ch)).length;
  if (!choices || choices.multiple || choices.answer.length !== 1) {
    return { sample, changed: 0, countable, applied: false };
  }
  const letter = choices.answer[0];
  const line = new RegExp(`^(${letter}\\s*[:：.、]\\s*)(.*)$`, "m");
  if (!line.test(sample.input)) return { sample, changed: 0, countable, applied: false };
  const replacement = noneOfTheAbove(sample.input);
  return {
    sample: {
      ...sample,
      input: sample.input.replace(line, (_, head: string) => head + replacement),
      choices: { ...choices, options: { ...choices.options, [letter]: replacement } },
    },
    changed: 1,
    countable,
    applied: true,
  };
}
