import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { pathExists } from "../lib/core/fs.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { ROOT, runCli } from "./run_cli.ts";

const LLMEVAL = ["eval", "llmeval-med", "--data", `${ROOT}data/llmeval_med/sample.json`, "--limit", "2"];
const CLIMED = ["eval", "climedbench", "--data", `${ROOT}data/climedbench/sample.jsonl`, "--limit", "2"];
const OFFLINE = ["--model", "offline:reference", "--no-render", "--quiet"];

Deno.test("CLI: eval --help and eval <benchmark> --help print usage and exit 0", async () => {
  const all = await runCli(["eval", "--help"]);
  assertEquals(all.code, 0, all.stderr);
  for (const flag of ["--model", "--judge-runs", "--embed-model", "--human-eval", "--ablation"]) {
    assertStringIncludes(all.stdout, flag);
  }
  assertStringIncludes(all.stdout, "judge (llmeval-med, permedcqa, medgpteval only):");
  assertStringIncludes(all.stdout, "(default test) (permedcqa only)");
  assertStringIncludes(all.stdout, "benchmarks: llmeval-med, climedbench, permedcqa, medgpteval");
  const climed = await runCli(["eval", "climedbench", "--help"]);
  assertEquals(climed.code, 0, climed.stderr);
  assertStringIncludes(climed.stdout, "--embed-model");
  assert(!climed.stdout.includes("--judge"), "climedbench takes no judge flags");
  const llmeval = await runCli(["eval", "llmeval-med", "-h"]);
  assertEquals(llmeval.code, 0, llmeval.stderr);
  assertStringIncludes(llmeval.stdout, "--judge-runs N");
  assert(!llmeval.stdout.includes("--embed-model"));
  for (const command of ["reproduce", "download"]) {
    const help = await runCli([command, "--help"]);
    assertEquals(help.code, 0, help.stderr);
    assertStringIncludes(help.stdout, `deno task ${command}`);
  }
});

Deno.test("CLI: a bad configuration exits 2 with one line naming the flag and leaves nothing behind", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-cli-" });
  const cases: [string, string[], string, Record<string, string>?][] = [
    ["judge missing", [...LLMEVAL, ...OFFLINE], "--judge: llmeval-med is scored by a judge"],
    [
      "zero concurrency",
      [...CLIMED, ...OFFLINE, "--concurrency", "0"],
      "--concurrency expects an integer >= 1",
    ],
    [
      "flags climedbench does not use",
      [...CLIMED, ...OFFLINE, "--judge-runs", "5", "--human-eval", "x.csv"],
      "--judge-runs is not used by climedbench",
    ],
    [
      "human ratings on climedbench",
      [...CLIMED, ...OFFLINE, "--human-eval", `${dir}/none.csv`],
      "--human-eval is not used by climedbench",
    ],
    ["embeddings on llmeval-med", [
      ...LLMEVAL,
      ...OFFLINE,
      "--judge",
      "offline:overlap",
      "--embed-model",
      "bge-m3",
    ], "--embed-model is not used by llmeval-med"],
    ["fractional limit", [...CLIMED, ...OFFLINE, "--limit", "2.5"], "--limit expects an integer"],
    [
      "temperature out of range",
      [...CLIMED, ...OFFLINE, "--temperature", "3"],
      "--temperature expects a number >= 0 and <= 2",
    ],
    ["not a number", [...CLIMED, ...OFFLINE, "--timeout", "soon"], "--timeout expects a number"],
    ["zero timeout", [...CLIMED, ...OFFLINE, "--timeout", "0"], "--timeout expects a number > 0"],
    [
      "zero judge runs",
      [...LLMEVAL, ...OFFLINE, "--judge", "offline:overlap", "--judge-runs", "0"],
      "--judge-runs expects an integer >= 1",
    ],
    ["unset key variable", [
      ...CLIMED,
      "--model",
      "m",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "--api-key-env",
      "MEDEVAL_TEST_UNSET_KEY",
    ], "--api-key-env: the environment variable MEDEVAL_TEST_UNSET_KEY is not set"],
    ["bad base URL", [...CLIMED, "--model", "m", "--base-url", "localhost 8000"], "is not an http(s) URL"],
    ["no base URL", [...CLIMED, "--model", "m"], "--base-url URL", { OPENAI_BASE_URL: "" }],
    ["ablation that cannot apply", [
      ...LLMEVAL,
      ...OFFLINE,
      "--judge",
      "offline:overlap",
      "--ablation",
      "perturb:nota",
    ], "--ablation perturb:nota: perturb:nota does not apply to llmeval-med"],
    ["unknown ablation", [...CLIMED, ...OFFLINE, "--ablation", "shuffle"], 'unknown ablation "shuffle"'],
    ["bad buckets", [...CLIMED, ...OFFLINE, "--buckets", "length:1"], "--buckets expects length:K"],
    ["unknown flag", [...CLIMED, ...OFFLINE, "--judg", "x"], "unknown option --judg; did you mean --judge?"],
    [
      "judge runs without a judge",
      [...LLMEVAL, ...OFFLINE, "--judge-runs", "2"],
      "--judge-runs needs --judge",
    ],
    [
      "embeddings URL without a model",
      [...CLIMED, ...OFFLINE, "--embed-base-url", "http://127.0.0.1:9/v1"],
      "--embed-base-url needs --embed-model",
    ],
    ["unset judge key variable", [
      ...LLMEVAL,
      ...OFFLINE,
      "--judge",
      "offline:overlap",
      "--judge-api-key-env",
      "MEDEVAL_TEST_UNSET_KEY",
    ], "--judge-api-key-env: the environment variable MEDEVAL_TEST_UNSET_KEY is not set"],
    ["judge without a base URL", [...LLMEVAL, ...OFFLINE, "--judge", "gpt-j"], "--judge-base-url URL", {
      OPENAI_BASE_URL: "",
    }],
    [
      "bad judge base URL",
      [...LLMEVAL, ...OFFLINE, "--judge", "gpt-j", "--judge-base-url", "judge:80"],
      '--judge-base-url: "judge:80" is not an http(s) URL',
    ],
    [
      "no Chromium for figures",
      [...CLIMED, "--model", "offline:reference", "--quiet"],
      "CHROME_PATH=/nonexistent/chromium",
      { CHROME_PATH: "/nonexistent/chromium" },
    ],
  ];
  for (const [what, args, message, env] of cases) {
    const out = `${dir}/${what.replaceAll(" ", "_")}`;
    const result = await runCli([...args, "--out", out], env);
    assertEquals(result.code, 2, `${what}: ${result.stderr}`);
    assertEquals(result.errors.length, 1, `${what}: ${result.stderr}`);
    assert(!result.stderr.includes("    at "), `${what}: no stack trace`);
    assertStringIncludes(result.errors[0], message, what);
    assertEquals(await pathExists(out), false, `${what}: ${out} was created`);
  }
});

Deno.test("CLI: an --out that is a file is refused before anything is written", async () => {
  const file = await Deno.makeTempFile({ prefix: "medeval-cli-" });
  const result = await runCli([...CLIMED, ...OFFLINE, "--out", file]);
  assertEquals(result.code, 2, result.stderr);
  assertStringIncludes(result.errors[0], `--out: ${file} exists and is not a directory`);
});

Deno.test("CLI: a refused --resume leaves the stored run exactly as it was", async () => {
  const out = `${await Deno.makeTempDir({ prefix: "medeval-cli-" })}/run`;
  const first = await runCli([...CLIMED, ...OFFLINE, "--ablation", "perturb:homophone", "--out", out]);
  assertEquals(first.code, 0, first.stderr);
  const snapshot = () => {
    const store = new RunStore(`${out}/run.sqlite`);
    try {
      return { manifest: store.manifest(), events: store.events().length };
    } finally {
      store.close();
    }
  };
  const before = snapshot();
  const args = ["--ablation", "cot", "--ablation", "perturb:homophone", "--perturb-seed", "1", "--resume"];
  const refused = await runCli([...CLIMED, ...OFFLINE, ...args, "--out", out]);
  assertEquals(refused.code, 2, refused.stderr);
  assertStringIncludes(refused.errors[0], "condition:perturb:homophone@0.12");
  assertEquals(snapshot(), before);
});

Deno.test("CLI: reproduce checks every run before the first one starts", async () => {
  const root = await Deno.makeTempDir({ prefix: "medeval-cli-" });
  const noJudge = await runCli(["reproduce", "--no-render", "--out", root], {
    MEDEVAL_MODELS: "some-model",
    OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    MEDEVAL_JUDGE_MODEL: "",
  });
  assertEquals(noJudge.code, 2, noJudge.stderr);
  assertStringIncludes(noJudge.errors[0], "llmeval-med is judge-scored");
  assertEquals(await pathExists(`${root}/runs`), false, "no run was started");
  const zero = await runCli(["reproduce", "--no-render", "--out", root], { MEDEVAL_LIMIT: "0" });
  assertEquals(zero.code, 2, zero.stderr);
  assertStringIncludes(zero.errors[0], "MEDEVAL_LIMIT expects an integer >= 1, got 0");
  const fractional = await runCli(["reproduce", "--no-render", "--out", root, "--limit", "1.5"]);
  assertEquals(fractional.code, 2, fractional.stderr);
  assertStringIncludes(fractional.errors[0], "--limit expects an integer >= 1, got 1.5");
});

Deno.test("CLI: after a refused configuration the corrected command runs without --resume", async () => {
  const out = `${await Deno.makeTempDir({ prefix: "medeval-cli-" })}/run`;
  const refused = await runCli([...LLMEVAL, ...OFFLINE, "--out", out]);
  assertEquals(refused.code, 2);
  const corrected = await runCli([...LLMEVAL, ...OFFLINE, "--judge", "offline:overlap", "--out", out]);
  assertEquals(corrected.code, 0, corrected.stderr);
  assert(await pathExists(`${out}/run.sqlite`));
  const again = await runCli([...LLMEVAL, ...OFFLINE, "--judge", "offline:overlap", "--out", out]);
  assertEquals(again.code, 2);
  assertStringIncludes(again.errors[0], "--out:");
  assertStringIncludes(again.errors[0], "pass --resume");
});
