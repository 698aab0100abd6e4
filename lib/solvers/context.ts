/**
 * Solver building blocks: a solver that sends messages built from the sample to the model, and a context
 * whose model requests are changed on their way out (how conditions such as chain of thought wrap any solver).
 * @module
 */
import type { ChatMessage } from "../core/chat.ts";
import type { Sample } from "../core/sample.ts";
import type { RoleRequest, SolveContext, Solver } from "../core/task.ts";

/** Builds the messages of one turn from the sample and the conversation so far. */
export type BuildMessages = (sample: Sample, history: readonly ChatMessage[]) => ChatMessage[];

/**
 * Returns a solver that sends the messages `build` makes to the model under test; the conversation keeps the
 * last message as actually sent and the model's reply.
 */
export function messagesSolver(
  name: string,
  templates: Record<string, string>,
  build: BuildMessages,
): Solver {
  return {
    name,
    templates,
    async solve({ sample, history }, ctx) {
      const reply = await ctx.generate("model", { messages: build(sample, history) });
      return {
        answer: reply.text,
        callKey: reply.callKey,
        turn: [reply.sent[reply.sent.length - 1], { role: "assistant", content: reply.text }],
      };
    },
  };
}

/** Returns `ctx` with every request of any role passed through `change(role, request)` on its way out. */
function changeRequests(
  ctx: SolveContext,
  change: (role: string, request: RoleRequest) => RoleRequest,
): SolveContext {
  return {
    has: (role) => ctx.has(role),
    members: (role) => ctx.members(role),
    defaults: (role) => ctx.defaults(role),
    embed: (texts) => ctx.embed(texts),
    auxiliary: (name) => ctx.auxiliary(name),
    generate: (role, request) => ctx.generate(role, change(role, request)),
  };
}

/** Returns `ctx` with every request to the `model` role passed through `change` first. */
export function changeModelRequests(
  ctx: SolveContext,
  change: (request: RoleRequest) => RoleRequest,
): SolveContext {
  return changeRequests(ctx, (role, request) => (role === "model" ? change(request) : request));
}

/**
 * Returns `ctx` with every request made for `sample` instead of the context's own sample (what offline
 * stand-ins read and key their calls on): how a solver asks a question other than its sample's, such as the
 * clean question a robustness variant is compared with.
 */
export function forSample(ctx: SolveContext, sample: Sample): SolveContext {
  return changeRequests(ctx, (_role, request) => ({ ...request, sample: request.sample ?? sample }));
}
