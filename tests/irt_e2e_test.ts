/**
 * IRT against the fake server: a live adaptive test that sends only the items it selects (and replays them on
 * --resume), and multi-agent participant synthesis whose participants are stored like runs and calibrated.
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { climedExtra, loadClimedBench } from "../lib/benchmarks/climedbench/load.ts";
import type { Sample } from "../lib/core/sample.ts";
import { calibrate } from "../lib/irt/calibrate.ts";
import { readResponsesCsv } from "../lib/irt/responses.ts";
import { DEBATE_TEMPLATE } from "../lib/solvers/mps.ts";
import { type FakeChatBody, startFakeServer } from "./fake_server.ts";
import { runCli } from "./run_cli.ts";

const SAMPLE = new URL("../data/climedbench/sample.jsonl", import.meta.url).pathname;
const CHOICE = (await loadClimedBench(SAMPLE)).filter((s) =>
  String(s.fields.question_type).endsWith("_choice")
);

/** Whether a fake model gets a sample right: fake-b always, fake-a two in three, fake-c every other one. */
function knows(model: string, index: number): boolean {
  if (model === "fake-b") return true;
  if (model === "fake-a") return index % 3 !== 0;
  return index % 2 === 0;
}

function answer(sample: Sample, right: boolean): string {
  const extra = climedExtra(sample);
  const wrong = Object.keys(extra.options).sort().find((l) => !extra.answer.includes(l))!;
  return `答案：${right ? extra.answer.join("") : wrong}`;
}

/** The scripted models: generation by ability, a debate that is "certain" only from fake-b, and a reflection
 * that adopts a certain reviewer's answer and keeps its own otherwise. */
function reply(body: FakeChatBody): string {
  const text = body.messages.map((m) => m.content).join("\n");
  const index = CHOICE.findIndex((s) => text.includes(s.input));
  const sample = CHOICE[index];
  if (body.messages[0].content === DEBATE_TEMPLATE) {
    return `复核意见。${body.model === "fake-b" ? "确定。" : ""}${answer(sample, knows(body.model, index))}`;
  }
  const last = body.messages.at(-1)!.content;
  if (last.startsWith("A colleague reviewed")) {
    const certain = last.match(/确定。(答案：[A-Z]+)/);
    return certain ? certain[1] : answer(sample, knows(body.model, index));
  }
  return answer(sample, knows(body.model, index));
}

async function choiceData(dir: string): Promise<string> {
  const ids = new Set(CHOICE.map((s) => s.id));
  const lines = (await Deno.readTextFile(SAMPLE)).trim().split("\n").filter((l) => ids.has(JSON.parse(l).id));
  const path = `${dir}/choice.jsonl`;
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  return path;
}

Deno.test("live CAT: asks the model only the items it selects, in order, and --resume replays the same test", async () => {
  const server = await startFakeServer({ reply });
  const dir = await Deno.makeTempDir({ prefix: "medeval-cat-" });
  try {
    const data = await choiceData(dir);
    const items = CHOICE.map((s, i) => ({
      item: s.id,
      a: 1 + (i % 4) * 0.3,
      b: -2 + (4 * i) / CHOICE.length,
      c: 0.2,
      se_a: null,
      se_b: null,
      se_c: null,
    }));
    const fit = {
      model: "3pl",
      n_persons: 20,
      n_items: items.length,
      logLik: -1,
      converged: true,
      iterations: 1,
    };
    await Deno.writeTextFile(`${dir}/fit.json`, JSON.stringify({ ...fit, items, persons: [] }));
    const args = ["irt", "cat", "--items", `${dir}/fit.json`, "--model", "fake-a", "--base-url", server.url];
    const rest = [
      "--data",
      data,
      "--max-items",
      "6",
      "--stop-se",
      "0.05",
      "--out",
      `${dir}/cat`,
      "--no-render",
    ];
    const first = await runCli([...args, ...rest], { OPENAI_API_KEY: "sk-test" });
    assertEquals(first.code, 0, first.stderr);
    const result = JSON.parse(await Deno.readTextFile(`${dir}/cat/cat.json`));
    const [person] = result.persons;
    assertEquals(person.items_used, 6);
    assertEquals(person.stop, "max-items");
    const chats = server.requests.filter((r) => r.path.endsWith("/chat/completions"));
    assertEquals(chats.length, 6, "one request per selected item, nothing else");
    const asked = chats.map((r) => {
      const user = (r.body as FakeChatBody).messages.findLast((m) => m.role === "user")!.content;
      return CHOICE.find((s) => user.includes(s.input))!.id;
    });
    assertEquals(asked, person.items.map((s: { item: string }) => s.item));
    for (const step of person.items) {
      const index = CHOICE.findIndex((s) => s.id === step.item);
      assertEquals(step.response, knows("fake-a", index) ? 1 : 0, step.item);
    }
    // The first item is the most informative at θ = 0.
    const info = (i: (typeof items)[number]) => {
      const s = 1 / (1 + Math.exp(-i.a * (0 - i.b)));
      const p = i.c + (1 - i.c) * s;
      return (i.a ** 2 * s ** 2 * (1 - p)) / p;
    };
    const best = [...items].sort((x, y) => info(y) - info(x))[0].item;
    assertEquals(person.items[0].item, best);
    const again = await runCli([...args, ...rest, "--resume"], { OPENAI_API_KEY: "sk-test" });
    assertEquals(again.code, 0, again.stderr);
    assertEquals(
      server.requests.filter((r) => r.path.endsWith("/chat/completions")).length,
      6,
      "all replayed",
    );
    const replay = JSON.parse(await Deno.readTextFile(`${dir}/cat/cat.json`));
    assertEquals(replay.persons, result.persons);
    assertEquals(replay.calls, { sent: 0, cached: 6 });
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("MPS: every model alone and with each other as debater, one stored run per model, calibrated", async () => {
  const server = await startFakeServer({ reply });
  const dir = await Deno.makeTempDir({ prefix: "medeval-mps-" });
  try {
    const data = await choiceData(dir);
    const models = ["fake-a", "fake-b", "fake-c"];
    const run = await runCli(
      [
        "irt",
        "mps",
        "--models",
        models.join(","),
        "--base-url",
        server.url,
        "--data",
        data,
        "--out",
        `${dir}/mps`,
        "--no-render",
      ],
      { OPENAI_API_KEY: "sk-test" },
    );
    assertEquals(run.code, 0, run.stderr);
    const read = await readResponsesCsv(`${dir}/mps/responses.csv`);
    // Participants are named by model labels (`fake-a @ host/v1`); the endpoint is left out below.
    assert(read.persons.every((p) => p.includes(" @ 127.0.0.1:")));
    const responses = { ...read, persons: read.persons.map((p) => p.replace(/ @ \S+/g, "")) };
    const expected = new Map<string, boolean[]>();
    for (const first of models) {
      expected.set(first, CHOICE.map((_, i) => knows(first, i)));
      for (const second of models.filter((m) => m !== first)) {
        // A certain reviewer (fake-b) is followed; otherwise the first model keeps its answer.
        expected.set(
          `${first} → ${second}`,
          CHOICE.map((_, i) => knows(second === "fake-b" ? second : first, i)),
        );
      }
    }
    assertEquals(responses.persons.toSorted(), [...expected.keys()].toSorted());
    assertEquals(responses.items.toSorted(), CHOICE.map((s) => s.id).toSorted());
    for (const [p, person] of responses.persons.entries()) {
      const want = expected.get(person)!;
      for (const [i, item] of responses.items.entries()) {
        const index = CHOICE.findIndex((s) => s.id === item);
        assertEquals(responses.values[p][i], want[index] ? 1 : 0, `${person} ${item}`);
      }
    }
    // Generation is asked once per model and question (shared by the baseline and every pair); each pair adds
    // one debate and (at most) one reflection.
    const bodies = server.requests.map((r) => r.body as FakeChatBody).filter((b) => b?.messages);
    const generations = bodies.filter((b) =>
      b.messages[0].content !== DEBATE_TEMPLATE && !b.messages.at(-1)!.content.startsWith("A colleague")
    );
    assertEquals(generations.length, models.length * CHOICE.length);
    // Each ordered pair sends one debate per question (identical reflections within a run are one call).
    const debates = bodies.filter((b) => b.messages[0].content === DEBATE_TEMPLATE);
    assertEquals(debates.length, CHOICE.length * models.length * (models.length - 1));
    const calibration = calibrate(responses, { model: "1pl" });
    const theta = new Map(calibration.persons.map((p) => [p.person, p.theta]));
    assert(theta.get("fake-b")! > theta.get("fake-a")! && theta.get("fake-a")! > theta.get("fake-c")!);
    assert(calibration.warnings.some((w) => w.includes("9 examinees are few for 1PL")));
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
