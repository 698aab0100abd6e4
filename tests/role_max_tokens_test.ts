/**
 * A token limit set for a role (`--role-opt judge.max-tokens=N`, `translator.max-tokens`) reaches that role's
 * requests: it wins over the limit a scorer or solver asks for by default (the judge's 1024, the pivot
 * translator's 2048), and leaves the model under test alone.
 * @module
 */
import { assertEquals } from "@std/assert";
import { scriptedReply } from "./fake_judge.ts";
import { type FakeChatBody, startFakeServer } from "./fake_server.ts";
import { llmevalCommand } from "./run_cli.ts";

/** The `max_tokens` values the fake received, by model name. */
async function limitsSent(extra: string[]): Promise<Map<string, Set<number | undefined>>> {
  const server = await startFakeServer({ reply: scriptedReply });
  const out = await Deno.makeTempDir({ prefix: "medeval-role-max-" });
  try {
    const result = await llmevalCommand(server.url, out, false, ["--quiet", "--limit", "3", ...extra])
      .output();
    assertEquals(result.code, 0, new TextDecoder().decode(result.stderr));
    const byModel = new Map<string, Set<number | undefined>>();
    for (const request of server.requests) {
      const body = request.body as FakeChatBody | null;
      if (!body?.model) continue;
      if (!byModel.has(body.model)) byModel.set(body.model, new Set());
      byModel.get(body.model)!.add(body.max_tokens);
    }
    return byModel;
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
}

Deno.test("--role-opt judge.max-tokens reaches the judge's requests, not the model's", async () => {
  const before = await limitsSent([]);
  assertEquals([...before.get("fake-judge")!], [1024]);
  const after = await limitsSent(["--role-opt", "judge.max-tokens=77", "--max-tokens", "300"]);
  assertEquals([...after.get("fake-judge")!], [77]);
  assertEquals([...after.get("fake-model")!], [300]);
});

Deno.test("--role-opt translator.max-tokens reaches the pivot translator's requests", async () => {
  const limits = await limitsSent([
    "--ablation",
    "pivot:en",
    "--role",
    "translator=fake-translator",
    "--role-opt",
    "translator.max-tokens=99",
  ]);
  assertEquals([...limits.get("fake-translator")!], [99]);
});
