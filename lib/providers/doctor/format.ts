/**
 * The one-screen text of `deno task doctor`: one section per endpoint (each probe on one line, the judge's
 * verdict checks, the profile check, notes), then whether the endpoints can be used, the profile entries to save
 * and the eval flags.
 * @module
 */
import type { DoctorReport, EndpointReport, ProfileFile, ProfileVerdict } from "./advice.ts";

/** Width of the label column. */
const LABEL = 13;

function line(label: string, text: string): string {
  return `  ${label.padEnd(LABEL)} ${text}`;
}

/** `requests 500 (499 left, reset 1s), tokens 30000 (29985 left), retry-after 2`, or `none sent`. */
export function rateLimitText(headers: Record<string, string>): string {
  const parts: string[] = [];
  for (const kind of ["requests", "tokens"]) {
    const limit = headers[`x-ratelimit-limit-${kind}`];
    const remaining = headers[`x-ratelimit-remaining-${kind}`];
    const reset = headers[`x-ratelimit-reset-${kind}`];
    if (limit === undefined && remaining === undefined && reset === undefined) continue;
    const more = [
      remaining !== undefined ? `${remaining} left` : "",
      reset !== undefined ? `reset ${reset}` : "",
    ]
      .filter(Boolean).join(", ");
    parts.push(`${kind} ${limit ?? "?"}${more ? ` (${more})` : ""}`);
  }
  for (const name of ["retry-after", "retry-after-ms"]) {
    if (headers[name] !== undefined) parts.push(`${name} ${headers[name]}`);
  }
  return parts.length ? parts.join(", ") : "none sent";
}

function profileText(verdict: ProfileVerdict): string {
  const differences = verdict.differences.map((d) =>
    `${d.field}: profile ${JSON.stringify(d.profile)}, observed ${JSON.stringify(d.observed)}`
  ).join("; ");
  if (verdict.matched === null) {
    return `no profile matches: the default shape applies and ${
      verdict.agrees
        ? "agrees with what the server did (the entry below pins it)"
        : `disagrees (${differences})`
    }`;
  }
  return `"${verdict.matched}" matches and ${
    verdict.agrees ? "agrees with what the server did" : `disagrees (${differences})`
  }`;
}

/** A profile file as JSON with one entry per line (valid JSON, short enough for one screen). */
export function profileFileText(file: ProfileFile): string {
  const entries = file.profiles.map((profile) =>
    `    {${Object.entries(profile).map(([key, value]) => `"${key}": ${JSON.stringify(value)}`).join(", ")}}`
  );
  return `{\n  "source": ${JSON.stringify(file.source)},\n  "profiles": [\n${entries.join(",\n")}\n  ]\n}`;
}

/** The section of one endpoint. */
export function endpointText(endpoint: EndpointReport): string[] {
  const key = endpoint.keySet
    ? `key from $${endpoint.apiKeyEnv}`
    : `no key: $${endpoint.apiKeyEnv} is not set`;
  const version = endpoint.apiVersion ? `, api-version ${endpoint.apiVersion}` : "";
  const lines = [`${endpoint.role}: ${endpoint.endpoint} (${key}${version})`];
  lines.push(line("/models", endpoint.models.detail));
  lines.push(line("chat", endpoint.chat.ok ? endpoint.chat.detail : `FAILED: ${endpoint.chat.detail}`));
  if (!endpoint.chat.ok) return lines;
  const { latency } = endpoint;
  lines.push(
    line("token limit", endpoint.tokenLimit.detail),
    line("temperature", endpoint.temperature.detail),
    line("seed", endpoint.seed.detail),
    line("JSON mode", endpoint.jsonMode.detail),
    line("reasoning", endpoint.reasoning.detail),
    line("usage", endpoint.usage.detail),
    line(
      "latency",
      `p50 ${latency.p50Ms} ms, p95 ${latency.p95Ms} ms over ${latency.calls} calls ` +
        `(${endpoint.requests} requests in all)`,
    ),
    line("rate limits", rateLimitText(endpoint.rateLimits)),
  );
  for (const verdict of endpoint.verdicts ?? []) {
    lines.push(line("verdict", `${verdict.benchmark} ${verdict.scorer}: ${verdict.detail}`));
  }
  if (endpoint.role === "judge" && !endpoint.verdicts) {
    lines.push(
      line("verdict", "not checked: --benchmark NAME sends one prompt of each of its judge scorers"),
    );
  }
  if (endpoint.profile) lines.push(line("profile", profileText(endpoint.profile)));
  for (const note of endpoint.notes) lines.push(line("note", note));
  return lines;
}

/** The whole report as text. */
export function doctorText(report: DoctorReport): string {
  const lines: string[] = [];
  for (const endpoint of report.endpoints) lines.push(...endpointText(endpoint), "");
  const failed = report.endpoints.filter((e) => !e.chat.ok).map((e) => e.role);
  const verdicts = report.endpoints.flatMap((e) => e.verdicts ?? []);
  const unread = verdicts.filter((v) => v.status !== "read").map((v) => `${v.benchmark} ${v.scorer}`);
  if (!report.usable) {
    const reasons = [
      ...(failed.length ? [`the chat call of the ${failed.join(" and ")} failed`] : []),
      ...(unread.length ? [`no verdict was read from the judge for ${unread.join(", ")}`] : []),
    ];
    lines.push(`not usable: ${reasons.join("; ")} (see above)`);
    return lines.join("\n");
  }
  const read = verdicts.length ? `, and the judge's ${verdicts[0].benchmark} verdicts were read` : "";
  lines.push(
    `usable: ${report.endpoints.length === 1 ? "the endpoint answers" : "both endpoints answer"}${read}`,
  );
  if (report.profileFile) {
    lines.push(
      `profile entries to save as ${report.profilesPath} (put them first in it if it exists; ` +
        "they replace any entry for the same model):",
      profileFileText(report.profileFile),
    );
  }
  lines.push(`eval flags: ${report.evalFlags.join(" ")}`);
  return lines.join("\n");
}
