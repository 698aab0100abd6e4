/**
 * Per-model request shapes: which token-limit parameter a model takes, which sampling parameters it accepts
 * (and the highest temperature it honours), where it puts its reasoning, whether it honours JSON mode and
 * seeds, and which extra body parameters (`--role-opt NAME.KEY=VALUE`) it takes. The table the project ships
 * (`data/profiles.json`) with, optionally, a file of the user's laid over it (`--profiles FILE`, same layout;
 * its profiles are matched first). A model no profile matches gets {@linkcode DEFAULT_PROFILE}.
 * @module
 */
import { z } from "zod";
import { projectPath } from "../../core/fs.ts";
import { readJsonTable } from "../../core/validate.ts";

/** The sampling parameters a profile can allow (the ones requests carry). */
export const SAMPLING_PARAMETERS = ["temperature"] as const;

/** A sampling parameter a profile can allow. */
export type SamplingParameter = typeof SAMPLING_PARAMETERS[number];

const ProfileSchema = z.object({
  match: z.string().min(1),
  token_limit: z.enum(["max_tokens", "max_completion_tokens"]),
  sampling: z.array(z.enum(SAMPLING_PARAMETERS)),
  reasoning_field: z.enum(["reasoning_content", "reasoning"]).nullable().optional(),
  json_mode: z.boolean(),
  seed: z.boolean(),
  temperature_max: z.number().positive().optional(),
  extra_body: z.array(z.string().min(1)).optional(),
}).strict();

const ProfileFileSchema = z.object({
  source: z.string().optional(),
  profiles: z.array(ProfileSchema),
}).strict();

/** One profile: a model-name pattern (`*` matches any characters, case ignored) and the request shape. */
export type ModelProfile = z.infer<typeof ProfileSchema>;

/** A profile table: profiles in matching order (the first that matches a model name wins). */
export type ProfileTable = readonly ModelProfile[];

/**
 * The shape of a model no profile matches (local servers such as vLLM, SGLang, Ollama): `max_tokens`,
 * temperature, JSON mode and seed all sent, and any extra body parameter.
 */
export const DEFAULT_PROFILE: ModelProfile = {
  match: "*",
  token_limit: "max_tokens",
  sampling: ["temperature"],
  reasoning_field: null,
  json_mode: true,
  seed: true,
  extra_body: ["*"],
};

/** Where the shipped profile table lives. */
export const DEFAULT_PROFILES_PATH = projectPath("data/profiles.json");

/** Reads and validates one profile file; errors name the file and the field (an unknown field too). */
export async function readProfileFile(path: string): Promise<ModelProfile[]> {
  return (await readJsonTable(path, ProfileFileSchema, "profile table")).profiles;
}

/** Returns the shipped table with the profiles of `overridePath` (when given) placed before its own. */
export async function loadProfiles(overridePath?: string): Promise<ProfileTable> {
  const shipped = await readProfileFile(DEFAULT_PROFILES_PATH);
  return overridePath ? [...await readProfileFile(overridePath), ...shipped] : shipped;
}

/** Returns `true` when `model` matches `pattern` (`*` any characters, case ignored). */
export function matchesModel(pattern: string, model: string): boolean {
  const source = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  return new RegExp(`^${source}$`, "i").test(model);
}

/** Returns the first profile of `table` whose pattern matches `model`, else {@linkcode DEFAULT_PROFILE}. */
export function profileOf(table: ProfileTable, model: string): ModelProfile {
  return table.find((profile) => matchesModel(profile.match, model)) ?? DEFAULT_PROFILE;
}

/** Returns `true` when `profile` takes the extra body parameter `name` (its `extra_body` lists it, or `*`). */
export function takesExtra(profile: ModelProfile, name: string): boolean {
  return (profile.extra_body ?? []).some((entry) => entry === "*" || entry === name);
}
