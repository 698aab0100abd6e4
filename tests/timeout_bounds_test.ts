/**
 * Durations past what a timer holds: `setTimeout` fires at once for a delay above 2^31 - 1 ms (about 24.8 days),
 * so `--timeout 3000000` (meant as "no timeout") used to fail every call as timed out. `eval` refuses
 * `--timeout` and `--batch-poll-seconds` above 2147483 s in one line before anything is sent or written, takes
 * 2147483 itself, and the transport caps a longer timeout instead of arming a timer that fires at once.
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import OpenAI from "openai";
import { pathExists } from "../lib/core/fs.ts";
import { endpointClientOptions } from "../lib/providers/transport/client_options.ts";
import { EndpointHttp } from "../lib/providers/transport/endpoint_http.ts";
import { scriptedReply } from "./fake_judge.ts";
import { startFakeServer } from "./fake_server.ts";
import { llmevalCommand } from "./run_cli.ts";

/** The longest timeout accepted, in seconds: 2^31 - 1 ms, rounded down to a whole second. */
const LARGEST_SECONDS = 2147483;

/** What a finished `eval` printed and returned. */
interface Outcome {
  code: number;
  stderr: string;
}

/**
 * Runs `eval llmeval-med` (one sample, no retries) against a fake server with `extra` flags, in a fresh
 * directory; returns what it printed, whether its `--out` exists afterwards and the requests the server got.
 */
async function evalWith(extra: string[]): Promise<Outcome & { wrote: boolean; statuses: (number | null)[] }> {
  const server = await startFakeServer({ reply: scriptedReply });
  const dir = await Deno.makeTempDir({ prefix: "medeval-timeout-" });
  try {
    const out = `${dir}/out`;
    const result = await llmevalCommand(server.url, out, false, [
      "--limit",
      "1",
      "--max-retries",
      "0",
      "--quiet",
      ...extra,
    ]).output();
    return {
      code: result.code,
      stderr: new TextDecoder().decode(result.stderr),
      wrote: await pathExists(out),
      statuses: server.requests.map((r) => r.status),
    };
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("eval refuses --timeout 3000000 in one line naming the flag and its largest value, before sending or writing", async () => {
  const cases = [
    [["--timeout", "3000000"], "--timeout"],
    [["--batch", "--batch-poll-seconds", "3000000"], "--batch-poll-seconds"],
  ] as const;
  for (const [flags, flag] of cases) {
    const run = await evalWith([...flags]);
    assertEquals(run.code, 2, run.stderr);
    assertEquals(
      run.stderr.trim(),
      `error: ${flag} expects a number > 0 and <= ${LARGEST_SECONDS}, got 3000000`,
    );
    assertEquals(run.wrote, false, `${flag}: the run directory was written`);
    assertEquals(run.statuses, [], `${flag}: a request was sent`);
  }
});

Deno.test("eval takes --timeout 2147483 (the largest a timer holds) and runs with it; 2147484 is refused", async () => {
  const over = await evalWith(["--timeout", String(LARGEST_SECONDS + 1)]);
  assertEquals(over.code, 2, over.stderr);
  assertEquals(
    over.stderr.trim(),
    `error: --timeout expects a number > 0 and <= ${LARGEST_SECONDS}, got ${LARGEST_SECONDS + 1}`,
  );
  assertEquals([over.wrote, over.statuses], [false, []]);

  const largest = await evalWith(["--timeout", String(LARGEST_SECONDS)]);
  assertEquals(largest.code, 0, largest.stderr);
  assert(largest.wrote, "the run directory was not written");
  // The answer and its three judgings (and a judge's re-ask of an unreadable verdict) were all answered: none
  // was cut short by its timer (which would leave no status, the request aborted).
  assert(largest.statuses.length >= 4, `only ${largest.statuses.length} requests`);
  assertEquals(largest.statuses.filter((s) => s !== 200), []);
});

Deno.test("the transport caps a timeout past 2^31 - 1 ms: a request to the fake server succeeds instead of timing out at once", async () => {
  // Answers take 50 ms, so a timer that fired at once (the overflow) would abort every request.
  const server = await startFakeServer({ latencyMs: 50 });
  const huge = 3_000_000 * 1000;
  try {
    const body = { model: "fake-model", messages: [{ role: "user", content: "What does the heart do?" }] };
    const http = new EndpointHttp({ baseURL: server.url, timeoutMs: huge });
    const answer = await http.post("/chat/completions", body);
    assert((answer.data as { choices?: unknown[] }).choices?.length, JSON.stringify(answer.data));

    // The npm:openai client (doctor, batch files) arms its own timer with the timeout it is given.
    const options = endpointClientOptions({ baseURL: server.url, timeoutMs: huge });
    assertEquals(options.timeout, 2 ** 31 - 1);
    const client = new OpenAI(options);
    const completion = await client.chat.completions.create({
      model: "fake-model",
      messages: [{ role: "user", content: "What does the heart do?" }],
    });
    assertEquals(completion.choices.length, 1);
  } finally {
    await server.close();
  }
});
