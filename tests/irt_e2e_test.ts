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
import { codeVersion } from "../lib/core/version.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { walkFiles } from "./walk.ts";

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

/** A right or wrong answer: the key, or for a choice item an option not in it, for a sequencing item the key
 * with its last two steps swapped (Kendall τ 2/3 for four steps). */
function answer(sample: Sample, right: boolean): string {
  const extra = climedExtra(sample);
  if (right) return `答案：${extra.answer.join("")}`;
  if (sample.fields.question_type === "sequencing") {
    const order = [...extra.answer];
    order.splice(-2, 2, order.at(-1)!, order.at(-2)!);
    return `答案：${order.join("")}`;
  }
  return `答案：${Object.keys(extra.options).sort().find((l) => !extra.answer.includes(l))!}`;
}

/** The scripted models over `samples`: generation by ability, a debate that is "certain" only from fake-b, and
 * a reflection that adopts a certain reviewer's answer and keeps its own otherwise. */
function replyFor(samples: readonly Sample[]): (body: FakeChatBody) => string {
  return (body) => {
    const text = body.messages.map((m) => m.content).join("\n");
    const index = samples.findIndex((s) => text.includes(s.input));
    const sample = samples[index];
    if (body.messages[0].content === DEBATE_TEMPLATE) {
      return `复核意见。${body.model === "fake-b" ? "确定。" : ""}${
        answer(sample, knows(body.model, index))
      }`;
    }
    const last = body.messages.at(-1)!.content;
    if (last.startsWith("A colleague reviewed")) {
      const certain = last.match(/确定。(答案：[A-Z]+)/);
      return certain ? certain[1] : answer(sample, knows(body.model, index));
    }
    return answer(sample, knows(body.model, index));
  };
}

const reply = replyFor(CHOICE);

/** Who answers each sample right: a model alone by its ability; a pair follows a certain reviewer (fake-b). */
function expectedResponses(models: readonly string[], samples: readonly Sample[]): Map<string, boolean[]> {
  const expected = new Map<string, boolean[]>();
  for (const first of models) {
    expected.set(first, samples.map((_, i) => knows(first, i)));
    for (const second of models.filter((m) => m !== first)) {
      expected.set(
        `${first} → ${second}`,
        samples.map((_, i) => knows(second === "fake-b" ? second : first, i)),
      );
    }
  }
  return expected;
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
    // The session's store records the code version, as an eval's does.
    let stores = 0;
    for await (const path of walkFiles(`${dir}/cat`)) {
      if (!path.endsWith("/run.sqlite")) continue;
      stores++;
      const store = new RunStore(path, { readOnly: true });
      try {
        assertEquals(store.manifest()?.code, await codeVersion(), path);
      } finally {
        store.close();
      }
    }
    assertEquals(stores, 1, "the session's run store");
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
    // A certain reviewer (fake-b) is followed; otherwise the first model keeps its answer.
    const expected = expectedResponses(models, CHOICE);
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

Deno.test("MPS on the default CliMedBench data: graded items are left out by name without --threshold, kept with it", async () => {
  // The shipped sample's first 15 samples: 12 choice items, then three sequencing items scored by Kendall's τ.
  const samples = (await loadClimedBench(SAMPLE)).slice(0, 15);
  const sequencing = samples.filter((s) => s.fields.question_type === "sequencing").map((s) => s.id);
  assertEquals(sequencing.length, 3);
  const server = await startFakeServer({ reply: replyFor(samples) });
  const dir = await Deno.makeTempDir({ prefix: "medeval-mps-graded-" });
  try {
    const models = ["fake-a", "fake-b", "fake-c"];
    const args = ["irt", "mps", "--models", models.join(","), "--base-url", server.url, "--limit", "15"];
    const rest = ["--out", `${dir}/mps`, "--no-render"];
    const env = { OPENAI_API_KEY: "sk-test" };
    const first = await runCli([...args, ...rest], env);
    assertEquals(first.code, 0, first.stderr);
    // A sequencing item is graded when some participant misorders it: one swap of n steps gives
    // τ = 1 − 4/(n(n − 1)) (2/3 for four steps: the value the old command stopped at).
    const expected = expectedResponses(models, samples);
    const graded = samples.filter((s, i) =>
      sequencing.includes(s.id) && [...expected.values()].some((right) => !right[i])
    );
    assertEquals(graded.length, 2);
    const tau = (s: Sample) =>
      Number((1 - 4 / (climedExtra(s).answer.length * (climedExtra(s).answer.length - 1))).toFixed(4));
    assert(
      first.stderr.includes(
        `warning: 2 item(s) with graded scores (e.g. ${
          graded.map((s) => `"${s.id}" ${tau(s)}`).join(", ")
        }) left ` +
          "out of the responses: declare --threshold T to count scores >= T as right",
      ),
      first.stderr,
    );
    const strip = (persons: string[]) => persons.map((p) => p.replace(/ @ \S+/g, ""));
    const choiceOnly = await readResponsesCsv(`${dir}/mps/responses.csv`);
    assertEquals(
      choiceOnly.items.toSorted(),
      samples.filter((s) => !graded.includes(s)).map((s) => s.id).toSorted(),
    );
    assertEquals(choiceOnly.persons.length, 9);
    const next = first.stdout.split("\n").find((l) => l.includes("calibrate with: "))!;
    assertEquals(
      next.trim(),
      `calibrate with: deno task irt fit --responses ${dir}/mps/responses.csv --model 1pl --out ${dir}/mps/fit`,
    );
    const sent = server.requests.length;
    const second = await runCli([...args, "--threshold", "0.9", "--resume", ...rest], env);
    assertEquals(second.code, 0, second.stderr);
    assertEquals(server.requests.length, sent, "--resume sends nothing again");
    const all = await readResponsesCsv(`${dir}/mps/responses.csv`);
    assertEquals(all.items.toSorted(), samples.map((s) => s.id).toSorted());
    for (const [p, person] of strip(all.persons).entries()) {
      for (const [i, item] of all.items.entries()) {
        const index = samples.findIndex((s) => s.id === item);
        assertEquals(all.values[p][i], expected.get(person)![index] ? 1 : 0, `${person} ${item}`);
      }
    }
    // The suggested command runs as printed.
    const command = next.trim().replace("calibrate with: deno task ", "").split(" ");
    const fit = await runCli([...command, "--no-render"]);
    assertEquals(fit.code, 0, fit.stderr);
    assert(JSON.parse(await Deno.readTextFile(`${dir}/mps/fit/fit.json`)).n_items > 0);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
