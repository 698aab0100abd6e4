/**
 * `deno task doctor`: probes an OpenAI-compatible endpoint (and a judge's) before a long run and prints a
 * one-screen report; lib/providers/doctor/ does the work. With `--benchmark`, the judge is also sent one prompt of
 * each of the benchmark's judge scorers, built here from the scorer and the shipped sample. Nothing is stored and
 * no key is printed.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import { judgeMaxTokensFlag, verdictChecks } from "./doctor_verdicts.ts";
import { requireEnv } from "../pipeline/plan_roles.ts";
import { resolveBaseUrls } from "../providers/factory.ts";
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_SECONDS } from "../providers/transport/client_options.ts";
import { checkNumber, evalOption } from "../pipeline/eval_options.ts";
import { doctorReport } from "../providers/doctor/advice.ts";
import { doctorText } from "../providers/doctor/format.ts";
import { asProfileSends } from "../providers/doctor/verdict_check.ts";
import {
  DEFAULT_PROBE_CALLS,
  PROBE_CHAT_CALLS,
  probeEndpoint,
  type ProbeTarget,
} from "../providers/doctor/probe.ts";
import { loadProfiles, profileOf } from "../providers/transport/profiles.ts";
import { redact, registerSecret } from "../providers/transport/redact.ts";
import { type CommandSpec, commandUsage, parseCommand } from "./args.ts";

/** Most chat calls `--calls` may ask for. */
const MAX_CALLS = 50;

/** The flags and help of `doctor`. */
export const DOCTOR_SPEC = {
  command: "deno task doctor",
  description: "Probes an OpenAI-compatible endpoint before a long run and prints a one-screen report: " +
    "GET /models, one chat call (served model, finish_reason, latency), whether max_tokens works or " +
    "max_completion_tokens is needed, whether temperature 0 is accepted, whether a seed makes two identical " +
    "calls agree, whether JSON mode is honoured, where reasoning comes (reasoning_content, reasoning, <think>), " +
    "whether usage is reported, latency p50/p95 and the rate-limit headers; then whether the model's profile " +
    "(data/profiles.json, --profiles) agrees, a ready-to-save profile entry when it does not or none matches, " +
    "and the eval flags to use. With --judge, the judge's endpoint gets its own section; with --benchmark too, " +
    "the judge gets one prompt of each of the benchmark's judge scorers (the scorer's own, for a sample of the " +
    "shipped data) and each line says whether the scorer reads a verdict in the reply. A parameter the " +
    "server refuses is never sent again. Nothing is stored; the key is never printed. Exit code 0 when the " +
    "endpoints answer (and the verdicts are read), 1 when a chat call fails for good (unreachable, 401, 404) " +
    "or no verdict is read from the judge, 2 for bad flags.",
  flags: {
    model: { value: "NAME", help: "the served model name to probe (required)" },
    "base-url": { value: "URL", help: "its OpenAI-compatible base URL (default $OPENAI_BASE_URL)" },
    "api-key-env": {
      value: "VAR",
      help:
        "the environment variable holding its API key (default OPENAI_API_KEY; a local server needs none)",
    },
    "api-version": {
      value: "VERSION",
      help: "Azure OpenAI's api-version (e.g. 2024-10-21): sent as a query, the key as an api-key header",
    },
    judge: { value: "NAME", help: "a judge model to probe as well, in its own section" },
    "judge-base-url": { value: "URL", help: "the judge's base URL (default: the model's)" },
    "judge-api-key-env": {
      value: "VAR",
      help:
        "the environment variable holding the judge's key (default JUDGE_API_KEY if set, else OPENAI_API_KEY)",
    },
    "judge-api-version": {
      value: "VERSION",
      help:
        "the judge's Azure OpenAI api-version (default: --api-version when it shares the model's base URL)",
    },
    benchmark: {
      value: "B",
      help:
        "check that --judge returns verdicts B's judge scorers read: one call each (B as eval takes it: " +
        "llmeval-med, permedcqa, medgpteval, or a task file)",
    },
    "role-opt": {
      value: "NAME.KEY=VALUE",
      multiple: true,
      help:
        "only judge.max-tokens=N: the judge's token limit in those calls, as in eval (default: the scorer's)",
    },
    profiles: {
      value: "FILE",
      help: "a profile file laid over data/profiles.json (its entries matched first), as eval --profiles",
    },
    timeout: {
      value: "SECONDS",
      help:
        `request timeout, as eval --timeout (default ${
          DEFAULT_TIMEOUT_MS / 1000
        }, at most ${MAX_TIMEOUT_SECONDS}); ` +
        "a slow judge's verdict checks need as long as its run's",
    },
    calls: {
      value: "N",
      help: `successful chat calls per endpoint, probes included (default ${DEFAULT_PROBE_CALLS}, ` +
        `${PROBE_CHAT_CALLS} to ${MAX_CALLS})`,
    },
    json: { help: "print the report as JSON instead of text" },
  },
  notes: [
    "example: deno task doctor --model Qwen/Qwen2.5-7B-Instruct --base-url http://localhost:8000/v1",
    "example: deno task doctor --model gpt-4o-mini --base-url https://api.openai.com/v1 --judge gpt-4o",
    "example: deno task doctor --model Qwen/Qwen2.5-7B-Instruct --base-url http://localhost:8000/v1 " +
    "--judge qwen3:8b --judge-base-url http://localhost:11434/v1 --benchmark llmeval-med",
  ],
} satisfies CommandSpec;

/** Parses `--calls`: an integer from {@linkcode PROBE_CHAT_CALLS} to {@linkcode MAX_CALLS}. */
function callsFlag(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PROBE_CALLS;
  const n = value.trim() === "" ? NaN : Number(value);
  if (!Number.isInteger(n) || n < PROBE_CHAT_CALLS || n > MAX_CALLS) {
    throw new ConfigError(
      `--calls expects an integer from ${PROBE_CHAT_CALLS} to ${MAX_CALLS} (the probes take ${PROBE_CHAT_CALLS}), got "${value}"`,
    );
  }
  return n;
}

/** Parses `--timeout` with eval's own check of it (seconds > 0, at most what a timer holds); milliseconds. */
function timeoutFlag(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  const seconds = value.trim() === "" ? NaN : Number(value);
  if (Number.isNaN(seconds)) throw new ConfigError(`--timeout expects a number, got "${value}"`);
  checkNumber(evalOption("timeout")!, seconds);
  return seconds * 1000;
}

/** Returns the one base URL of `given` (else `$OPENAI_BASE_URL`); doctor probes one endpoint per role. */
function oneBaseUrl(given: string | undefined, who: string, flag: string): string {
  const urls = resolveBaseUrls(given, who, flag);
  if (urls.length > 1) {
    throw new ConfigError(
      `${given ? flag : "OPENAI_BASE_URL"}: doctor probes one endpoint; run it once per URL`,
    );
  }
  return urls[0];
}

/**
 * Returns the key variable of a role and its key: the variable given (checked to be set), else the default
 * (which may be unset: a local server needs no key). A list `A,B` probes with the first key.
 */
function roleKey(given: string | undefined, flag: string, fallback: string): { env: string; key?: string } {
  if (given !== undefined) requireEnv(flag, given);
  const env = (given ?? fallback).split(",")[0].trim();
  const key = Deno.env.get(env) || undefined;
  registerSecret(key);
  return { env, key };
}

/**
 * `doctor`: parses the flags, probes, prints the report; returns the exit code (1 when a chat call failed or a
 * verdict check read no verdict).
 */
export async function doctorCommand(args: string[]): Promise<number> {
  const { values, positionals, help } = parseCommand(DOCTOR_SPEC, args);
  if (help) {
    console.log(commandUsage(DOCTOR_SPEC));
    return 0;
  }
  if (positionals.length) {
    throw new ConfigError(
      `doctor takes no positional arguments, got "${positionals[0]}" (flags start with --)`,
    );
  }
  if (!values.model) throw new ConfigError("--model is required: the served model name to probe");
  const judgeOnly = (["judge-base-url", "judge-api-key-env", "judge-api-version"] as const).find((flag) =>
    values[flag] !== undefined
  );
  if (!values.judge && judgeOnly) {
    throw new ConfigError(`--${judgeOnly} needs --judge NAME (the judge model to probe)`);
  }
  if (values.benchmark !== undefined && !values.judge) {
    throw new ConfigError("--benchmark needs --judge NAME (the judge whose verdicts are checked)");
  }
  const judgeMaxTokens = judgeMaxTokensFlag(values["role-opt"]);
  if (judgeMaxTokens !== undefined && values.benchmark === undefined) {
    throw new ConfigError(
      "--role-opt judge.max-tokens needs --benchmark NAME (it sets the verdict checks' limit)",
    );
  }
  const calls = callsFlag(values.calls);
  const timeoutMs = timeoutFlag(values.timeout);
  const baseUrl = oneBaseUrl(values["base-url"], "--model", "--base-url");
  const table = await loadProfiles(values.profiles);
  const checks = values.benchmark !== undefined
    ? await verdictChecks(values.benchmark, judgeMaxTokens)
    : undefined;
  const modelKey = roleKey(values["api-key-env"], "api-key-env", "OPENAI_API_KEY");
  const targets: ProbeTarget[] = [{
    role: "model",
    model: values.model,
    baseUrl,
    apiKey: modelKey.key,
    apiKeyEnv: modelKey.env,
    apiVersion: values["api-version"],
    calls,
    timeoutMs,
  }];
  if (values.judge) {
    const judgeKey = roleKey(
      values["judge-api-key-env"],
      "judge-api-key-env",
      Deno.env.get("JUDGE_API_KEY") ? "JUDGE_API_KEY" : "OPENAI_API_KEY",
    );
    const judgeBaseUrl = values["judge-base-url"]
      ? oneBaseUrl(values["judge-base-url"], "--judge", "--judge-base-url")
      : baseUrl;
    targets.push({
      role: "judge",
      model: values.judge,
      baseUrl: judgeBaseUrl,
      apiVersion: values["judge-api-version"] ??
        (judgeBaseUrl === baseUrl ? values["api-version"] : undefined),
      apiKey: judgeKey.key,
      apiKeyEnv: judgeKey.env,
      calls,
      timeoutMs,
      ...(checks ? { verdictChecks: asProfileSends(checks, profileOf(table, values.judge)) } : {}),
    });
  }
  const observations = [];
  for (const target of targets) observations.push(await probeEndpoint(target));
  const report = doctorReport(observations, table, values.profiles, judgeMaxTokens);
  console.log(redact(values.json ? JSON.stringify(report, null, 2) : doctorText(report)));
  for (const endpoint of report.endpoints) {
    const where = `error: ${endpoint.role} ${endpoint.endpoint}`;
    if (!endpoint.chat.ok) console.error(redact(`${where}: ${endpoint.chat.detail}`));
    for (const verdict of endpoint.verdicts ?? []) {
      if (verdict.status !== "read") {
        console.error(redact(`${where}: ${verdict.benchmark} ${verdict.scorer}: ${verdict.detail}`));
      }
    }
  }
  return report.usable ? 0 : 1;
}
