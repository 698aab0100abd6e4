/**
 * The keys every role of a run takes — model, base URL, key variable, API version, concurrency, rate limits,
 * generation parameters, judge runs — as {@linkcode RoleConfig} holds them and `--role-opt NAME.KEY=VALUE` sets
 * them, with their ranges and their defaults: the one place a role's default lives. A `--role-opt` key that is
 * none of these is an extra body parameter of the role's requests ({@linkcode RoleConfig.extraBody}).
 * @module
 */
import { DEFAULT_CONCURRENCY } from "../providers/types.ts";

/** How one role of a run is served and called. */
export interface RoleConfig {
  /** Model name (or `offline:*`); several make a jury (the `judge` role only). */
  model?: string | string[];
  /** OpenAI-compatible base URL, or several comma-separated (default: the model's, then `$OPENAI_BASE_URL`). */
  baseUrl?: string;
  /** Environment variable(s) with its API key (default `<ROLE>_API_KEY` when set, else `OPENAI_API_KEY`). */
  apiKeyEnv?: string;
  /** Azure OpenAI's `api-version` (default: the model's, when the role is served at the model's base URL). */
  apiVersion?: string;
  /** Requests in flight, per base URL (default: the model's, then this table's default). */
  concurrency?: number;
  /** Requests per minute, per base URL (and model). */
  rpm?: number;
  /** Tokens (prompt + max tokens) per minute, per base URL (and model). */
  tpm?: number;
  /** Sampling temperature of its requests. */
  temperature?: number;
  /** Sampling seed of its requests (the judge's run r uses seed + r - 1). */
  seed?: number;
  /** New tokens per request. */
  maxTokens?: number;
  /** Judgings per answer (the `judge` role only). */
  runs?: number;
  /**
   * Extra body parameters of its chat requests, e.g. `{reasoning_effort: "low"}` (`--role-opt NAME.KEY=VALUE`
   * with a key that is no role key); the model's profile must take each. Not a key of {@linkcode ROLE_KEYS}.
   */
  extraBody?: Record<string, unknown>;
}

/** The fields of {@linkcode RoleConfig} a key of {@linkcode ROLE_KEYS} sets (all but the extra body parameters). */
export type RoleKeyField = Exclude<keyof RoleConfig, "extraBody">;

/** One key of {@linkcode RoleConfig} as `--role-opt NAME.KEY=VALUE` takes it. */
export interface RoleKey {
  /** The key as written after the role name, e.g. `base-url`. */
  key: string;
  /** The field of {@linkcode RoleConfig} it sets. */
  field: RoleKeyField;
  /** `string`, `integer` or `number`. */
  kind: "string" | "integer" | "number";
  /** Smallest allowed value (numbers). */
  min?: number;
  /** Largest allowed value (numbers). */
  max?: number;
  /** `true` when the value must be greater than `min`. */
  exclusiveMin?: boolean;
  /** The only roles that take it (default every role). */
  only?: readonly string[];
  /** Roles that never take it (e.g. generation parameters for embeddings). */
  not?: readonly string[];
  /** Default value by role (`*` for every role): the one place a role's default lives. */
  defaults?: Readonly<Record<string, number>>;
}

/** The keys every role takes, with their ranges and defaults. */
export const ROLE_KEYS: readonly RoleKey[] = [
  { key: "model", field: "model", kind: "string" },
  { key: "base-url", field: "baseUrl", kind: "string" },
  { key: "api-key-env", field: "apiKeyEnv", kind: "string" },
  { key: "api-version", field: "apiVersion", kind: "string" },
  {
    key: "concurrency",
    field: "concurrency",
    kind: "integer",
    min: 1,
    defaults: { "*": DEFAULT_CONCURRENCY },
  },
  { key: "rpm", field: "rpm", kind: "integer", min: 1 },
  { key: "tpm", field: "tpm", kind: "integer", min: 1 },
  { key: "temperature", field: "temperature", kind: "number", min: 0, max: 2, not: ["embed"] },
  { key: "seed", field: "seed", kind: "integer", min: 0, not: ["embed"], defaults: { judge: 0 } },
  { key: "max-tokens", field: "maxTokens", kind: "integer", min: 1, not: ["embed"] },
  { key: "runs", field: "runs", kind: "integer", min: 1, only: ["judge"], defaults: { judge: 3 } },
];

/** The roles with aliases of their own: the model under test, judges, translator and embeddings model. */
export const BUILT_IN_ROLES = ["model", "judge", "translator", "embed"] as const;

/** Returns the default of `field` for `role` from {@linkcode ROLE_KEYS} (`undefined` when it has none). */
export function roleDefault(role: string, field: keyof RoleConfig): number | undefined {
  const defaults = ROLE_KEYS.find((k) => k.field === field)?.defaults;
  return defaults?.[role] ?? defaults?.["*"];
}
