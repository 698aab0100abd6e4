import { assertEquals } from "@std/assert";
import { withoutKeyVariables } from "../lib/pipeline/rebuild_run.ts";

Deno.test("replanning a stored run drops every key variable, --role-opt NAME.api-key-env included", () => {
  const recorded = {
    benchmark: "llmeval-med",
    apiKeyEnv: "MODEL_KEY",
    judgeApiKeyEnv: "JUDGE_KEY",
    roleApiKeyEnvs: ["rephraser=R_KEY"],
    roleOptions: ["judge.api-key-env=J2", "translator.rpm=60"],
  };
  assertEquals(withoutKeyVariables(recorded), {
    benchmark: "llmeval-med",
    roleOptions: ["translator.rpm=60"],
  });
});
