/**
 * What `deno task doctor` concludes from its observations: whether the model's profile (data/profiles.json, with
 * `--profiles` laid over it) agrees with what the server did, the profile entries to save when it does not (or
 * when none matches), notes on what an evaluation will see, and the eval flags to use.
 * @module
 */
import {
  DEFAULT_PROFILE,
  matchesModel,
  type ModelProfile,
  type ProfileTable,
} from "../transport/profiles.ts";
import type { EndpointObservation } from "./observation.ts";
import { PROBE_MAX_TOKENS } from "./probe.ts";

/** The name the report suggests for a profile file when `--profiles` was not given. */
export const SUGGESTED_PROFILES_FILE = "doctor-profiles.json";

/** Token limit the report suggests for a model that reasons or whose replies were cut. */
export const REASONING_MAX_TOKENS = 4096;

/** A profile field whose observed value differs from the profile in effect. */
export interface ProfileDifference {
  /** The profile field. */
  field: keyof ModelProfile;
  /** What the profile says. */
  profile: unknown;
  /** What the server did. */
  observed: unknown;
}

/** The profile in effect for a model and how it compares with what the server did. */
export interface ProfileVerdict {
  /** The pattern of the profile that matches the model; `null` when none does (the default shape applies). */
  matched: string | null;
  /** The profile in effect. */
  profile: ModelProfile;
  /** The profile fields the probes settled, as a profile states them. */
  observed: Partial<ModelProfile>;
  /** The fields where the two differ. */
  differences: ProfileDifference[];
  /** `true` when no settled field differs. */
  agrees: boolean;
  /** The entry to save when no profile matches or the one that matches disagrees; else `null`. */
  suggested: ModelProfile | null;
}

/** One endpoint's observation with its verdict and notes. */
export interface EndpointReport extends EndpointObservation {
  /** The profile check (`null` when the chat call failed and nothing was probed). */
  profile: ProfileVerdict | null;
  /** What an evaluation against this endpoint will see, one line each. */
  notes: string[];
}

/** A `--profiles` file, laid out as data/profiles.json. */
export interface ProfileFile {
  /** Where the entries come from. */
  source: string;
  /** The entries. */
  profiles: ModelProfile[];
}

/** The whole report of `deno task doctor`. */
export interface DoctorReport {
  /** `true` when every endpoint answered a chat call and every verdict check (`--benchmark`) read its verdict. */
  usable: boolean;
  /** The model's endpoint, then the judge's when given. */
  endpoints: EndpointReport[];
  /** The entries to save (as {@linkcode DoctorReport.profilesPath}); `null` when every profile agrees. */
  profileFile: ProfileFile | null;
  /** Where the profile entries go: the `--profiles` file given, else {@linkcode SUGGESTED_PROFILES_FILE}. */
  profilesPath: string;
  /** The flags of `deno task eval` for these endpoints. */
  evalFlags: string[];
}

/** Returns the profile fields the observation settles (a field the probes could not settle is left out). */
export function observedProfile(observation: EndpointObservation): Partial<ModelProfile> {
  const out: Partial<ModelProfile> = {};
  const { tokenLimit, temperature, reasoning, jsonMode, seed } = observation;
  if (tokenLimit.status === "max_tokens" || tokenLimit.status === "max_completion_tokens") {
    out.token_limit = tokenLimit.status;
  }
  if (temperature.status === "accepted") out.sampling = ["temperature"];
  if (temperature.status === "default only") out.sampling = [];
  // A reasoning field not seen is not settled: the prompt may not have made the model reason.
  if (reasoning.status === "reasoning_content" || reasoning.status === "reasoning") {
    out.reasoning_field = reasoning.status;
  }
  if (jsonMode.status === "honoured") out.json_mode = true;
  if (jsonMode.status === "ignored" || jsonMode.status === "refused") out.json_mode = false;
  if (seed.status === "honoured") out.seed = true;
  if (seed.status === "not honoured" || seed.status === "refused") out.seed = false;
  return out;
}

/** Compares the profile `table` gives the observed model with what the server did. */
export function profileVerdict(observation: EndpointObservation, table: ProfileTable): ProfileVerdict {
  const match = table.find((profile) => matchesModel(profile.match, observation.model));
  const profile = match ?? DEFAULT_PROFILE;
  const observed = observedProfile(observation);
  const differences: ProfileDifference[] = [];
  for (const [field, value] of Object.entries(observed) as [keyof ModelProfile, unknown][]) {
    const stated = profile[field] ?? null;
    if (JSON.stringify(stated) !== JSON.stringify(value)) {
      differences.push({ field, profile: stated, observed: value });
    }
  }
  const agrees = differences.length === 0;
  // Every field of the profile in effect is kept (those the probes cannot see too); the observed ones win.
  const { match: _pattern, ...stated } = profile;
  const suggested: ModelProfile | null = match && agrees
    ? null
    : { match: observation.model, ...stated, reasoning_field: stated.reasoning_field ?? null, ...observed };
  return { matched: match?.match ?? null, profile, observed, differences, agrees, suggested };
}

/**
 * Whether a model's replies need more room than a benchmark's default token limit may give: some were cut, it
 * shows reasoning, or it takes `max_completion_tokens` (OpenAI's reasoning models, whose hidden reasoning counts
 * against it).
 */
function needsRoom(observation: EndpointObservation): boolean {
  return observation.cutReplies > 0 || observation.tokenLimit.status === "max_completion_tokens" ||
    showsReasoning(observation);
}

/** Whether any reply carried reasoning (in a field of its own or in `<think>` tags). */
function showsReasoning(observation: EndpointObservation): boolean {
  return observation.reasoning.status !== "none seen" && observation.reasoning.status !== "not run";
}

/** What an evaluation against the endpoint will see, one line each. */
export function endpointNotes(observation: EndpointObservation): string[] {
  if (!observation.chat.ok) return [];
  const notes: string[] = [];
  const { models, chat, usage, seed, jsonMode, tokenLimit, temperature } = observation;
  if (models.status === "listed" && models.includesModel === false) {
    notes.push(
      `/models does not list ${observation.model}${models.closest ? ` (closest: ${models.closest})` : ""}`,
    );
  }
  if (chat.servedModel && chat.servedModel !== observation.model) {
    notes.push(
      `the server answered as ${chat.servedModel} (an alias or a dated snapshot of ${observation.model})`,
    );
  }
  if (showsReasoning(observation)) {
    notes.push(
      observation.role === "model"
        ? `reasoning counts against the token limit: give --max-tokens room (e.g. ${REASONING_MAX_TOKENS})`
        : "reasoning counts against the judge's token limit",
    );
  }
  if (observation.cutReplies > 0) {
    const replies = observation.cutReplies === 1
      ? "1 probe reply was"
      : `${observation.cutReplies} probe replies were`;
    notes.push(`${replies} cut at ${PROBE_MAX_TOKENS} tokens (finish_reason length)`);
  }
  if (usage.status === "missing" || usage.status === "partial") {
    notes.push('usage missing: token counts and costs will say "unknown"');
  }
  if (seed.status === "not honoured" || seed.status === "refused") {
    notes.push("a seed does not make replies repeatable: repeated runs measure the spread");
  }
  if (jsonMode.status === "ignored" || jsonMode.status === "refused") {
    notes.push(`JSON mode ${jsonMode.status}: replies are parsed from plain text`);
  }
  if (tokenLimit.status === "neither") notes.push("no token limit is accepted: replies may run long");
  if (temperature.status === "default only") {
    notes.push("temperature is left at the server's default (--temperature is not sent)");
  }
  return notes;
}

/** Returns `true` when the endpoint answered and every verdict check on it read its verdict. */
export function endpointUsable(endpoint: EndpointObservation): boolean {
  return endpoint.chat.ok && (endpoint.verdicts ?? []).every((v) => v.status === "read");
}

/**
 * Returns the flags of `deno task eval` for the observed endpoints (model first, then the judge); `judgeMaxTokens`
 * is the judge's token limit doctor was given (`--role-opt judge.max-tokens=N`), repeated for eval.
 */
export function evalFlags(
  endpoints: readonly EndpointReport[],
  profilesFlag: string | undefined,
  judgeMaxTokens?: number,
): string[] {
  const flags: string[] = [];
  const model = endpoints.find((e) => e.role === "model");
  for (const endpoint of endpoints) {
    const judge = endpoint.role === "judge";
    flags.push(judge ? "--judge" : "--model", endpoint.model);
    flags.push(judge ? "--judge-base-url" : "--base-url", endpoint.baseUrl);
    if (endpoint.keySet) flags.push(judge ? "--judge-api-key-env" : "--api-key-env", endpoint.apiKeyEnv);
    // A judge at the model's base URL takes the model's api-version in eval too.
    const inherited = judge && endpoint.baseUrl === model?.baseUrl &&
      endpoint.apiVersion === model?.apiVersion;
    if (endpoint.apiVersion && !inherited) {
      flags.push(judge ? "--judge-api-version" : "--api-version", endpoint.apiVersion);
    }
    if (!judge && endpoint.chat.ok && needsRoom(endpoint)) {
      flags.push("--max-tokens", String(REASONING_MAX_TOKENS));
    }
    if (judge && judgeMaxTokens !== undefined) flags.push("--role-opt", `judge.max-tokens=${judgeMaxTokens}`);
  }
  if (profilesFlag) flags.push("--profiles", profilesFlag);
  return flags;
}

/**
 * Builds the report of the observed endpoints against the profile `table`; `profilesPath` is the `--profiles`
 * file given, if any (suggested entries go into it, first); `judgeMaxTokens` the judge's token limit given.
 */
export function doctorReport(
  observations: readonly EndpointObservation[],
  table: ProfileTable,
  profilesPath?: string,
  judgeMaxTokens?: number,
): DoctorReport {
  const endpoints: EndpointReport[] = observations.map((observation) => ({
    ...observation,
    profile: observation.chat.ok ? profileVerdict(observation, table) : null,
    notes: endpointNotes(observation),
  }));
  const suggested = endpoints.map((e) => e.profile?.suggested).filter((p): p is ModelProfile => Boolean(p));
  // Two endpoints of the same model name need one entry.
  const unique = suggested.filter((p, i) => suggested.findIndex((q) => q.match === p.match) === i);
  const profileFile = unique.length
    ? {
      source: `deno task doctor, observed at ${endpoints.map((e) => e.endpoint).join(" and ")}`,
      profiles: unique,
    }
    : null;
  const path = profilesPath ?? SUGGESTED_PROFILES_FILE;
  return {
    usable: endpoints.every(endpointUsable),
    endpoints,
    profileFile,
    profilesPath: path,
    evalFlags: evalFlags(endpoints, profileFile || profilesPath ? path : undefined, judgeMaxTokens),
  };
}
