/**
 * Robustness sets (`--robustness`, MedGPTEval's data sets A–E): from each source question (a task's
 * {@linkcode RobustnessSource}), `variants` rewritten questions per set — A rephrased with the same meaning and
 * B rephrased with a changed meaning (both written by the `rephraser` role: one stored call per question and
 * set, its prompt in the manifest, so a resumed run reuses it), C punctuation, D grammar and E spelling errors
 * (programmatic and seeded, {@linkcode inputErrorVariants}). Every variant is asked alone, and so is the clean
 * question (the same request as the baseline's, so it comes from the run store); a consistency judge then
 * classes the variant's answer against the clean one (R1 same meaning, R2 different but medically sound, R3
 * error). Sets A, B and C–E give the adversarial, noise and input-error success rates.
 * @module
 */
import { z } from "zod";
import type { ChatMessage } from "../core/chat.ts";
import { ConfigError } from "../core/errors.ts";
import type { Sample } from "../core/sample.ts";
import type { RobustnessSource, RoleReply, SolveContext, Solver } from "../core/task.ts";
import { jsonObjectIn } from "../judges/reply_json.ts";
import { forSample } from "../solvers/context.ts";
import { afterReasoning } from "../text/reasoning.ts";
import { type InputErrorKind, inputErrorVariants } from "../ablations/input_errors.ts";

/** How a set's variants are made. */
export type RobustnessMethod = "rephrase-same" | "rephrase-changed" | InputErrorKind;

/** The anomaly category a set measures (the paper's Table 5). */
export type RobustnessCategory = "ASR" | "NSR" | "IESR";

/** One robustness set. */
export interface RobustnessSet {
  /** `A` … `E`. */
  id: string;
  /** How its variants are made. */
  method: RobustnessMethod;
  /** Its anomaly category. */
  category: RobustnessCategory;
  /** What it is, for tables. */
  label: string;
}

/** The five sets of MedGPTEval. */
export const ROBUSTNESS_SETS: readonly RobustnessSet[] = [
  { id: "A", method: "rephrase-same", category: "ASR", label: "rephrased, same meaning" },
  { id: "B", method: "rephrase-changed", category: "NSR", label: "rephrased, changed meaning" },
  { id: "C", method: "punctuation", category: "IESR", label: "punctuation errors" },
  { id: "D", method: "grammar", category: "IESR", label: "grammatical errors" },
  { id: "E", method: "spelling", category: "IESR", label: "spelling errors" },
];

/** Names of the anomaly categories. */
export const ROBUSTNESS_CATEGORIES: Readonly<Record<RobustnessCategory, string>> = {
  ASR: "adversarial success rate",
  NSR: "noise success rate",
  IESR: "input error success rate",
};

/** Variants per source question and set (the paper's ten). */
export const DEFAULT_VARIANTS = 10;

/** The role that writes the rephrased sets A and B. */
export const REPHRASER = "rephraser";

/** Sample field holding a variant's set (`A` … `E`). */
export const SET_FIELD = "robustness_set";

/** Sample field holding a variant's anomaly category. */
export const CATEGORY_FIELD = "robustness_category";

/** What `--robustness` asks for. */
export interface RobustnessOptions {
  /** Set ids, in order. */
  sets: readonly string[];
  /** Variants per source question and set. */
  variants: number;
  /** Seed of the programmatic errors. */
  seed: string;
}

/** Parses `--robustness-sets` (`ABCDE`, `A,C,E`, `all`) into set ids. Throws {@linkcode ConfigError}. */
export function parseRobustnessSets(text: string): string[] {
  if (text.trim().toLowerCase() === "all") return ROBUSTNESS_SETS.map((s) => s.id);
  const ids = [...text.toUpperCase().replace(/[\s,]/g, "")];
  const unknown = ids.filter((id) => !ROBUSTNESS_SETS.some((s) => s.id === id));
  if (ids.length === 0 || unknown.length) {
    throw new ConfigError(
      `--robustness-sets: expected letters among A-E (e.g. ABCDE or C,D,E) or all, got "${text}"`,
    );
  }
  return ROBUSTNESS_SETS.map((s) => s.id).filter((id) => ids.includes(id));
}

/** Returns the set with id `id`. */
export function robustnessSet(id: string): RobustnessSet {
  const set = ROBUSTNESS_SETS.find((s) => s.id === id);
  if (!set) throw new ConfigError(`unknown robustness set "${id}" (known: A-E)`);
  return set;
}

/** What a variant sample carries in `extra.robustness`. */
export interface VariantInfo {
  /** Its set. */
  set: string;
  /** 1-based variant number within its set and source. */
  index: number;
  /** The clean question it is made from, as a sample (asked the same way as in the baseline). */
  source: Sample;
  /** For C–E, the edits that made it; for A and B, empty (the rephraser writes the text at run time). */
  edits: string[];
}

/** Returns the variant information of `sample`, or `undefined` when it is not a robustness variant. */
export function variantOf(sample: Sample): VariantInfo | undefined {
  return sample.extra.robustness as VariantInfo | undefined;
}

/** Returns the id of variant `index` of set `set` made from `sourceId`, e.g. `medgpteval:dialogue-01:1~A03`. */
export function variantId(sourceId: string, set: string, index: number): string {
  return `${sourceId}~${set}${String(index).padStart(2, "0")}`;
}

/** Returns the samples robustness variants are made from: those whose fields hold all of `source.where`'s values. */
export function robustnessSources(source: RobustnessSource, samples: readonly Sample[]): Sample[] {
  const wanted = Object.entries(source.where);
  return samples.filter((s) => wanted.every(([field, value]) => s.fields[field] === value));
}

/**
 * Returns the variant samples of `sources`: per source and set, `variants` samples, each asked alone. C–E
 * inputs are the erroneous questions; A and B inputs are the source question until the rephraser's text
 * replaces it at run time (the text asked is recorded with the answer).
 */
export function robustnessSamples(sources: readonly Sample[], options: RobustnessOptions): Sample[] {
  const out: Sample[] = [];
  for (const source of sources) {
    for (const id of options.sets) {
      const set = robustnessSet(id);
      const texts = set.method === "rephrase-same" || set.method === "rephrase-changed"
        ? Array.from({ length: options.variants }, () => ({ text: source.input, edits: [] as string[] }))
        : inputErrorVariants(
          source.input,
          set.method,
          options.variants,
          `${options.seed}:${source.id}:${id}`,
        );
      texts.forEach((variant, i) => {
        const info: VariantInfo = { set: id, index: i + 1, source, edits: variant.edits };
        out.push({
          id: variantId(source.id, id, i + 1),
          benchmark: source.benchmark,
          input: variant.text,
          reference: source.reference,
          conversation: null,
          fields: { ...source.fields, [SET_FIELD]: id, [CATEGORY_FIELD]: set.category },
          extra: { robustness: info },
        });
      });
    }
  }
  return out;
}

/** The rephraser's instructions for set A (same meaning); `{n}` is the number of rephrasings. */
export const REPHRASE_SAME_TEMPLATE = [
  "You rewrite patients' questions to test how consistently a medical chatbot answers. Rewrite the question",
  "below in {n} different ways that keep exactly its meaning: the same facts, symptoms, numbers, medicines and",
  "the same request. Change the wording and the sentence structure; write like a patient, in the language of",
  "the question. Every rewrite must differ from the question and from the other rewrites.",
  'Reply with one JSON object only: {"variants": ["...", "..."]}',
].join(" ");

/** The rephraser's instructions for set B (changed meaning); `{n}` is the number of rephrasings. */
export const REPHRASE_CHANGED_TEMPLATE = [
  "You rewrite patients' questions to test how consistently a medical chatbot answers. Rewrite the question",
  "below in {n} different ways, each of which changes its meaning: alter a fact, a symptom, a number, the time",
  "course, a medicine or what is asked, so that a careful doctor would answer it differently, while it stays a",
  "plausible patient question on the same topic, in the language of the question. Every rewrite must differ",
  "from the question and from the other rewrites.",
  'Reply with one JSON object only: {"variants": ["...", "..."]}',
].join(" ");

/** Returns the rephraser's messages asking for `count` rewrites of `question` for set `set` (A or B). */
export function rephraseMessages(question: string, set: string, count: number): ChatMessage[] {
  const template = robustnessSet(set).method === "rephrase-same"
    ? REPHRASE_SAME_TEMPLATE
    : REPHRASE_CHANGED_TEMPLATE;
  return [
    { role: "system", content: template.replace("{n}", String(count)) },
    { role: "user", content: question },
  ];
}

const RephrasingsSchema = z.object({ variants: z.array(z.string()) });

/** Returns the comparison key of a question (whitespace removed, NFKC). */
function questionKey(text: string): string {
  return text.normalize("NFKC").replace(/\s+/g, "");
}

/**
 * Returns the first `count` usable rewrites in a rephraser's reply (non-empty, different from `question` and
 * from each other), or the reason the reply is unusable.
 */
export function parseRephrasings(
  reply: string,
  question: string,
  count: number,
): { variants: string[] } | { error: string } {
  const parsed = RephrasingsSchema.safeParse(jsonObjectIn(afterReasoning(reply)));
  if (!parsed.success) return { error: 'no JSON object {"variants": [...]} of strings' };
  const seen = new Set([questionKey(question)]);
  const variants: string[] = [];
  for (const text of parsed.data.variants.map((v) => v.trim())) {
    const key = questionKey(text);
    if (key.length === 0 || seen.has(key)) continue;
    seen.add(key);
    variants.push(text);
  }
  return variants.length >= count ? { variants: variants.slice(0, count) } : {
    error: `${variants.length} usable rewrites of ${count} asked (empty, repeated or unchanged ones dropped)`,
  };
}

/** Rephraser calls per question and set before the variants count as failed. */
const REPHRASE_ATTEMPTS = 3;

/** The rewrites of `question` for `set` and the calls that gave them (the same calls for every variant). */
async function rephrasings(
  ctx: SolveContext,
  question: string,
  set: string,
  count: number,
): Promise<{ variants: string[]; reply: RoleReply }> {
  let reason = "";
  for (let attempt = 0; attempt < REPHRASE_ATTEMPTS; attempt++) {
    const reply = await ctx.generate(REPHRASER, {
      messages: rephraseMessages(question, set, count),
      repeat: attempt,
      maxTokens: ctx.defaults(REPHRASER).maxTokens ?? 4096,
    });
    const parsed = parseRephrasings(reply.text, question, count);
    if ("variants" in parsed) return { variants: parsed.variants, reply };
    reason = parsed.error;
  }
  throw new Error(`rephraser: no usable set ${set} after ${REPHRASE_ATTEMPTS} calls (${reason})`);
}

/** Options of {@linkcode robustnessSolver}. */
export interface RobustnessSolverOptions {
  /** Variants per source question and set (how many rewrites the rephraser is asked for). */
  variants: number;
  /** Whether any set is rephrased (then the solver calls the `rephraser` role). */
  rephrased: boolean;
}

/**
 * Returns `inner` able to answer robustness variants: a variant's clean question is asked as the baseline asks
 * it (the stored answer when the baseline ran), then the variant alone; the answer scored is the variant's, and
 * the clean answer, the text asked and the calls are recorded in `detail.robustness` for the consistency judge.
 * Other samples go to `inner` unchanged.
 */
export function robustnessSolver(inner: Solver, options: RobustnessSolverOptions): Solver {
  return {
    name: `robustness(${inner.name})`,
    templates: {
      ...inner.templates,
      ...(options.rephrased
        ? { rephrase_same: REPHRASE_SAME_TEMPLATE, rephrase_changed: REPHRASE_CHANGED_TEMPLATE }
        : {}),
    },
    roles: [...new Set([...(inner.roles ?? []), ...(options.rephrased ? [REPHRASER] : [])])],
    auxiliary: inner.auxiliary,
    async solve(state, ctx) {
      const info = variantOf(state.sample);
      if (!info) return await inner.solve(state, ctx);
      const clean = await inner.solve({ sample: info.source, history: [] }, forSample(ctx, info.source));
      let text = state.sample.input;
      let rephraseCall: string | null = null;
      const method = robustnessSet(info.set).method;
      if (method === "rephrase-same" || method === "rephrase-changed") {
        const { variants, reply } = await rephrasings(ctx, info.source.input, info.set, options.variants);
        text = variants[info.index - 1];
        rephraseCall = reply.callKey;
      }
      const asked = { ...state.sample, input: text };
      const answered = await inner.solve({ sample: asked, history: [] }, forSample(ctx, asked));
      return {
        ...answered,
        detail: {
          ...answered.detail,
          robustness: {
            set: info.set,
            index: info.index,
            question: text,
            original: info.source.input,
            clean_answer: clean.answer,
            clean_call: clean.callKey,
            ...(rephraseCall ? { rephrase_call: rephraseCall } : {}),
            ...(info.edits.length ? { edits: info.edits } : {}),
          },
        },
      };
    },
  };
}

/**
 * Returns `solver` as a run with robustness sets uses it: wrapped by {@linkcode robustnessSolver} when
 * `robustness` is given (calling the rephraser when any set is rephrased), else unchanged.
 */
export function withRobustness(solver: Solver, robustness?: RobustnessOptions): Solver {
  if (!robustness) return solver;
  return robustnessSolver(solver, {
    variants: robustness.variants,
    rephrased: robustness.sets.some((id) => robustnessSet(id).method.startsWith("rephrase")),
  });
}

/** What the solver recorded for a variant's answer (`detail.robustness`). */
export interface VariantDetail {
  /** Set id. */
  set: string;
  /** Variant number. */
  index: number;
  /** The question asked. */
  question: string;
  /** The clean question. */
  original: string;
  /** The answer to the clean question. */
  clean_answer: string;
}

/** Returns the robustness detail a solver recorded, or `undefined`. */
export function variantDetail(
  detail: Readonly<Record<string, unknown>> | undefined,
): VariantDetail | undefined {
  return detail?.robustness as VariantDetail | undefined;
}
