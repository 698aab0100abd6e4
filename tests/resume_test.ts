import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { pathExists } from "../lib/core/fs.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { scriptedReply } from "./fake_judge.ts";
import { startFakeServer } from "./fake_server.ts";
import { llmevalCommand, runCli } from "./run_cli.ts";

function evalCommand(url: string, out: string, resume: boolean): Deno.Command {
  return llmevalCommand(url, out, resume, ["--concurrency", "2"]);
}

Deno.test("a run killed mid-way resumes with --resume and repeats no finished call", async () => {
  const server = await startFakeServer({ reply: scriptedReply, latencyMs: 40 });
  const out = await Deno.makeTempDir({ prefix: "medeval-resume-" });
  try {
    const child = evalCommand(server.url, out, false).spawn();
    // Kill hard once a third of the 92 calls (23 answers + 69 judgings) have been answered.
    const deadline = Date.now() + 60_000;
    while (server.requests.filter((r) => r.status === 200).length < 30) {
      if (Date.now() > deadline) throw new Error("the run did not make progress");
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill("SIGKILL");
    await child.output();

    const store = new RunStore(`${out}/run.sqlite`);
    const finished = new Set(store.calls().map((c) => c.key));
    store.close();
    assert(finished.size >= 20, `expected stored calls before the kill, got ${finished.size}`);
    assert(finished.size < 92, "the kill must come before the end");

    const before = server.requests.length;
    const resumed = await evalCommand(server.url, out, true).output();
    const stderr = new TextDecoder().decode(resumed.stderr);
    assertEquals(resumed.code, 0, stderr);
    const second = server.requests.slice(before);
    const repeated = second.filter((r) => r.callKey !== null && finished.has(r.callKey));
    assertEquals(repeated.length, 0, "finished calls were sent again");

    // Every stored call is either one finished before the kill or one answered after the resume.
    const final = new RunStore(`${out}/run.sqlite`);
    const answeredAfter = second.filter((r) => r.status === 200).map((r) => r.callKey!);
    assertEquals(
      new Set(final.calls().map((c) => c.key)),
      new Set([...finished, ...answeredAfter]),
    );
    assertEquals(
      answeredAfter.length,
      new Set(answeredAfter).size,
      "a call was answered twice after the resume",
    );
    assertEquals(final.outputs().filter((o) => o.text !== null).length, 23);
    assertEquals(final.scores().length, 69);
    assert(final.events().some((e) => e.kind === "resume"));
    final.close();
    const stdout = new TextDecoder().decode(resumed.stdout);
    assertStringIncludes(stdout, "from the run store");
  } finally {
    await server.close();
  }
});

Deno.test("CLI: malformed data gives exit code 2 and a single error line", async () => {
  const dir = await Deno.makeTempDir();
  const bad = `${dir}/bad.json`;
  await Deno.writeTextFile(
    bad,
    JSON.stringify(
      { "医疗知识": [{ category1: "医疗知识", category2: "a", round: 1, problem: "q", groupCode: "x" }] },
      null,
      2,
    ),
  );
  const result = await runCli([
    "eval",
    "llmeval-med",
    "--model",
    "offline:reference",
    "--judge",
    "offline:overlap",
    "--data",
    bad,
    "--out",
    `${dir}/out`,
  ]);
  assertEquals(result.code, 2);
  assertEquals(result.errors.length, 1);
  assertStringIncludes(result.errors[0], `${bad}: 医疗知识[0] (line 3): field "groupCode": `);
  assertEquals(await pathExists(`${dir}/out`), false);
});
