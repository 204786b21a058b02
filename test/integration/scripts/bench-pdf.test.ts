/**
 * The PDF section of `npm run bench` runs and reports its figures with their anchors (it once
 * failed on its first fresh process without anyone noticing). One run, one one-page sample: the
 * figures themselves belong to the bench, not to a test.
 */
import path from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT } from "../../../infra/webgate-stack";
import { benchPdf } from "../../../scripts/lib/bench-pdf";

it("builds the reader as Lambda ships it and reports the fetch handler, the HTML anchor and the first PDF", async () => {
  const { section } = await benchPdf({ repoRoot: REPO_ROOT, outDir: path.join(REPO_ROOT, "cdk.out", "test-bench-pdf"), runs: 1, samples: [{ name: "1 page", pages: 1 }] });
  const steps = section.rows.map((r) => String(r[0]));
  expect(steps).toEqual([
    "anchor: cold import of an empty module",
    expect.stringMatching(/^cold import of the fetch handler bundle \(\d+ KB, pdf\.js not in it\)$/),
    "import the bundled HTML pipeline",
    "anchor: first HTML page of a process (article, main_content)",
    "import the bundled PDF reader (no pdf.js yet)",
    "first PDF of a process: worker start + pdf.js load + 1 page",
    "warm worker: 1 page",
  ]);
  for (const row of section.rows) expect(Number(row[1]), String(row[0])).toBeGreaterThan(0);
  const data = section.data as { handlerHasPdfJs: boolean; handlerBytes: number; workerBytes: number; raw: { runs: Array<{ chars: number[]; htmlChars: number }> } };
  expect(data.handlerHasPdfJs).toBe(false);
  expect(data.handlerBytes).toBeGreaterThan(100_000);
  expect(data.workerBytes).toBeGreaterThan(data.handlerBytes / 2);
  // Both anchors read real content: the sample PDF's text and the article's.
  expect(data.raw.runs[0]!.chars[0]).toBeGreaterThan(2_000);
  expect(data.raw.runs[0]!.htmlChars).toBeGreaterThan(5_000);
}, 120_000);
