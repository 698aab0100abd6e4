/**
 * Multi-agent participant synthesis (MPS, CliMedBench §7, Algorithm 1): a synthetic examinee made of two
 * models. The model under test generates an answer (the benchmark's own solver, so the call is the baseline's
 * and is asked once), a second model (the debater role) challenges it, and the first model reflects on the
 * debate and gives the final answer, which is scored. Each ordered pair of models is one participant.
 * @module
 */
import type { ChatMessage } from "../core/chat.ts";
import type { Solver } from "../core/task.ts";

/** The debater's instruction: question, the first answer, then critique and its own answer. */
export const DEBATE_TEMPLATE =
  "You are reviewing another clinician's answer to a medical exam question. Check it step by step against " +
  "the question: point out any error in reasoning or fact, then state which answer you think is correct and " +
  "why. Keep the same answer format the question asks for.";

/** The reflection request sent back to the first model after the debate. */
export const REFLECT_TEMPLATE =
  "A colleague reviewed your answer:\n\n{debate}\n\nReflect on the review. Keep your answer if the review is " +
  "wrong, change it if the review is right. Reply in the same format the question asks for, ending with your " +
  "final answer.";

/** Returns the debater's messages for a question and the first answer. */
export function debateMessages(question: string, answer: string): ChatMessage[] {
  return [
    { role: "system", content: DEBATE_TEMPLATE },
    { role: "user", content: `Question:\n${question}\n\nAnswer under review:\n${answer}` },
  ];
}

/** Returns `base` turned into a generation → debate → reflection participant; `debater` names the second model's role. */
export function mpsSolver(base: Solver, debater = "debater"): Solver {
  return {
    name: `mps:${debater}(${base.name})`,
    templates: { ...base.templates, debate: DEBATE_TEMPLATE, reflect: REFLECT_TEMPLATE },
    roles: [...new Set([debater, ...(base.roles ?? [])])],
    auxiliary: base.auxiliary,
    async solve(state, ctx) {
      const generated = await base.solve(state, ctx);
      const debate = await ctx.generate(debater, {
        messages: debateMessages(state.sample.input, generated.answer),
        answer: generated.answer,
      });
      const reflect: ChatMessage = {
        role: "user",
        content: REFLECT_TEMPLATE.replace("{debate}", debate.text),
      };
      const reflection = await ctx.generate("model", {
        messages: [...state.history, ...generated.turn, reflect],
      });
      return {
        answer: reflection.text,
        callKey: reflection.callKey,
        turn: [...generated.turn, reflect, { role: "assistant", content: reflection.text }],
        detail: { mps: { debater, generation: generated.answer, debate: debate.text } },
      };
    },
  };
}
