import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";

/** One page of the readability corpus. */
export interface CorpusPage {
  name: string;
  /** source.html as bytes (the corpus pages are UTF-8). */
  source: Uint8Array;
  html: string;
  expectedHtml: string;
}

/** Loads every `<name>/source.html` + `expected.html` of a corpus folder, sorted by name. */
export function loadCorpus(folder: string): CorpusPage[] {
  return readdirSync(folder, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(folder, d.name, "source.html")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const source = readFileSync(path.join(folder, name, "source.html"));
      const expectedPath = path.join(folder, name, "expected.html");
      return { name, source, html: source.toString("utf8"), expectedHtml: existsSync(expectedPath) ? readFileSync(expectedPath, "utf8") : "" };
    });
}
