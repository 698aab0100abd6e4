import { assert, assertEquals, assertNotEquals, assertThrows } from "@std/assert";
import { parseAblation } from "../lib/ablations/condition.ts";
import { loadPerMedCqa } from "../lib/benchmarks/permedcqa/load.ts";
import type { ChatMessage } from "../lib/core/chat.ts";
import { ConfigError } from "../lib/core/errors.ts";
import type { Sample } from "../lib/core/sample.ts";
import type { RoleRequest, SolveContext } from "../lib/core/task.ts";
import { chatSolver } from "../lib/solvers/chat.ts";
import { drawExemplars, fewShotSolver, plainTextKey } from "../lib/solvers/few_shot.ts";
import { roleOf, roleSolver } from "../lib/solvers/role.ts";
import { persianKey } from "../lib/text/persian.ts";

function sample(
  id: string,
  input: string,
  reference: string | null = `answer to ${id}`,
  icd?: string,
): Sample {
  return {
    id,
    benchmark: "toy",
    input,
    reference,
    conversation: null,
    fields: { icd11: icd ?? null },
    extra: {},
  };
}

/** A context whose model echoes and which records every request. */
function recordingContext(train: readonly Sample[]): { ctx: SolveContext; sent: RoleRequest[] } {
  const sent: RoleRequest[] = [];
  const ctx: SolveContext = {
    has: () => true,
    members: () => [],
    defaults: () => ({}),
    embed: () => Promise.resolve([]),
    auxiliary: (name) => {
      if (name !== "train") throw new Error(`no ${name}`);
      return train;
    },
    generate: (_role, request) => {
      sent.push(request);
      return Promise.resolve({
        text: "ok",
        callKey: `k${sent.length}`,
        cached: false,
        sent: request.messages,
      });
    },
  };
  return { ctx, sent };
}

const TRAIN = Array.from({ length: 40 }, (_, i) => sample(`tr-${i}`, `train question ${i}`));

Deno.test("few-shot: k exemplars, seeded per sample, stable, never the question itself or a duplicate", () => {
  const options = { k: 5, seed: "0", textKey: plainTextKey };
  const target = sample("te-1", "Train  Question 7"); // the same text as tr-7 under the key
  const pool = [...TRAIN, sample("te-1", "x")]; // the sample's own id in the split is skipped too
  const picked = drawExemplars(target, pool, options);
  assertEquals(picked.length, 5);
  assertEquals(new Set(picked.map((e) => e.id)).size, 5);
  assert(picked.every((e) => e.id !== "tr-7" && e.id !== "te-1"), picked.map((e) => e.id).join());
  // The same seed and sample give the same draw; another seed or sample another one.
  assertEquals(drawExemplars(target, pool, options).map((e) => e.id), picked.map((e) => e.id));
  assertNotEquals(
    drawExemplars(target, pool, { ...options, seed: "1" }).map((e) => e.id),
    picked.map((e) => e.id),
  );
  assertNotEquals(
    drawExemplars(sample("te-2", "q"), pool, options).map((e) => e.id),
    picked.map((e) => e.id),
  );
  // Samples without an answer are never exemplars; a small split gives what it has.
  const small = [sample("a", "qa"), sample("b", "qb", null), sample("c", "qc")];
  assertEquals(drawExemplars(sample("z", "qz"), small, options).map((e) => e.id).sort(), ["a", "c"]);
});

Deno.test("few-shot: the draw is uniform enough that every train item gets drawn", () => {
  const counts = new Map<string, number>();
  for (let i = 0; i < 400; i++) {
    for (
      const e of drawExemplars(sample(`s${i}`, `q${i}`), TRAIN, { k: 5, seed: "0", textKey: plainTextKey })
    ) {
      counts.set(e.id, (counts.get(e.id) ?? 0) + 1);
    }
  }
  // 2,000 draws over 40 items: 50 expected each; a broken shuffle concentrates them.
  assertEquals(counts.size, 40);
  assert(
    Math.min(...counts.values()) >= 25 && Math.max(...counts.values()) <= 80,
    JSON.stringify([...counts]),
  );
});

Deno.test("few-shot: Persian duplicates (Arabic ي/ك, ZWNJ as space) are recognised under persianKey", () => {
  const train = [sample("tr-dup", "آيا مي خواهم كمك بگيرم؟"), sample("tr-other", "سؤال دیگر")];
  const target = sample("te-1", "آیا می‌خواهم کمک بگیرم؟");
  const picked = drawExemplars(target, train, { k: 2, seed: "0", textKey: persianKey });
  assertEquals(picked.map((e) => e.id), ["tr-other"]);
});

Deno.test("few-shot solver: exemplars go after the system message as user/assistant turns and are recorded", async () => {
  const { ctx, sent } = recordingContext(TRAIN);
  const solver = fewShotSolver(chatSolver("SYSTEM"), { k: 3, seed: "0", textKey: plainTextKey });
  const result = await solver.solve({ sample: sample("te-9", "the question"), history: [] }, ctx);
  const messages = sent[0].messages as ChatMessage[];
  assertEquals(messages.map((m) => m.role), [
    "system",
    "user",
    "assistant",
    "user",
    "assistant",
    "user",
    "assistant",
    "user",
  ]);
  assertEquals(messages[0].content, "SYSTEM");
  assertEquals(messages.at(-1)!.content, "the question");
  const ids = result.detail!.exemplars as string[];
  assertEquals(ids.length, 3);
  assertEquals(messages[1].content, TRAIN.find((t) => t.id === ids[0])!.input);
  assertEquals(messages[2].content, `answer to ${ids[0]}`);
  // The conversation keeps only the question and the answer, not the exemplars.
  assertEquals(result.turn.map((m) => m.content), ["the question", "ok"]);
});

Deno.test("role prompting: the persona follows the sample's field through the table, with a fallback", async () => {
  const spec = {
    field: "icd11",
    roles: { "06": "psychiatrist", "14": "dermatologist" },
    fallback: "medical doctor",
    source: "test table",
    solver: (role: string) => chatSolver(`You are an experienced ${role}.`),
  };
  assertEquals(roleOf(spec, sample("a", "q", null, "06")), "psychiatrist");
  assertEquals(roleOf(spec, sample("b", "q", null, "99")), "medical doctor");
  assertEquals(roleOf(spec, sample("c", "q")), "medical doctor");
  const { ctx, sent } = recordingContext([]);
  const solver = roleSolver(spec);
  const result = await solver.solve({ sample: sample("a", "q", null, "14"), history: [] }, ctx);
  assertEquals(sent[0].messages[0], { role: "system", content: "You are an experienced dermatologist." });
  assertEquals(result.detail, { role: "dermatologist" });
  // The manifest's templates hold the persona with a placeholder and the table.
  assertEquals(solver.templates.system, "You are an experienced {role}.");
  assert(solver.templates.role_table.includes("psychiatrist"));
});

Deno.test("ablation specs: role, fewshot, fewshot:K; bad K is a one-line error", () => {
  assertEquals(parseAblation("role"), { name: "role", kind: "role" });
  assertEquals(parseAblation("fewshot", "7"), { name: "fewshot:5", kind: "fewshot", shots: 5, seed: "7" });
  assertEquals(parseAblation("fewshot:2").shots, 2);
  const err = assertThrows(() => parseAblation("fewshot:0"), ConfigError);
  assertEquals(err.message, "--ablation fewshot:0: expected fewshot or fewshot:K with 1 <= K <= 64");
});

Deno.test("few-shot on the shipped PerMedCQA sample: the train twin of te-0003 (Arabic ي/ك, spaced ZWNJ) is never drawn for it", async () => {
  const dir = new URL("../data/permedcqa/Data", import.meta.url).pathname;
  const test = await loadPerMedCqa(dir);
  const train = await loadPerMedCqa(dir, { split: "train", requireLabels: false });
  const target = test.find((s) => s.id === "permedcqa:te-0003")!;
  const twin = train.find((s) => s.id === "permedcqa:tr-0017")!;
  assertNotEquals(twin.input, target.input);
  assertEquals(persianKey(twin.input), persianKey(target.input));
  const all = drawExemplars(target, train, { k: train.length, seed: "0", textKey: persianKey });
  assertEquals(all.length, train.length - 1);
  assert(!all.some((e) => e.id === twin.id));
  // Under the plain key the twin is not recognised: the Persian key is what excludes it.
  assert(
    drawExemplars(target, train, { k: train.length, seed: "0", textKey: plainTextKey }).some((e) =>
      e.id === twin.id
    ),
  );
});
