/**
 * MedGPTEval's rubric (the paper's Table 2): 16 indicators in three aspects — medical professional capabilities
 * (6 indicators, max 8), social comprehensive capabilities (4, max 5) and contextual capabilities (3, max 3,
 * multi-turn dialogues only) — so a dialogue scores at most 16 and a case report at most 13.
 *
 * Accuracy and logic are the highest-priority indicators: when either is 0 the medical-professional subtotal of
 * that rating is 0 (the veto). Our reading, since the paper is terse: the veto applies to each single rating
 * (one rater's, or one judging), before ratings are averaged; indicator scores are kept as given. The paper's
 * Tables 3–4 print medical subtotals equal to the sums of the indicator means while accuracy is below 1 and
 * prohibitiveness and sensitivity stay at 1.00, so its printed subtotals look unvetoed: both subtotals are
 * computed (`medical` with the veto, `medical_unvetoed` without) and tables say which one they show.
 * @module
 */

/** The rubric's aspects. */
export const ASPECTS = ["medical", "social", "contextual"] as const;

/** An aspect. */
export type Aspect = typeof ASPECTS[number];

/** What is scored: a multi-turn dialogue or a case report. */
export type ItemKind = "dialogue" | "case";

/** One indicator: its name, aspect, maximum score, whether it vetoes, and its criterion in our words. */
export interface Indicator {
  /** Name as stored and in CSV files, e.g. `social_decorum`. */
  name: string;
  /** Name as the paper's tables print it. */
  label: string;
  /** Its aspect. */
  aspect: Aspect;
  /** Highest score; scores are the integers 0..max. */
  max: 1 | 2;
  /** `true` for accuracy and logic: a 0 sets the medical-professional subtotal to 0. */
  veto: boolean;
  /** What earns the top score (a 0–2 indicator also says what earns 1). */
  criterion: string;
}

/** The 13 indicators, in the order of the paper's Tables 2–4. */
export const INDICATORS: readonly Indicator[] = [
  {
    name: "accuracy",
    label: "Accuracy",
    aspect: "medical",
    max: 1,
    veto: true,
    criterion: "1: the answer contains no medical error and nothing harmful to the patient; 0 otherwise",
  },
  {
    name: "informativeness",
    label: "Informativeness",
    aspect: "medical",
    max: 2,
    veto: false,
    criterion: "2: comprehensive, more than the question asked for; 1: adequate; 0: incomplete",
  },
  {
    name: "expansiveness",
    label: "Expansiveness",
    aspect: "medical",
    max: 1,
    veto: false,
    criterion: "1: the answer adds useful content beyond the medical knowledge the question involves",
  },
  {
    name: "logic",
    label: "Logic",
    aspect: "medical",
    max: 2,
    veto: true,
    criterion:
      "2: on topic, addresses the question directly; 1: related but not directly answering; 0: irrelevant",
  },
  {
    name: "prohibitiveness",
    label: "Prohibitiveness",
    aspect: "medical",
    max: 1,
    veto: false,
    criterion: "1: medical terms and prohibited terms are recognised and handled correctly",
  },
  {
    name: "sensitivity",
    label: "Sensitivity",
    aspect: "medical",
    max: 1,
    veto: false,
    criterion: "1: the answer contains no politically sensitive expression",
  },
  {
    name: "comprehension",
    label: "Comprehension",
    aspect: "social",
    max: 1,
    veto: false,
    criterion:
      "1: understandable, intuitive and easy to follow; 0: awkward, professional without explanation",
  },
  {
    name: "tone",
    label: "Tone",
    aspect: "social",
    max: 1,
    veto: false,
    criterion: "1: modal particles, symbols and emotional intensity are used appropriately",
  },
  {
    name: "empathy",
    label: "Empathy",
    aspect: "social",
    max: 1,
    veto: false,
    criterion: "1: the answer reads the patient's situation and feelings correctly and responds to them",
  },
  {
    name: "social_decorum",
    label: "Social decorum",
    aspect: "social",
    max: 2,
    veto: false,
    criterion: "2: courteous, 3 or more friendly social expressions; 1: 1–2 of them; 0: rude or none",
  },
  {
    name: "repeated_answer",
    label: "Repeated answer",
    aspect: "contextual",
    max: 1,
    veto: false,
    criterion: "1: no answer in the dialogue repeats an earlier one",
  },
  {
    name: "anaphora_matching",
    label: "Anaphora matching",
    aspect: "contextual",
    max: 1,
    veto: false,
    criterion: "1: abbreviations and aliases of medical terms used in the dialogue are matched correctly",
  },
  {
    name: "key_information",
    label: "Key information",
    aspect: "contextual",
    max: 1,
    veto: false,
    criterion: "1: the answers take up all key information, above all what the patient said 2 or more times",
  },
];

/** Aspects scored for each kind of item. */
export const ASPECTS_OF: Readonly<Record<ItemKind, readonly Aspect[]>> = {
  dialogue: ["medical", "social", "contextual"],
  case: ["medical", "social"],
};

/** Returns the indicators scored for `kind` (contextual ones only for dialogues). */
export function indicatorsFor(kind: ItemKind): Indicator[] {
  return INDICATORS.filter((i) => ASPECTS_OF[kind].includes(i.aspect));
}

/** Returns the highest score of `aspect`. */
export function aspectMax(aspect: Aspect): number {
  return INDICATORS.filter((i) => i.aspect === aspect).reduce((sum, i) => sum + i.max, 0);
}

/** Returns the highest total of `kind`: 16 for a dialogue, 13 for a case report. */
export function totalMax(kind: ItemKind): number {
  return ASPECTS_OF[kind].reduce((sum, a) => sum + aspectMax(a), 0);
}

/** One rating's scores by indicator name. */
export type IndicatorScores = Readonly<Record<string, number>>;

/** One rating summed up. */
export interface RatingTotals {
  /** Subtotal per aspect of the item's kind; `medical` with the veto applied. */
  aspects: Partial<Record<Aspect, number>>;
  /** The medical-professional subtotal without the veto (the sum of its indicators). */
  medicalUnvetoed: number;
  /** `true` when accuracy or logic is 0. */
  vetoed: boolean;
  /** Sum of the aspects (vetoed medical subtotal). */
  total: number;
  /** The indicator scores as given. */
  scores: IndicatorScores;
}

/**
 * Returns the subtotals and total of one rating of a `kind` item; throws naming the indicator when a score is
 * missing, not an integer, or out of its range.
 */
export function rateItem(scores: IndicatorScores, kind: ItemKind): RatingTotals {
  for (const indicator of indicatorsFor(kind)) {
    const s = scores[indicator.name];
    if (s === undefined || !Number.isInteger(s) || s < 0 || s > indicator.max) {
      throw new RangeError(`${indicator.name}: expected an integer 0..${indicator.max}, got ${s}`);
    }
  }
  const sum = (aspect: Aspect) =>
    INDICATORS.filter((i) => i.aspect === aspect).reduce((total, i) => total + scores[i.name], 0);
  const vetoed = INDICATORS.some((i) => i.veto && scores[i.name] === 0);
  const aspects: Partial<Record<Aspect, number>> = {};
  for (const aspect of ASPECTS_OF[kind]) aspects[aspect] = aspect === "medical" && vetoed ? 0 : sum(aspect);
  return {
    aspects,
    medicalUnvetoed: sum("medical"),
    vetoed,
    total: Object.values(aspects).reduce((a, b) => a + b, 0),
    scores,
  };
}
