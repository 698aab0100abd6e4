/**
 * Pivot translation (`--ablation pivot:LANG`): the question is translated into a pivot language by the
 * `translator` role, the base solver answers the translated question, and the answer is translated back into
 * the benchmark's language before it is scored. The model's conversation keeps what it was actually sent and
 * answered (the pivot-language turns); every translation is a stored call like any other.
 * @module
 */
import type { ChatMessage } from "../core/chat.ts";
import type { Solver } from "../core/task.ts";

/** English names of the languages prompts mention; other codes are used as given. */
const LANGUAGE_NAMES: Record<string, string> = {
  en: "English",
  zh: "Chinese",
  fa: "Persian",
  ar: "Arabic",
  fr: "French",
  de: "German",
  es: "Spanish",
  ja: "Japanese",
  ko: "Korean",
  ru: "Russian",
};

/** Returns the English name of a language code (the code itself when unknown). */
export function languageName(code: string): string {
  return LANGUAGE_NAMES[code] ?? code;
}

/** The translation instruction; `{from}` and `{to}` are language names. */
export const TRANSLATE_TEMPLATE =
  "Translate the text below from {from} into {to}. Keep medical terms exact, keep numbers, units, drug " +
  "names and option letters as they are, and keep the layout (lines, lists). Reply with the translation " +
  "only, without comments.";

/** Returns the translator's messages for `text` from language `from` into `to`. */
export function translationMessages(text: string, from: string, to: string): ChatMessage[] {
  const instruction = TRANSLATE_TEMPLATE.replace("{from}", languageName(from)).replace(
    "{to}",
    languageName(to),
  );
  return [{ role: "system", content: instruction }, { role: "user", content: text }];
}

/** Options of {@linkcode pivotSolver}. */
export interface PivotOptions {
  /** The pivot language the model is asked in, e.g. `en`. */
  via: string;
  /** The benchmark's language, which answers are translated back into, e.g. `zh`. */
  from: string;
  /** Upper bound on translation tokens (default 2048). */
  maxTokens?: number;
}

/** Returns `base` asked through a pivot language by the `translator` role. */
export function pivotSolver(base: Solver, options: PivotOptions): Solver {
  const solverMaxTokens = options.maxTokens ?? 2048;
  return {
    name: `pivot:${options.via}(${base.name})`,
    templates: { ...base.templates, translate: TRANSLATE_TEMPLATE },
    roles: [...new Set(["translator", ...(base.roles ?? [])])],
    auxiliary: base.auxiliary,
    async solve(state, ctx) {
      // A limit the user set for the translator (`--role-opt translator.max-tokens=N`) wins over the solver's.
      const maxTokens = ctx.defaults("translator").maxTokens ?? solverMaxTokens;
      const question = await ctx.generate("translator", {
        messages: translationMessages(state.sample.input, options.from, options.via),
        maxTokens,
      });
      const inner = await base.solve({ ...state, sample: { ...state.sample, input: question.text } }, ctx);
      const back = await ctx.generate("translator", {
        messages: translationMessages(inner.answer, options.via, options.from),
        maxTokens,
      });
      return { answer: back.text, callKey: inner.callKey, turn: inner.turn };
    },
  };
}
