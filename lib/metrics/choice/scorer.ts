/**
 * The shared multiple-choice scorer: reads the chosen letter(s) from the answer with the project's extractor
 * and scores 1 when they are exactly the item's key, else 0. An answer no letter can be read from scores 0 and
 * is counted as an extraction failure (with the reason: ambiguous, not an option, no answer). Any task whose
 * samples carry {@linkcode Choices} uses it.
 * @module
 */
import type { Choices } from "../../core/sample.ts";
import type { ScoreInput, Scorer, ScoreValue } from "../../core/task.ts";
import { choiceCorrect, extractChoice } from "./extract.ts";

/** What a choice score records besides its value. */
export interface ChoiceScoreDetail {
  /** Always `accuracy`. */
  metric: "accuracy";
  /** The letters read, sorted; `null` when none could be read. */
  extracted: string[] | null;
  /** Which extraction rule decided. */
  method: string;
  /** `true` when no answer could be read. */
  extraction_failed: boolean;
  /** Why nothing could be read: `ambiguous`, `not_an_option` or `no_answer`. */
  failure?: string;
}

/** Scores one answer against an item's choices: 1 for exactly the key's letters, else 0, with what was read. */
export function scoreChoice(choices: Choices, answer: string): { value: number; detail: ChoiceScoreDetail } {
  const got = extractChoice(answer, choices.labels, choices.options);
  return {
    value: choiceCorrect(got.letters, choices.answer) ? 1 : 0,
    detail: {
      metric: "accuracy",
      extracted: got.letters,
      method: got.method,
      extraction_failed: got.letters === null,
      ...(got.failure ? { failure: got.failure } : {}),
    },
  };
}

/**
 * Returns the choice scorer (stored under `name`, default `choice`). A sample without `choices` is an error of
 * the task that uses it, not of the answer: it throws.
 */
export function choiceScorer(options: { name?: string } = {}): Scorer {
  const name = options.name ?? "choice";
  return {
    name,
    roles: [],
    score({ sample, answer }: ScoreInput): Promise<ScoreValue[]> {
      if (!sample.choices) throw new Error(`${name}: sample ${sample.id} has no choices`);
      const { value, detail } = scoreChoice(sample.choices, answer);
      return Promise.resolve([{
        judge: null,
        run: 1,
        value,
        values: { extraction_failure: detail.extraction_failed ? 1 : 0 },
        valid: true,
        reason: null,
        callKey: null,
        detail: { ...detail },
      }]);
    },
  };
}
