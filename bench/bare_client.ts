/**
 * The ceiling of a one-call run on the benchmarks' fake: a bare `fetch` loop, as a process of its own, that sends
 * N chat completions with `--concurrency` in flight and reads every answer, and does nothing else (no data, no
 * store, no scoring). bench/scale.ts runs it as a whole command beside medeval's, so a run's share of the
 * bound can be read against what any client reaches on the same server, machine and start-up.
 *
 * `deno run -A bench/bare_client.ts --base-url URL --n 2000 --concurrency 64`
 * @module
 */

/** Sends `n` chat completions to `baseUrl`, `concurrency` at a time; returns how many were answered 2xx. */
export async function bareRun(baseUrl: string, n: number, concurrency: number): Promise<number> {
  let next = 0;
  let ok = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const response = await fetch(`${baseUrl}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer bare" },
        body: JSON.stringify({
          model: "fake-model",
          messages: [{
            role: "user",
            content: `Question ${i}: which option is right? A. one B. two C. three D. four`,
          }],
          max_tokens: 16,
          temperature: 0,
        }),
      });
      await response.text();
      if (response.ok) ok++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ok;
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = Deno.args.indexOf(`--${name}`);
    return i >= 0 ? Deno.args[i + 1] : undefined;
  };
  const baseUrl = arg("base-url");
  if (!baseUrl) throw new Error("bare_client: --base-url is required");
  const n = Number(arg("n") ?? 2000);
  const answered = await bareRun(baseUrl, n, Number(arg("concurrency") ?? 64));
  if (answered !== n) {
    console.error(`bare_client: ${n - answered} of ${n} requests failed`);
    Deno.exit(1);
  }
}
