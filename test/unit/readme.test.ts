import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENV } from "../../shared/config";
import { ERROR_TABLE } from "../../shared/errors";

const root = path.resolve(__dirname, "../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const readme = read("README.md");
// The reference tables live in docs/api.md; the README is the front page that links to it.
const api = read("docs/api.md");

/** Every Markdown file whose relative links must resolve: the front page, CONTRIBUTING and docs/. */
const markdownFiles = ["README.md", "CONTRIBUTING.md", ...readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) inFence = !inFence;
    const heading = !inFence && /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    anchors.add(heading[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-"));
  }
  return anchors;
}

describe("README stays true", () => {
  it("gives the two commands on its first screen", () => {
    const firstScreen = readme.split("\n").slice(0, 25).join("\n");
    expect(firstScreen).toContain("npm install && npm start");
    expect(firstScreen).toContain("npm test");
  });

  it("is a front page, not the reference (at most ~250 lines)", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(260);
  });

  it("lists every error code in docs/api.md with the status and retry hint the code uses", () => {
    const rows = new Map<string, { status: number; retryable: boolean }>();
    for (const match of api.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (yes|no) \|/gm)) {
      rows.set(match[1]!, { status: Number(match[2]), retryable: match[3] === "yes" });
    }
    for (const [code, row] of Object.entries(ERROR_TABLE)) {
      expect(rows.get(code), code).toEqual({ status: row.status, retryable: row.retryable });
    }
    expect(rows.size).toBe(Object.keys(ERROR_TABLE).length);
  });

  it("documents every environment variable the configuration reads in docs/api.md", () => {
    for (const name of Object.values(ENV)) {
      expect(api, name).toContain(`\`${name}\``);
    }
  });

  it.each(markdownFiles)("%s: every relative link points to a file and heading that exist", (file) => {
    const text = read(file);
    const dir = path.dirname(path.join(root, file));
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z]+:/i.test(target)) continue;
      const [filePart, anchor] = target.split("#") as [string, string | undefined];
      const resolved = filePart === "" ? path.join(root, file) : path.resolve(dir, filePart);
      expect(existsSync(resolved), `${file} → ${target}`).toBe(true);
      if (anchor !== undefined && resolved.endsWith(".md")) {
        expect(anchorsOf(readFileSync(resolved, "utf8")).has(anchor), `${file} → ${target}`).toBe(true);
      }
    }
  });
});
