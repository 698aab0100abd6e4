import { Caller } from "../lib/providers/caller.ts";
import { EndpointPool } from "../lib/providers/endpoint_pool.ts";
import { OpenAIProvider } from "../lib/providers/openai.ts";
import type { ChatProvider } from "../lib/providers/types.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { startFakeServer } from "../tests/fake_server.ts";
const server = await startFakeServer({ latencyMs: 100, keepBodies: false });
const N = 2000;
async function run(name: string, provider: ChatProvider, round: number) {
  const dir = await Deno.makeTempDir();
  const store = new RunStore(`${dir}/run.sqlite`);
  const caller = new Caller(provider, store, "model");
  const t0 = performance.now();
  await Promise.all(
    Array.from(
      { length: N },
      (_, i) => caller.call({ messages: [{ role: "user", content: `${name} ${round} q ${i}` }] }),
    ),
  );
  const ms = performance.now() - t0;
  store.close();
  await Deno.remove(dir, { recursive: true });
  return ms;
}
const results: Record<string, number[]> = { direct: [], pool: [] };
for (let r = 0; r < 4; r++) {
  results.direct.push(
    await run("d", new OpenAIProvider({ model: "m", baseURL: server.url, concurrency: 64 }), r),
  );
  results.pool.push(
    await run(
      "p",
      new EndpointPool({ model: "m", endpoints: [{ baseURL: server.url }], concurrency: 64 }),
      r,
    ),
  );
}
console.log(JSON.stringify(results), "bound", N / 64 * 100);
await server.close();
