import { assert, assertEquals } from "@std/assert";
import { sha256Hex } from "../lib/core/hash.ts";
import { walkFiles } from "./walk.ts";
import { reproduce, reproduceEnv } from "../lib/cli/reproduce.ts";
import { SummarySchema } from "../lib/core/summary.ts";
import { scriptedReply } from "./fake_judge.ts";
import { medJudgeReply } from "./fake_medjudge.ts";
import { MODEL_ANSWER_HEADING } from "../lib/benchmarks/permedcqa/prompts.ts";
import { startFakeServer } from "./fake_server.ts";

/** Hashes of every file under `root/reports` and every SVG/HTML figure under `root/figures`, by relative path. */
async function outputHashes(root: string): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  const walk = async (dir: string) => {
    for await (const path of walkFiles(dir)) {
      // The viewer's data chunks hold what differs between runs by nature (each call's latency and time, the run's
      // creation time and directory), as the runs' logs do; its pages and code are compared.
      if (path.includes("/reports/view/data/")) continue;
      if (path.includes("/reports/") || /\.(svg|html)$/.test(path)) {
        hashes[path.slice(root.length + 1)] = sha256Hex(await Deno.readFile(path));
      }
    }
  };
  await walk(`${root}/reports`);
  await walk(`${root}/figures`);
  return hashes;
}

Deno.test({
  name: "reproduce: two runs give byte-identical tables, claims, index and SVGs; every link resolves",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const roots = [await Deno.makeTempDir(), await Deno.makeTempDir()];
    for (const root of roots) await reproduce({ root, formats: ["svg"], log: false });
    const [a, b] = await Promise.all(roots.map(outputHashes));
    assertEquals(Object.keys(a).sort(), Object.keys(b).sort());
    const differing = Object.keys(a).filter((k) => a[k] !== b[k]);
    assertEquals(differing, [], `files differ between runs: ${differing.join(", ")}`);

    const files = Object.keys(a);
    for (const paper of ["climedbench", "medgpteval", "permedcqa", "llmeval_med"]) {
      assert(files.some((f) => f.startsWith(`reports/papers/${paper}/`) && f.endsWith(".tex")), paper);
    }
    assert(files.includes("reports/papers/climedbench/table2.md"));
    assert(files.includes("figures/papers/climedbench/table2_heatmap.svg"));
    assert(files.includes("figures/papers/medgpteval/table3_radar.svg"));
    assert(files.some((f) => f.startsWith("reports/runs/llmeval-med/")));
    assert(files.includes("reports/view/index.html"), "reproduce writes the viewer");
    for (const root of roots) assert((await Deno.stat(`${root}/reports/view/data/meta.js`)).isFile);

    const claims = JSON.parse(await Deno.readTextFile(`${roots[0]}/reports/claims.json`));
    assert(claims.length > 80);
    for (const c of claims) {
      for (const key of ["paper", "where", "claim", "stated", "recomputed", "holds"]) assert(key in c, key);
      assert(typeof c.stated === "number" || Array.isArray(c.stated));
      assert(c.recomputed === null || typeof c.recomputed === "number");
    }
    // CliMedBench Table 3 with the toolkit's own CAT on the shipped sample beside the paper's two rows.
    const table3 = await Deno.readTextFile(`${roots[0]}/reports/papers/climedbench/table3.md`);
    const cat = JSON.parse(await Deno.readTextFile(`${roots[0]}/reports/irt/sample_cat.json`));
    assert(
      table3.includes("| CAT Zhuang et al. (2023) | 32.10 |") &&
        table3.includes("| Our Agent-based CAT | 40.74 |"),
    );
    assert(table3.includes(`medeval CAT, shipped sample: ${cat.items} choice items`), table3);
    assert(table3.includes(`${(cat.accuracy.value * 100).toFixed(2)} [`) && cat.accuracy.n > 1000);
    assert(cat.converged && cat.accuracy.value > 0.5 && cat.accuracy.value < 1);
    const tex = await Deno.readTextFile(`${roots[0]}/reports/papers/climedbench/table2.tex`);
    assert(tex.includes("\\toprule") && tex.includes("67.13"));

    const index = await Deno.readTextFile(`${roots[0]}/reports/index.html`);
    const targets = [...index.matchAll(/(?:href|src)="([^"#]+)"/g)].map((m) => m[1]);
    assert(targets.length > 100, `only ${targets.length} links`);
    const missing: string[] = [];
    for (const target of new Set(targets)) {
      if (target.startsWith("../data/")) continue; // the project's own files, outside the output root
      const path = new URL(target, `file://${roots[0]}/reports/index.html`).pathname;
      try {
        await Deno.stat(path);
      } catch {
        missing.push(target);
      }
    }
    assertEquals(missing, []);
    for (const root of roots) await Deno.remove(root, { recursive: true });
  },
});

Deno.test({
  name: "reproduce with real models: runs them on every benchmark and puts them beside the paper's rows",
  async fn() {
    // LLMEval-Med's judge by its script; PerMedCQA's MedJudge by its own.
    const server = await startFakeServer({
      reply: (body) =>
        JSON.stringify(body.messages).includes(MODEL_ANSWER_HEADING)
          ? medJudgeReply(body)
          : scriptedReply(body),
    });
    const SECRET = "sk-reproduce-test-0123456789abcdef";
    Deno.env.set("OPENAI_API_KEY", SECRET);
    const root = await Deno.makeTempDir();
    try {
      const env = reproduceEnv({
        get: (name) =>
          ({ MEDEVAL_MODELS: "fake-model", MEDEVAL_JUDGE_MODEL: "fake-judge", OPENAI_BASE_URL: server.url })[
            name
          ],
      });
      assertEquals(env.models, ["fake-model"]);
      await reproduce({
        root,
        ...env,
        render: false,
        log: false,
        papersDir: new URL("./fixtures/papers/", import.meta.url).pathname,
      });
      const summary = SummarySchema.parse(
        JSON.parse(await Deno.readTextFile(`${root}/runs/reproduce/llmeval-med/fake-model/summary.json`)),
      );
      assertEquals(summary.offline, false);
      const table = await Deno.readTextFile(`${root}/reports/papers/toy_llmeval/usability.md`);
      const row = table.split("\n").find((l) => l.startsWith("| fake-model @ 127.0.0.1"));
      assert(!table.includes("offline:"), "offline baselines are not placed beside the paper's models");
      assert(row, table);
      const mk = summary.groups.category.MK.usability;
      const expected = `${(mk.value! * 100).toFixed(1)} [${(mk.ci95![0] * 100).toFixed(1)}, ${
        (mk.ci95![1] * 100).toFixed(1)
      }] (n=${mk.n})`;
      assertEquals(row.split(" | ")[1], expected);
      assert(row.endsWith(`(n=${summary.n}) |`), row);
      const overview = await Deno.readTextFile(`${root}/reports/runs/llmeval-med/overview.md`);
      assert(
        overview.includes("| fake-model @ 127.0.0.1") && overview.includes("offline:reference [offline]"),
        overview,
      );
      const answerCalls = server.requests.filter((r) =>
        (r.body as { model?: string })?.model === "fake-model"
      );
      // One answer per sample of every registered benchmark (the others run beside LLMEval-Med).
      const others = await Promise.all(["climedbench", "permedcqa"].map(async (name) =>
        SummarySchema.parse(
          JSON.parse(await Deno.readTextFile(`${root}/runs/reproduce/${name}/fake-model/summary.json`)),
        ).n
      ));
      // MedGPTEval's summary counts items (a dialogue is one); its answers are one per round.
      const medgptevalAnswers = JSON.parse(
        await Deno.readTextFile(`${root}/runs/reproduce/medgpteval/fake-model/summary.json`),
      ).counts.samples;
      // The task files in tasks/ run beside the built-ins too, one answer per sample.
      let taskFileAnswers = 0;
      for await (const entry of Deno.readDir(`${root}/runs/reproduce`)) {
        if (["llmeval-med", "climedbench", "permedcqa", "medgpteval"].includes(entry.name)) continue;
        taskFileAnswers += JSON.parse(
          await Deno.readTextFile(`${root}/runs/reproduce/${entry.name}/fake-model/summary.json`),
        ).counts.samples;
      }
      assert(taskFileAnswers > 0, "the shipped task files ran with the real models");
      assertEquals(
        answerCalls.length,
        summary.n + others[0] + others[1] + medgptevalAnswers + taskFileAnswers,
      );
      assert(server.requests.every((r) => r.authorization === `Bearer ${SECRET}`));
      for await (const entry of Deno.readDir(`${root}/reports/runs/llmeval-med`)) {
        const text = await Deno.readTextFile(`${root}/reports/runs/llmeval-med/${entry.name}`);
        assert(!text.includes(SECRET), entry.name);
      }
    } finally {
      Deno.env.delete("OPENAI_API_KEY");
      await server.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});
