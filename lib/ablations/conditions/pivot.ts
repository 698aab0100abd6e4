/**
 * `--ablation pivot:LANG`: the question is translated into LANG by the `translator` role, the model answers in
 * LANG (a task that asks for its answer language in its system message, `Task.answerLanguage`, asks for LANG
 * instead), and the answer is translated back.
 * @module
 */
import { ConfigError } from "../../core/errors.ts";
import { chatSolver } from "../../solvers/chat.ts";
import { languageName, pivotSolver } from "../../solvers/pivot.ts";
import type { ConditionEntry } from "./types.ts";

/** The pivot-translation condition. */
export const PIVOT: ConditionEntry = {
  name: "pivot",
  forms: "pivot:LANG",
  usage: () => "pivot:LANG (asked through LANG by --translator, answers translated back)",
  parse(text) {
    if (!text.startsWith("pivot:")) return undefined;
    const via = text.slice("pivot:".length);
    if (!/^[a-z]{2,3}(-[A-Za-z0-9]+)?$/.test(via)) {
      throw new ConfigError(`--ablation ${text}: expected pivot:LANG with a language code such as pivot:en`);
    }
    return { name: `pivot:${via}`, kind: "pivot", pivot: via };
  },
  needs: [],
  solver(condition, task, base) {
    const asked = task.answerLanguage
      ? chatSolver(task.answerLanguage.system.replace("{language}", languageName(condition.pivot!)))
      : base;
    return pivotSolver(asked, { via: condition.pivot!, from: task.language });
  },
  note: (condition, { task, roleLabel }) =>
    `pivot translation: ${languageName(task.language)} → ${languageName(condition.pivot!)} → ${
      languageName(task.language)
    }, question and answer translated by ${roleLabel("translator")}`,
};
