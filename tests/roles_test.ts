/**
 * Roles configured once (issue 24): every role takes every key through `--role-opt NAME.KEY=VALUE`, the short
 * aliases (`--judge`, `--judge-runs`, `--translator`, ...) plan exactly what the generic flags plan, defaults
 * come from the option table, and the flags a benchmark takes follow from the roles it declares.
 * @module
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { getTask } from "../lib/benchmarks/registry.ts";
import { ConfigError } from "../lib/core/errors.ts";
import type { Task } from "../lib/core/task.ts";
import type { EvalConfig } from "../lib/pipeline/eval_config.ts";
import { checkEvalOptions } from "../lib/pipeline/check_options.ts";
import { taskOptions } from "../lib/pipeline/eval_options.ts";
import { ROLE_KEYS, roleDefault } from "../lib/pipeline/role_keys.ts";
import { planEval } from "../lib/pipeline/plan.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { DEFAULT_CONCURRENCY } from "../lib/providers/types.ts";
import type { ChatProvider } from "../lib/providers/types.ts";
import { startFakeServer } from "./fake_server.ts";
import { ROOT, runCli } from "./run_cli.ts";
import { walkFiles } from "./walk.ts";

const LLMEVAL = `${ROOT}data/llmeval_med/sample.json`;
const CLIMED = `${ROOT}data/climedbench/sample.jsonl`;
const NOWHERE = "http://127.0.0.1:9/v1";
const KEY = "MEDEVAL_ROLES_TEST_KEY";
Deno.env.set(KEY, "roles-test-key");

/** A judged LLMEval-Med run asked through English (so a translator is called), planned only. */
function llmeval(extra: Partial<EvalConfig> = {}): EvalConfig {
  return {
    benchmark: "llmeval-med",
    model: "m",
    baseUrl: NOWHERE,
    data: LLMEVAL,
    limit: 2,
    out: `${Deno.makeTempDirSync({ prefix: "medeval-roles-" })}/run`,
    renderFigures: false,
    ablations: ["pivot:en"],
    ...extra,
  };
}

/** The rate caps and window ceiling of a served provider's first endpoint (what `--rpm`/`--tpm` set). */
function limitsOf(provider: ChatProvider): { rpm?: number; tpm?: number; concurrency: number } {
  const pool = provider as unknown as {
    endpoints: { caps: { requests?: { limit: number }; tokens?: { limit: number } } }[];
  };
  const caps = pool.endpoints[0].caps;
  return { rpm: caps.requests?.limit, tpm: caps.tokens?.limit, concurrency: provider.concurrency };
}

/** The value `--role-opt` is given for each key in the test below. */
const VALUES: Record<string, string> = {
  "base-url": "http://127.0.0.1:19/v1",
  "api-key-env": KEY,
  "api-version": "2024-10-21",
  concurrency: "3",
  rpm: "60",
  tpm: "5000",
  temperature: "0.5",
  seed: "7",
  "max-tokens": "99",
  runs: "2",
};

Deno.test("--role-opt sets every key of every role (model, judge, translator, a task's own, embed)", async () => {
  const cases: [string, Partial<EvalConfig>][] = [
    ["model", { judge: "j", translator: "t" }],
    ["judge", { judge: "j", translator: "t" }],
    ["translator", { judge: "j", translator: "t" }],
  ];
  for (const [role, extra] of cases) {
    for (const key of ROLE_KEYS.filter((k) => k.key !== "model")) {
      const option = `${role}.${key.key}=${VALUES[key.key]}`;
      const config = llmeval({ ...extra, roleOptions: [option] });
      if (role === "model" && key.key === "base-url") delete config.baseUrl; // given here instead
      if (key.only && !key.only.includes(role)) {
        await assertRejects(
          () => planEval(config),
          ConfigError,
          `--role-opt ${role}.${key.key}: the ${role} role`,
        );
        continue;
      }
      const plan = await planEval(config);
      const planned = plan.roles.find((r) => r.name === role)!;
      const provider = planned.providers[0];
      const value = Number(VALUES[key.key]);
      switch (key.field) {
        case "baseUrl":
          assertEquals(plan.endpoints[role], ["127.0.0.1:19/v1"], option);
          break;
        case "apiKeyEnv":
          break; // read below, against a server
        case "apiVersion":
          assertEquals(provider.shape?.record().api_version, VALUES[key.key], option);
          break;
        case "concurrency":
          assertEquals(limitsOf(provider).concurrency, value, option);
          break;
        case "rpm":
        case "tpm":
          assertEquals(limitsOf(provider)[key.field], value, option);
          break;
        case "runs":
          assertEquals(plan.judgeRuns, value, option);
          break;
        default:
          assertEquals(planned.defaults[key.field as "temperature" | "seed" | "maxTokens"], value, option);
      }
    }
  }
  // A task's own role (MedGPTEval's rephraser) and the embeddings model take the same keys.
  const rephrased = await planEval({
    benchmark: "medgpteval",
    model: "m",
    baseUrl: NOWHERE,
    judge: "offline:rubric",
    robustness: true,
    robustnessVariants: 1,
    roles: ["rephraser=r"],
    roleOptions: ["rephraser.rpm=30", "rephraser.temperature=0.2", "rephraser.concurrency=2"],
    limit: 2,
    out: `${Deno.makeTempDirSync()}/run`,
    renderFigures: false,
  });
  const rephraser = rephrased.roles.find((r) => r.name === "rephraser")!;
  assertEquals(limitsOf(rephraser.providers[0]).rpm, 30);
  assertEquals(limitsOf(rephraser.providers[0]).concurrency, 2);
  assertEquals(rephraser.defaults.temperature, 0.2);
  const embedded = await planEval({
    benchmark: "climedbench",
    model: "offline:reference",
    embedModel: "e",
    roleOptions: ["embed.base-url=http://127.0.0.1:21/v1", "embed.rpm=12", "embed.concurrency=4"],
    data: CLIMED,
    out: `${Deno.makeTempDirSync()}/run`,
    renderFigures: false,
  });
  const embed = embedded.roles.find((r) => r.name === "embed")!;
  assertEquals(embedded.endpoints.embed, ["127.0.0.1:21/v1"]);
  assertEquals(limitsOf(embed.providers[0]), { rpm: 12, tpm: undefined, concurrency: 4 });
  await assertRejects(
    () =>
      planEval({
        ...llmeval(),
        benchmark: "climedbench",
        data: CLIMED,
        ablations: [],
        embedModel: "e",
        roleOptions: ["embed.temperature=1"],
      }),
    ConfigError,
    "--role-opt embed.temperature: the embed role takes no temperature",
  );
});

Deno.test("--role-opt translator.rpm is honoured: the translator's requests are capped", async () => {
  const plan = await planEval(llmeval({ judge: "j", translator: "t", roleOptions: ["translator.rpm=60"] }));
  const translator = plan.roles.find((r) => r.name === "translator")!;
  assertEquals(limitsOf(translator.providers[0]).rpm, 60);
  // Without it, the translator is uncapped (as before: it had no rate flags).
  const plain = await planEval(llmeval({ judge: "j", translator: "t" }));
  assertEquals(limitsOf(plain.roles.find((r) => r.name === "translator")!.providers[0]).rpm, undefined);
});

Deno.test("--role-opt embed.api-key-env: the embeddings model is called with that variable's key", async () => {
  const server = await startFakeServer();
  Deno.env.set("MEDEVAL_ROLES_EMB_KEY", "emb-secret-key");
  Deno.env.set("MEDEVAL_ROLES_MODEL_KEY", "model-secret-key");
  const out = await Deno.makeTempDir({ prefix: "medeval-roles-embed-" });
  try {
    await runEval({
      benchmark: "climedbench",
      model: "fake-model",
      baseUrl: server.url,
      apiKeyEnv: "MEDEVAL_ROLES_MODEL_KEY",
      embedModel: "fake-embed",
      roleOptions: ["embed.api-key-env=MEDEVAL_ROLES_EMB_KEY"],
      data: CLIMED,
      out,
      progress: false,
      renderFigures: false,
      retryPolicy: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2 },
    });
    const embeddings = server.requests.filter((r) => r.path.endsWith("/embeddings"));
    const chats = server.requests.filter((r) => r.path.endsWith("/chat/completions"));
    assert(embeddings.length > 0 && chats.length > 0);
    assert(embeddings.every((r) => r.authorization === "Bearer emb-secret-key"));
    assert(chats.every((r) => r.authorization === "Bearer model-secret-key"));
    // An unset variable is named with the flag, before anything is sent.
    await assertRejects(
      () =>
        planEval({
          benchmark: "climedbench",
          model: "offline:reference",
          embedModel: "e",
          baseUrl: NOWHERE,
          roleOptions: ["embed.api-key-env=MEDEVAL_ROLES_UNSET"],
          data: CLIMED,
          out: `${out}/other`,
          renderFigures: false,
        }),
      ConfigError,
      "--role-opt embed.api-key-env: the environment variable MEDEVAL_ROLES_UNSET is not set",
    );
  } finally {
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("unknown roles, keys and values are one-line errors naming the closest name", async () => {
  const cases: [Partial<EvalConfig>, string][] = [
    [
      { judge: "j", roleOptions: ["judge.rnus=2"] },
      '--role-opt judge.rnus: unknown key "rnus"; did you mean runs?',
    ],
    [{ judge: "j", roleOptions: ["translatr.rpm=60"] }, "nothing in this run calls a translatr"],
    [
      { judge: "j", roleOptions: ["translator.runs=2"], translator: "t" },
      "the translator role takes no runs",
    ],
    [{ judge: "j", roleOptions: ["judge.runs=0"] }, '--role-opt judge.runs expects an integer >= 1, got "0"'],
    [{ judge: "j", roleOptions: ["judge.runs"] }, "--role-opt: expected NAME.KEY=VALUE"],
    [
      { judge: "j", judgeRuns: 2, roleOptions: ["judge.runs=3"] },
      "--role-opt judge.runs: also given as --judge-runs",
    ],
    [{ judge: "j", roles: ["judge=k"] }, "--role: also given as --judge"],
    [{ judge: "j", roles: ["rephraser=r"] }, "--role rephraser=…: nothing in this run calls a rephraser"],
  ];
  for (const [extra, message] of cases) {
    const error = await assertRejects(() => planEval(llmeval(extra)), ConfigError);
    assertStringIncludes(error.message, message);
    assert(!error.message.includes("\n"), error.message);
  }
  const typo = await assertRejects(() =>
    planEval(llmeval({ judge: "j", roleOptions: ["translatr.rpm=60"] }))
  );
  assertStringIncludes((typo as Error).message, "did you mean translator?");
  // On the command line too: one line, exit 2.
  const cli = await runCli([
    "eval",
    "llmeval-med",
    "--model",
    "offline:reference",
    "--judge",
    "offline:overlap",
    "--role-opt",
    "judge.rnus=2",
  ]);
  assertEquals(cli.code, 2);
  assertEquals(
    cli.stderr.trim(),
    'error: --role-opt judge.rnus: unknown key "rnus"; did you mean runs? (keys: model, base-url, api-key-env, api-version, concurrency, rpm, tpm, temperature, seed, max-tokens, runs)',
  );
});

/** What two configs must agree on to be the same run: identity, roles, providers' settings. */
async function planned(config: EvalConfig) {
  const plan = await planEval(config);
  return {
    identity: plan.identity,
    judgeRuns: plan.judgeRuns,
    endpoints: plan.endpoints,
    roles: plan.roles.map((r) => ({
      name: r.name,
      defaults: r.defaults,
      providers: r.providers.map((p) => ({ label: p.label, ...(p.offline ? {} : limitsOf(p)) })),
    })),
  };
}

Deno.test("aliases plan what the generic flags plan: --judge X --judge-runs 2 ≡ --role judge=X --role-opt judge.runs=2", async () => {
  const out = `${Deno.makeTempDirSync()}/run`;
  const base = { ...llmeval(), out, ablations: ["pivot:en"] };
  const alias = await planned({
    ...base,
    judge: "j",
    judgeRuns: 2,
    judgeBaseUrl: "http://127.0.0.1:31/v1",
    judgeRpm: 40,
    judgeSeed: 5,
    translator: "t",
    translatorConcurrency: 2,
  });
  const generic = await planned({
    ...base,
    roles: ["judge=j", "translator=t"],
    roleOptions: [
      "judge.runs=2",
      "judge.base-url=http://127.0.0.1:31/v1",
      "judge.rpm=40",
      "judge.seed=5",
      "translator.concurrency=2",
    ],
  });
  const record = await planned({
    ...base,
    roles: {
      judge: { model: "j", runs: 2, baseUrl: "http://127.0.0.1:31/v1", rpm: 40, seed: 5 },
      translator: { model: "t", concurrency: 2 },
    },
  });
  assertEquals(generic, alias);
  assertEquals(record, alias);
  assertEquals(alias.judgeRuns, 2);
  // The model too: --model/--concurrency ≡ --role model=…/--role-opt model.concurrency=….
  const { model: _model, ...noModel } = base;
  assertEquals(
    await planned({
      ...noModel,
      model: undefined as unknown as string,
      judge: "j",
      ablations: [],
      roles: ["model=m"],
      roleOptions: ["model.concurrency=3"],
    }),
    await planned({ ...base, judge: "j", ablations: [], concurrency: 3 }),
  );
  // A jury through --role judge=… repeated, as through --judge repeated.
  assertEquals(
    await planned({ ...base, roles: ["judge=a", "judge=b"], ablations: [] }),
    await planned({ ...base, judge: ["a", "b"], ablations: [] }),
  );
});

Deno.test("defaults live once, in the option table", async () => {
  const plan = await planEval(llmeval({ judge: "j", translator: "t" }));
  assertEquals(plan.judgeRuns, roleDefault("judge", "runs"));
  assertEquals(plan.identity.judge_params.seed, roleDefault("judge", "seed"));
  for (const role of plan.roles) {
    assertEquals(role.providers[0].concurrency, roleDefault(role.name, "concurrency"), role.name);
  }
  assertEquals(roleDefault("translator", "concurrency"), DEFAULT_CONCURRENCY);
  // Other roles inherit the model's concurrency when they set none.
  const shared = await planEval(llmeval({ judge: "j", translator: "t", concurrency: 2 }));
  assertEquals(shared.roles.map((r) => r.providers[0].concurrency), [2, 2, 2]);
  // No other copy of the default concurrency in the code.
  const copies: string[] = [];
  for await (const path of walkFiles(`${ROOT}lib`)) {
    if (!path.endsWith(".ts")) continue;
    if (/\?\?\s*8\b/.test(await Deno.readTextFile(path))) copies.push(path);
  }
  assertEquals(copies, []);
});

/** A task like `base` with its own scorers and roles. */
function variant(base: Task, change: Partial<Task>): Task {
  return { ...base, ...change };
}

Deno.test("the flags a benchmark takes follow from the roles its scorers, solver and role table declare", async () => {
  const climed = await getTask("climedbench");
  const llm = await getTask("llmeval-med");
  const flags = (task: Task) => taskOptions(task).map((o) => o.flag);
  assert(flags(llm).includes("judge-runs") && !flags(llm).includes("embed-model"));
  assert(flags(climed).includes("embed-model") && !flags(climed).includes("judge"));
  // Give CliMedBench a judge-calling scorer: the judge flags apply; take its embed role away: they go.
  const judged = variant(climed, { scorers: [...climed.scorers, { ...llm.scorers[0] }], roles: [] });
  assert(flags(judged).includes("judge") && flags(judged).includes("judge-rpm"));
  assert(!flags(judged).includes("embed-model"));
  // A judge flag given to a benchmark without a judge is one line naming the benchmark's own flags.
  const error = (() => {
    try {
      checkEvalOptions({ benchmark: "climedbench", model: "m", out: "x", judgeRuns: 2 }, climed);
    } catch (e) {
      return e as Error;
    }
  })();
  assert(error instanceof ConfigError);
  assertEquals(
    error.message,
    "--judge-runs is not used by climedbench (its own flags: --embed-model, --embed-base-url)",
  );
  // `--help` of one benchmark lists only what applies.
  const help = await runCli(["eval", "climedbench", "--help"]);
  assertStringIncludes(help.stdout, "--embed-model");
  assertStringIncludes(help.stdout, "--role-opt");
  assert(!help.stdout.includes("--judge-runs"));
});

Deno.test("a role's alias flags need its model however it is given (--role judge=X --judge-runs 2)", async () => {
  const plan = await planEval(
    llmeval({ roles: ["judge=j", "translator=t"], judgeRuns: 2, translatorConcurrency: 3 }),
  );
  assertEquals(plan.judgeRuns, 2);
  assertEquals(plan.roles.find((r) => r.name === "translator")!.providers[0].concurrency, 3);
  await assertRejects(
    () => planEval(llmeval({ translator: "t", judgeRuns: 2 })),
    ConfigError,
    "--judge-runs needs --judge",
  );
});
