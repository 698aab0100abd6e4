/**
 * The one sample type every benchmark produces and every solver, scorer and table consumes.
 * @module
 */
import { z } from "zod";

/** A value a sample can be grouped by in tables (category, difficulty, scene, ...); `null` = not given. */
export type GroupValue = string | number | null;

/** zod schema of {@linkcode Choices}. */
export const ChoicesSchema = z.object({
  labels: z.array(z.string().min(1)).min(2),
  options: z.record(z.string(), z.string()),
  answer: z.array(z.string().min(1)).min(1),
  multiple: z.boolean(),
});

/**
 * The options of a multiple-choice item: its letters in order, each option's text, the correct letter(s), and
 * whether more than one letter may be right (`multiple`: the prompt says so and the scorer expects a set).
 */
export type Choices = z.infer<typeof ChoicesSchema>;

/** zod schema of {@linkcode Sample}. */
export const SampleSchema = z.object({
  id: z.string().min(1),
  benchmark: z.string().min(1),
  input: z.string().min(1),
  reference: z.string().nullable(),
  conversation: z.object({ id: z.string().min(1), turn: z.number().int().min(1) }).nullable(),
  fields: z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
  extra: z.record(z.string(), z.unknown()),
  choices: ChoicesSchema.optional(),
});

/**
 * One question (or one turn of a conversation) of a benchmark.
 *
 * - `id` is unique within the benchmark and stable across runs (it keys the run store).
 * - `input` is the text put to the model for this turn; `reference` the expert answer, if any.
 * - `conversation` links the turns of a multi-turn dialogue; turns are asked in `turn` order, each with the
 *   conversation so far. `null` for single-turn samples.
 * - `fields` hold the values tables group by; `extra` holds benchmark-specific data (e.g. a checklist).
 * - `choices`, on a multiple-choice item, holds its options and key (read by the shared choice scorer).
 */
export type Sample = z.infer<typeof SampleSchema>;

/** Groups samples into conversations (single-turn samples are conversations of one), turns in order. */
export function toConversations(samples: readonly Sample[]): Sample[][] {
  const byId = new Map<string, Sample[]>();
  for (const sample of samples) {
    const key = sample.conversation ? `c:${sample.conversation.id}` : `s:${sample.id}`;
    const list = byId.get(key);
    if (list) list.push(sample);
    else byId.set(key, [sample]);
  }
  const conversations = [...byId.values()];
  for (const turns of conversations) {
    turns.sort((a, b) => (a.conversation?.turn ?? 1) - (b.conversation?.turn ?? 1));
  }
  return conversations;
}
