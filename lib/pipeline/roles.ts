/**
 * The run's roles, each served by one or more providers through one {@linkcode Caller} each: the same run
 * store cache, limiter, retries and counts for the model under test, judges, translators, embeddings and any
 * role a task declares. Solvers and scorers reach them through the per-sample context this builds.
 * @module
 */
import { GENERATION_KEYS, type GenerationParams } from "../core/chat.ts";
import type { Sample } from "../core/sample.ts";
import type { RoleMember, RoleRequest, ScoreContext, SolveContext } from "../core/task.ts";
import { Caller, type CallerHooks, type CallerStats } from "../providers/caller.ts";
import type { RetryPolicy } from "../providers/transport/retry.ts";
import type { ChatProvider, ChatRequest } from "../providers/types.ts";
import type { Progress } from "../report/progress.ts";
import type { Budget } from "../providers/accounting/spend.ts";
import type { StoredCall } from "../core/records.ts";
import type { RunStore } from "../store/run_store.ts";

/** A role as planned: its providers (several for a jury) and its default generation parameters. */
export interface RolePlan {
  /** Role name: `model`, `judge`, `translator`, `embed`, or a task's own. */
  name: string;
  /** The providers serving it, in the order given. */
  providers: ChatProvider[];
  /** Parameters of every request unless the request sets them. */
  defaults: GenerationParams;
}

/** Returns the parameters of `request` that are set (so unset ones never override a role's defaults). */
function setParams(request: RoleRequest): GenerationParams {
  return Object.fromEntries(
    GENERATION_KEYS.filter((key) => request[key] !== undefined).map((key) => [key, request[key]]),
  );
}

/** The callers of a run's roles. */
export class Roles {
  readonly #callers = new Map<string, Caller[]>();
  readonly #defaults = new Map<string, GenerationParams>();

  /**
   * Opens one caller per provider of every planned role over `store`; every call sent is added to `budget`
   * (when given) and its totals shown by `progress`.
   */
  constructor(
    plans: readonly RolePlan[],
    store: RunStore,
    retry: RetryPolicy,
    progress?: Progress,
    budget?: Budget,
  ) {
    const hooks: CallerHooks = budget
      ? {
        onSent: (call: StoredCall) => {
          budget.addCall(call);
          progress?.spent(budget.tokens, budget.knownCost, budget.prices.currency);
        },
        stop: () => budget.exceeded(),
      }
      : {};
    for (const plan of plans) {
      this.#callers.set(
        plan.name,
        plan.providers.map((p) => new Caller(p, store, plan.name, retry, progress, hooks)),
      );
      this.#defaults.set(plan.name, plan.defaults);
    }
  }

  /** Returns `true` when `role` is configured. */
  has(role: string): boolean {
    return this.#callers.has(role);
  }

  /** Returns the models serving `role`; throws when it is not configured. */
  members(role: string): readonly RoleMember[] {
    return this.#callersOf(role).map((c) => c.provider);
  }

  /** Returns how many requests the run's roles can have in flight at once (their providers' limits summed). */
  capacity(): number {
    let sum = 0;
    for (const callers of this.#callers.values()) for (const c of callers) sum += c.provider.concurrency;
    return sum;
  }

  /**
   * Returns how many calls every role has sent and had answered so far (as {@linkcode stats} counts them: replies
   * from the store and failed calls not counted).
   */
  sent(): number {
    let sent = 0;
    for (const callers of this.#callers.values()) for (const { stats } of callers) sent += stats.sent;
    return sent;
  }

  /** Returns the calls answered from the store, sent and retried, per role (summed over its models). */
  stats(): Record<string, CallerStats> {
    const out: Record<string, CallerStats> = {};
    for (const [role, callers] of this.#callers) {
      const sum: CallerStats = { cached: 0, sent: 0, retries: 0, failed: 0 };
      for (const { stats } of callers) {
        sum.cached += stats.cached;
        sum.sent += stats.sent;
        sum.retries += stats.retries;
        sum.failed += stats.failed;
      }
      out[role] = sum;
    }
    return out;
  }

  /** Returns the context solvers and scorers get for `sample` (in `condition`, recorded with the calls sent). */
  context(
    sample: Sample,
    judgeRuns: number,
    auxiliary: ReadonlyMap<string, readonly Sample[]>,
    condition?: string,
  ): SolveContext & ScoreContext {
    return {
      judgeRuns,
      has: (role) => this.has(role),
      members: (role) => this.members(role),
      defaults: (role) => this.#defaults.get(role) ?? {},
      auxiliary: (name) => {
        const samples = auxiliary.get(name);
        if (!samples) throw new Error(`no auxiliary input "${name}" in this run`);
        return samples;
      },
      generate: async (role, request) => {
        const callers = this.#callersOf(role);
        const caller = callers[request.member ?? 0];
        if (!caller) throw new Error(`role "${role}" has no model number ${request.member}`);
        const chat: ChatRequest = {
          ...this.#defaults.get(role),
          ...setParams(request),
          messages: request.messages,
          sample: request.sample ?? sample,
          ...(request.answer !== undefined ? { answer: request.answer } : {}),
        };
        const { call, cached } = await caller.call(chat, request.repeat ?? 0, condition);
        return { text: call.text, callKey: call.key, cached, sent: request.messages };
      },
      embed: (texts) => {
        const [caller] = this.#callersOf("embed");
        return Promise.all(texts.map((text) => caller.embed(text)));
      },
    };
  }

  #callersOf(role: string): Caller[] {
    const callers = this.#callers.get(role);
    if (!callers) throw new Error(`role "${role}" is not configured for this run`);
    return callers;
  }
}
