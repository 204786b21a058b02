/**
 * `tsx scripts/conversion-identity.ts write <file.json> | check <file.json>`
 *
 * The identity check of speed-only changes to the conversion: every page of
 * `../shared/extraction-eval` (990) and `../shared/corpus/readability` (87), in both `main_content`
 * modes and both formats, through `renderDocument`, plus the cost shapes (scripts/lib/cost-shapes.ts)
 * at 10 KB, 100 KB and 1 MB. `write` records each conversion's SHA-256 (or its error code) from the
 * code as it is (run it on main's code first); `check` converts again and lists every conversion
 * whose output differs, exiting 1 if any does. Not part of `npm test` (it takes minutes).
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { renderDocument } from "../shared/content/render";
import type { OutputFormat } from "../shared/content/html-to-markdown";
import { loadCorpus } from "./lib/corpus";
import { ORDINARY_SHAPE, PATHOLOGICAL_SHAPES } from "./lib/cost-shapes";
import { loadEvalSet } from "./lib/extraction-eval";
import { findSharedDir } from "./lib/shared-dir";

interface Input {
  key: string;
  bytes: Uint8Array;
  contentType: string | undefined;
  url: string;
}

function inputs(): Input[] {
  const shared = findSharedDir();
  if (shared === null) throw new Error("no ../shared folder (set WEBGATE_SHARED_DIR)");
  const out: Input[] = [];
  for (const page of loadEvalSet(path.join(shared, "extraction-eval"))) out.push({ key: `eval/${page.file}`, bytes: page.bytes, contentType: undefined, url: page.url });
  for (const page of loadCorpus(path.join(shared, "corpus/readability"))) out.push({ key: `corpus/${page.name}`, bytes: page.source, contentType: "text/html; charset=utf-8", url: "http://fakehost/test/page.html" });
  for (const shape of [ORDINARY_SHAPE, ...PATHOLOGICAL_SHAPES]) {
    for (const size of [10_000, 100_000, 1_000_000]) out.push({ key: `shape/${shape.name}/${size}`, bytes: new TextEncoder().encode(shape.make(size)), contentType: "text/html; charset=utf-8", url: "https://example.com/article.html" });
  }
  return out;
}

function convertAll(): Record<string, string> {
  const result: Record<string, string> = {};
  for (const input of inputs()) {
    for (const mainContent of [false, true]) {
      for (const format of ["markdown", "text"] as OutputFormat[]) {
        let digest: string;
        try {
          const doc = renderDocument({ body: input.bytes, contentType: input.contentType, finalUrl: input.url, mainContent, format });
          digest = createHash("sha256").update(JSON.stringify([doc.content, doc.title, doc.extractor, doc.truncated ?? false])).digest("hex");
        } catch (error) {
          digest = `error:${(error as { code?: string }).code ?? String(error)}`;
        }
        result[`${input.key} main_content=${mainContent} ${format}`] = digest;
      }
    }
  }
  return result;
}

const [mode, file] = process.argv.slice(2);
if ((mode !== "write" && mode !== "check") || file === undefined) {
  console.error("usage: tsx scripts/conversion-identity.ts write|check <file.json>");
  process.exit(2);
}
const started = performance.now();
const now = convertAll();
const seconds = ((performance.now() - started) / 1000).toFixed(0);
if (mode === "write") {
  writeFileSync(file, JSON.stringify(now, null, 1));
  console.log(`${Object.keys(now).length} conversions recorded in ${file} (${seconds} s)`);
} else {
  const before = JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
  const keys = new Set([...Object.keys(before), ...Object.keys(now)]);
  const differ = [...keys].filter((k) => before[k] !== now[k]);
  for (const k of differ) console.log(`differs: ${k}`);
  console.log(`${keys.size} conversions compared, ${differ.length} differ (${seconds} s)`);
  process.exit(differ.length === 0 ? 0 : 1);
}
