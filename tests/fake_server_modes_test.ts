/**
 * The fake server's provider behaviours that doctor and the endpoint tests rely on: seeds ignored, JSON mode
 * honoured/ignored/refused, rejected parameters, Azure's paths and key header, and the `/models` list.
 * @module
 */
import { assert, assertEquals, assertMatch } from "@std/assert";
import { type FakeServerOptions, startFakeServer } from "./fake_server.ts";

async function post(
  options: FakeServerOptions,
  body: Record<string, unknown>,
  path = "/chat/completions",
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown>[] }> {
  const server = await startFakeServer(options);
  const origin = new URL(server.url).origin;
  const json: Record<string, unknown>[] = [];
  let status = 0;
  try {
    for (let i = 0; i < 2; i++) {
      const url = path.startsWith("/openai") ? `${origin}${path}` : `${server.url}${path}`;
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], ...body }),
      });
      status = res.status;
      json.push(await res.json());
    }
  } finally {
    await server.close();
  }
  return { status, json };
}

function content(answer: Record<string, unknown>): string {
  return (answer.choices as { message: { content: string } }[])[0].message.content;
}

Deno.test("fake: identical requests get identical replies unless seeds are ignored", async () => {
  const same = await post({}, { seed: 1 });
  assertEquals(content(same.json[0]), content(same.json[1]));
  const ignored = await post({ ignoreSeed: true }, { seed: 1 });
  assert(content(ignored.json[0]) !== content(ignored.json[1]));
});

Deno.test("fake: JSON mode honoured wraps a plain reply, ignored leaves it, refused answers 400", async () => {
  const json = { response_format: { type: "json_object" } };
  const honoured = await post({ jsonMode: "honoured" }, json);
  assertEquals(typeof JSON.parse(content(honoured.json[0])).answer, "string");
  const ignored = await post({ jsonMode: "ignored" }, json);
  assertMatch(content(ignored.json[0]), /^Fake answer/);
  const refused = await post({ jsonMode: "refused" }, json);
  assertEquals(refused.status, 400);
  assertEquals((refused.json[0].error as { param: string }).param, "response_format");
});

Deno.test("fake: rejectParameters answers OpenAI's unsupported_parameter 400", async () => {
  const { status, json } = await post({ rejectParameters: () => ["seed"] }, { seed: 3 });
  assertEquals(status, 400);
  assertEquals((json[0].error as { code: string }).code, "unsupported_parameter");
  assertEquals((await post({ rejectParameters: () => ["seed"] }, {})).status, 200);
});

Deno.test("fake: Azure serves only its deployment path with api-version and the api-key header", async () => {
  const azure = { deployment: "dep", apiKey: "k" };
  const good = "/openai/deployments/dep/chat/completions?api-version=2024-10-21";
  assertEquals((await post({ azure }, {}, good, { "api-key": "k" })).status, 200);
  assertEquals((await post({ azure }, {}, good, { "authorization": "Bearer k" })).status, 401);
  assertEquals(
    (await post({ azure }, {}, "/openai/deployments/dep/chat/completions", { "api-key": "k" })).status,
    404,
  );
});

Deno.test("fake: /models lists the models it is given", async () => {
  const server = await startFakeServer({ models: ["a", "b"] });
  try {
    const list = await (await fetch(`${server.url}/models`)).json();
    assertEquals(list.data.map((m: { id: string }) => m.id), ["a", "b"]);
  } finally {
    await server.close();
  }
});
