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

/**
 * Groups samples into conversations (single-turn samples are conversations of one), turns in order, in the order
 * each conversation first appears. Samples of one conversation share its id; single-turn samples sharing an id
 * are grouped too (never apart from a conversation of the same id).
 */
export function toConversations(samples: readonly Sample[]): Sample[][] {
  const conversations: Sample[][] = [];
  // By conversation id, and by sample id for single-turn samples: two maps, no key built per sample.
  const byConversation = new Map<string, Sample[]>();
  const bySample = new Map<string, Sample[]>();
  for (const sample of samples) {
    const [groups, id] = sample.conversation
      ? [byConversation, sample.conversation.id]
      : [bySample, sample.id];
    const turns = groups.get(id);
    if (turns) {
      turns.push(sample);
      continue;
    }
    const own = [sample];
    groups.set(id, own);
    conversations.push(own);
  }
  for (const turns of conversations) {
    if (turns.length > 1) turns.sort((a, b) => (a.conversation?.turn ?? 1) - (b.conversation?.turn ?? 1));
  }
  return conversations;
}
