import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { FigureRenderer, normalizeSvgIds, paperLayout, sortSvgAttributes } from "../lib/report/figures.ts";

Deno.test("sortSvgAttributes puts attributes in name order, whatever order Plotly set them in", () => {
  const a = '<svg width="720" style="" viewBox="0 0 720 420"><rect y="0" x="1"/><g class="a b"></g></svg>';
  const b = '<svg width="720" viewBox="0 0 720 420" style=""><rect x="1" y="0" /><g class="a b"></g></svg>';
  assertEquals(sortSvgAttributes(a), sortSvgAttributes(b));
  assertEquals(
    sortSvgAttributes(a),
    '<svg style="" viewBox="0 0 720 420" width="720"><rect x="1" y="0"/><g class="a b"></g></svg>',
  );
});

Deno.test("normalizeSvgIds renames generated ids and every reference to them", () => {
  const svg =
    '<svg><clipPath id="clip3fa2"><rect/></clipPath><g clip-path="url(#clip3fa2)"></g><use href="#clip3fa2"/></svg>';
  assertEquals(
    normalizeSvgIds(svg),
    '<svg><clipPath id="fig-id-0"><rect/></clipPath><g clip-path="url(#fig-id-0)"></g><use href="#fig-id-0"/></svg>',
  );
  // colour bars reference their gradient in single quotes
  assertEquals(
    normalizeSvgIds(`<linearGradient id="gc47-cb0"/><rect style="fill: url('#gc47-cb0');"/>`),
    `<linearGradient id="fig-id-0"/><rect style="fill: url('#fig-id-0');"/>`,
  );
});

Deno.test("the same figure renders to byte-identical SVG twice, and to PNG and PDF", async () => {
  const spec = {
    data: [{ type: "bar", x: ["MK", "医疗推理"], y: [40, 60], error_y: { type: "data", array: [5, 7] } }],
    layout: paperLayout({ title: { text: "determinism" } }),
  };
  const dir = await Deno.makeTempDir();
  const renderer = await FigureRenderer.launch();
  try {
    await renderer.render(`${dir}/a`, "f", spec);
    await renderer.render(`${dir}/b`, "f", spec, ["svg"]);
  } finally {
    await renderer.close();
  }
  const a = await Deno.readTextFile(`${dir}/a/f.svg`);
  assertEquals(a, await Deno.readTextFile(`${dir}/b/f.svg`));
  assertStringIncludes(a, "医疗推理");
  const png = await Deno.readFile(`${dir}/a/f.png`);
  assertEquals([...png.slice(1, 4)].map((c) => String.fromCharCode(c)).join(""), "PNG");
  const pdf = await Deno.readFile(`${dir}/a/f.pdf`);
  assert(new TextDecoder().decode(pdf.slice(0, 5)) === "%PDF-");
});
