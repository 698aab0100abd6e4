/**
 * The settings of one evaluation run, as `deno task eval` flags, `reproduce` and notebooks give them. Every
 * field a flag sets is declared once, in the option table (`EVAL_OPTIONS` in `eval_options.ts`, with its flag,
 * kind, range and help), and typed from it ({@linkcode OptionFields}); this adds only what no flag sets and the
 * fields whose type is wider than their flag's. The roles (model under test, judges, translator, embeddings
 * model, a task's own) are set through `roles` and `roleOptions` (`--role`, `--role-opt`) or the flat alias
 * fields (`model`, `judge`, `judgeRuns`, `translator`, `embedModel`, ...), which planning gathers into one
 * {@linkcode RoleConfig} per role (`givenRoles` in `given_roles.ts`); ranges and defaults of every role key live
 * in `ROLE_KEYS`.
 * @module
 */
import type { RetryPolicy } from "../providers/transport/retry.ts";
import type { OptionFields } from "./eval_options.ts";
import type { RoleConfig } from "./role_keys.ts";

/** Everything `deno task eval` can be told. */
export type EvalConfig = Omit<OptionFields, "model" | "out" | "judge" | "roles"> & {
  /** Registry name, e.g. `llmeval-med`. */
  benchmark: string;
  /** Model under test (or `offline:reference` / `offline:retrieval`): `--model`, the `model` role's model. */
  model: string;
  /** Output directory (`--out`; the command line chooses one when it is not given). */
  out: string;
  /** Judge model(s) (`--judge`, repeatable): one, or several for a jury. */
  judge?: string | string[];
  /**
   * Roles by name, each a {@linkcode RoleConfig}; or, as `--role` gives them, `NAME=MODEL` strings (any role:
   * `judge=X` is `--judge X`, repeated for a jury).
   */
  roles?: string[] | Record<string, RoleConfig>;
  /** Name of the baseline condition (default `default`). */
  condition?: string;
  /** Retry policy override (tests use short delays). */
  retryPolicy?: RetryPolicy;
  /**
   * Replace a run already in `out` (the whole directory, when the run starts) instead of refusing: for runs
   * recomputed from scratch each time, such as the offline baselines of `reproduce`.
   */
  replace?: boolean;
};
