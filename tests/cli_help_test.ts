/**
 * Every command's own `--help` explains each of its flags; an unknown flag is one line naming the closest
 * known one; a benchmark's help lists only what applies to it.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { closestFlag } from "../lib/cli/args.ts";
import { runCli } from "./run_cli.ts";

/** The commands and subcommands with a help page of their own. */
const COMMANDS = [
  ["reproduce"],
  ["download"],
  ["merge"],
  ["import-ratings"],
  ["collect"],
  ["tag"],
  ["irt"],
  ["irt", "fit"],
  ["irt", "cat"],
  ["irt", "subset"],
  ["irt", "mps"],
];

/** Returns the option lines of a help page: `--flag VALUE   what it does`. */
function flagLines(help: string): Map<string, string> {
  const lines = new Map<string, string>();
  for (const line of help.split("\n")) {
    const match = line.match(/^\s+(?:-\w, )?--([\w-]+)(?: [A-Z][\w.,:=|\[\]-]*(?: \.\.\.)?)?\s{2,}(\S.*)$/);
    if (match) lines.set(match[1], match[2]);
  }
  return lines;
}

Deno.test("CLI: every command's --help is its own page and explains each flag it lists", async () => {
  const global = await runCli(["--help"]);
  assertEquals(global.code, 0);
  const pages = new Set<string>();
  for (const command of COMMANDS) {
    const name = command.join(" ");
    const result = await runCli([...command, "--help"]);
    assertEquals(result.code, 0, `${name}: ${result.stderr}`);
    assertStringIncludes(result.stdout, `deno task ${name}`, name);
    assert(result.stdout.startsWith("usage:"), name);
    assert(result.stdout !== global.stdout, `${name} prints the global usage`);
    assert(!pages.has(result.stdout), `${name} prints another command's page`);
    pages.add(result.stdout);
    for (const [flag, text] of flagLines(result.stdout)) {
      assert(text.trim().length >= 8, `${name} --${flag} is not explained: "${text}"`);
    }
  }
});

Deno.test("CLI: the IRT flags the issue found unexplained are explained on their command's page", async () => {
  const wanted: Record<string, string[]> = {
    fit: ["nodes", "condition", "scorer", "threshold"],
    cat: ["randomesque", "min-items", "max-items", "stop-se"],
  };
  for (const [sub, flags] of Object.entries(wanted)) {
    const lines = flagLines((await runCli(["irt", sub, "--help"])).stdout);
    for (const flag of flags) assert(lines.has(flag), `irt ${sub} --help does not explain --${flag}`);
  }
});

Deno.test("CLI: an unknown flag is one line naming the closest known flag, exit 2", async () => {
  const cases: [string[], string][] = [
    [["eval", "llmeval-med", "--judge-run", "3"], "unknown option --judge-run; did you mean --judge-runs?"],
    [["eval", "climedbench", "--modle", "x"], "unknown option --modle; did you mean --model?"],
    [["reproduce", "--no-rendr"], "unknown option --no-rendr; did you mean --no-render?"],
  ];
  for (const [args, line] of cases) {
    const result = await runCli(args);
    assertEquals(result.code, 2, args.join(" "));
    assertEquals(result.stderr.trim().split("\n").length, 1, result.stderr);
    assertStringIncludes(result.stderr, line);
    assertEquals(result.stderr.includes("'"), false, `parser quoting leaks: ${result.stderr}`);
  }
  const missing = await runCli(["eval", "llmeval-med", "--model"]);
  assertEquals(missing.code, 2);
  assertStringIncludes(missing.stderr, "--model expects a value");
  const unknown = await runCli(["evaluate"]);
  assertEquals(unknown.code, 2);
  assertStringIncludes(unknown.stderr, 'unknown command "evaluate"');
});

Deno.test("closestFlag: prefixes and small edits find the flag; unrelated words find none", () => {
  const known = ["judge", "judge-runs", "judge-base-url", "model", "models", "out", "no-render"];
  assertEquals(closestFlag("judge-run", known), "judge-runs");
  assertEquals(closestFlag("modle", known), "model");
  assertEquals(closestFlag("no-rendr", known), "no-render");
  assertEquals(closestFlag("temperature", known), undefined);
});

Deno.test("CLI: a benchmark's help lists only the ablations that apply to it; others are refused", async () => {
  const persian = await runCli(["eval", "permedcqa", "--help"]);
  const ablation = flagLines(persian.stdout).get("ablation")!;
  assert(ablation, persian.stdout);
  for (const kind of ["shape", "homophone", "traditional", "nota"]) {
    assertEquals(ablation.includes(kind), false, `permedcqa lists ${kind}: ${ablation}`);
  }
  assertStringIncludes(ablation, "fewshot");
  const chinese = flagLines((await runCli(["eval", "climedbench", "--help"])).stdout).get("ablation")!;
  assertStringIncludes(chinese, "shape, homophone, traditional, symbol");
  assertStringIncludes(chinese, "perturb:nota");
  assertEquals(chinese.includes("fewshot"), false, "CliMedBench has no train split");
  const llmeval = flagLines((await runCli(["eval", "llmeval-med", "--help"])).stdout).get("ablation")!;
  assertEquals(llmeval.includes("nota"), false, "LLMEval-Med has no choice items");

  const dir = await Deno.makeTempDir({ prefix: "medeval-help-" });
  try {
    const refused = await runCli([
      "eval",
      "permedcqa",
      "--model",
      "offline:reference",
      "--judge",
      "offline:medjudge",
      "--ablation",
      "perturb:shape",
      "--out",
      `${dir}/run`,
    ]);
    assertEquals(refused.code, 2, refused.stderr);
    assertStringIncludes(refused.errors[0], "perturb:shape does not apply to permedcqa");
    assertEquals([...Deno.readDirSync(dir)].length, 0, "nothing written");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
