/**
 * Builds a provider from command-line settings: `offline:*` names give offline baselines, anything else a pool
 * of OpenAI-compatible endpoints (one per comma-separated base URL, or per key variable) whose keys are read
 * from environment variables (never from a flag). An Azure OpenAI base URL needs an `api-version`, and extra
 * body parameters must be taken by the model's profile: both are checked here, before anything is sent.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { Sample } from "../core/sample.ts";
import { EmbeddingEndpointPool, EndpointPool, type PoolEndpointConfig } from "./flow/endpoint_pool.ts";
import { GENERIC_STAND_INS, type OfflineStandIns, standInsFor } from "./offline/stand_in.ts";
import { endpointName } from "./transport/openai.ts";
import { DEFAULT_PROFILE, profileOf, type ProfileTable } from "./transport/profiles.ts";
import { checkExtraBody } from "./transport/extra_body.ts";
import type { ChatProvider } from "./types.ts";

/** Offline model names and what they are. */
export const OFFLINE_MODELS: Record<string, string> = standInsFor(GENERIC_STAND_INS, "model");

/**
 * Generic offline judge names and what they are (accepted for judge roles whose scorers can read them);
 * benchmarks register their own beside them (see `lib/benchmarks/stand_ins.ts`).
 */
export const OFFLINE_JUDGES: Record<string, string> = standInsFor(GENERIC_STAND_INS, "judge");

/** Offline translator names and what they are. */
export const OFFLINE_TRANSLATORS: Record<string, string> = standInsFor(GENERIC_STAND_INS, "translator");

/** Settings of one provider. */
export interface ProviderSettings {
  /** Model name, or an `offline:*` baseline. */
  model: string;
  /** Base URL of the OpenAI-compatible API (default `$OPENAI_BASE_URL`); several, comma-separated, make a pool. */
  baseUrl?: string;
  /**
   * Environment variable holding the API key (default `OPENAI_API_KEY`); several, comma-separated, are paired
   * with the base URLs in order, or with one base URL make one endpoint per key.
   */
  apiKeyEnv?: string;
  /** Request timeout, in milliseconds. */
  timeoutMs?: number;
  /** Requests in flight at once, per endpoint (the ceiling of its adaptive window). */
  concurrency?: number;
  /** Requests per minute, per endpoint. */
  rpm?: number;
  /** Estimated tokens (prompt + max_tokens) per minute, per endpoint. */
  tpm?: number;
  /** The flag that sets `baseUrl`, named in errors (default `--base-url`). */
  baseUrlFlag?: string;
  /** The flag that sets `apiKeyEnv`, named in errors (default: `who`). */
  apiKeyEnvFlag?: string;
  /** What the model is, in errors (default `model "NAME"`). */
  who?: string;
  /** Offline stand-ins accepted for this role (default: the offline models under test). */
  offline?: Record<string, string>;
  /** Stand-ins registered beyond the generic ones (benchmark-specific), by `offline:*` name. */
  standIns?: OfflineStandIns;
  /** `true` for an embeddings endpoint (`/embeddings`) rather than chat. */
  embeddings?: boolean;
  /** Request-shape profiles (`data/profiles.json`, `--profiles` laid over it); the model's is used. */
  profiles?: ProfileTable;
  /** Azure OpenAI's `api-version`, sent as a query with every request (the key then also as `api-key`). */
  apiVersion?: string;
  /** The flag that sets `apiVersion`, named when an Azure base URL lacks one (default `--api-version`). */
  apiVersionFlag?: string;
  /** Extra body parameters of every chat request; the model's profile must take each. */
  extraBody?: Readonly<Record<string, unknown>>;
  /** The role they are of and the flag that set them without the key (e.g. `judge`, `--role-opt judge`). */
  extraBodyOf?: { role: string; flag: string };
}

/** Hosts of Azure OpenAI resources, whose deployments need an `api-version`. */
const AZURE_HOST = /\.openai\.azure\.com$/i;

/**
 * Refuses an Azure OpenAI base URL without an `api-version` (its deployments answer 404 without one); the v1
 * API (`/openai/v1/...`) needs none. `from` names the flag that gave the URL, `flag` the one to add.
 */
function checkAzure(
  urls: readonly string[],
  apiVersion: string | undefined,
  from: string,
  flag: string,
): void {
  if (apiVersion) return;
  const azure = urls.find((url) => {
    const parsed = new URL(url);
    return AZURE_HOST.test(parsed.hostname) && !/^\/openai\/v1(\/|$)/.test(parsed.pathname);
  });
  if (azure) {
    throw new ConfigError(
      `${from}: ${azure} is an Azure OpenAI endpoint: add ${flag} VERSION (e.g. ${flag} 2024-10-21)`,
    );
  }
}

/**
 * Returns the base URLs of `baseUrl`, else of `$OPENAI_BASE_URL` (comma-separated), each checked to be an
 * http(s) URL. `who` and `flag` name what needs them and how to pass them in the {@linkcode ConfigError} thrown
 * when there are none.
 */
export function resolveBaseUrls(baseUrl: string | undefined, who: string, flag: string): string[] {
  const given = baseUrl || Deno.env.get("OPENAI_BASE_URL");
  if (!given) throw new ConfigError(`${who} needs a base URL: pass ${flag} URL or set OPENAI_BASE_URL`);
  const from = baseUrl ? flag : "OPENAI_BASE_URL";
  return given.split(",").map((entry) => {
    const url = entry.trim();
    const parsed = URL.canParse(url) ? new URL(url) : null;
    if (!parsed || !["http:", "https:"].includes(parsed.protocol) || !parsed.host) {
      throw new ConfigError(
        `${from}: "${url}" is not an http(s) URL (expected e.g. http://localhost:8000/v1)`,
      );
    }
    return url;
  });
}

/**
 * Pairs base URLs with the keys of the comma-separated variables `apiKeyEnv`: one variable serves every URL,
 * several are paired with the URLs in order, or with a single URL give one endpoint per key. `where` names the
 * flags in errors (a key's value never appears in one).
 */
function poolEndpoints(
  urls: readonly string[],
  apiKeyEnv: string,
  where: { keyFlag: string; urlFlag: string },
): PoolEndpointConfig[] {
  const variables = apiKeyEnv.split(",").map((v) => v.trim());
  if (variables.length === 1) return urls.map((baseURL) => ({ baseURL, apiKey: Deno.env.get(variables[0]) }));
  if (urls.length > 1 && urls.length !== variables.length) {
    const counts = `${urls.length} base URLs but ${variables.length} key variables`;
    const which = `${variables.join(",")} for ${where.urlFlag}`;
    throw new ConfigError(`${where.keyFlag}: ${counts} (${which}): give one variable, or one per URL`);
  }
  const keys = variables.map((name) => {
    const key = Deno.env.get(name);
    if (!name || key === undefined) {
      throw new ConfigError(`${where.keyFlag}: the key variable "${name}" (of ${apiKeyEnv}) is not set`);
    }
    return key;
  });
  if (urls.length === 1) return keys.map((apiKey) => ({ baseURL: urls[0], apiKey }));
  return urls.map((baseURL, i) => ({ baseURL, apiKey: keys[i] }));
}

/**
 * Returns the addresses (`host/path`, never credentials) of the endpoints `settings` serve, none for offline
 * names. Throws {@linkcode ConfigError} as {@linkcode createProvider} does for missing or bad base URLs.
 */
export function providerAddresses(settings: ProviderSettings): string[] {
  if (settings.model.startsWith("offline:")) return [];
  const who = settings.who ?? `model "${settings.model}"`;
  const urls = resolveBaseUrls(settings.baseUrl, who, settings.baseUrlFlag ?? "--base-url");
  return [...new Set(urls.map(endpointName))];
}

/** Returns the provider for `settings`; `corpus` feeds the retrieval baseline. Throws {@linkcode ConfigError}. */
export function createProvider(settings: ProviderSettings, corpus: readonly Sample[] = []): ChatProvider {
  const extraBody = settings.extraBody ?? {};
  const extras = Object.keys(extraBody);
  if (settings.model.startsWith("offline:")) {
    if (extras.length && settings.extraBodyOf) {
      throw new ConfigError(
        `${settings.extraBodyOf.flag}.${extras[0]}: ${settings.model} is an offline stand-in: it sends no ` +
          "request, so it takes no extra body parameter",
      );
    }
    const known = settings.offline ?? OFFLINE_MODELS;
    if (!(settings.model in known)) {
      const who = settings.who ?? "model";
      throw new ConfigError(
        `${who}: unknown offline stand-in "${settings.model}"; known: ${
          Object.keys(known).join(", ") || "none"
        }`,
      );
    }
    const standIn = settings.standIns?.[settings.model] ?? GENERIC_STAND_INS[settings.model];
    if (!standIn) {
      throw new ConfigError(`${settings.model}: no offline stand-in is registered under this name`);
    }
    return standIn.create(corpus);
  }
  const who = settings.who ?? `model "${settings.model}"`;
  const urlFlag = settings.baseUrlFlag ?? "--base-url";
  const urls = resolveBaseUrls(settings.baseUrl, who, urlFlag);
  checkAzure(
    urls,
    settings.apiVersion,
    settings.baseUrl ? urlFlag : "OPENAI_BASE_URL",
    settings.apiVersionFlag ?? "--api-version",
  );
  const profile = settings.profiles ? profileOf(settings.profiles, settings.model) : DEFAULT_PROFILE;
  if (extras.length) {
    checkExtraBody(extraBody, profile, {
      role: settings.extraBodyOf?.role ?? "model",
      model: settings.model,
      flag: settings.extraBodyOf?.flag ?? "extraBody",
    });
  }
  const Pool = settings.embeddings ? EmbeddingEndpointPool : EndpointPool;
  return new Pool({
    model: settings.model,
    endpoints: poolEndpoints(urls, settings.apiKeyEnv ?? "OPENAI_API_KEY", {
      keyFlag: settings.apiKeyEnvFlag ?? who,
      urlFlag: settings.baseUrl ? urlFlag : "OPENAI_BASE_URL",
    }),
    timeoutMs: settings.timeoutMs,
    concurrency: settings.concurrency,
    rpm: settings.rpm,
    tpm: settings.tpm,
    profile,
    extraBody,
    apiVersion: settings.apiVersion,
  });
}
