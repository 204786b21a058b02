import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENV } from "../../shared/config";
import { ERROR_TABLE } from "../../shared/errors";

const readme = readFileSync(path.resolve(__dirname, "../../README.md"), "utf8");

describe("README stays true", () => {
  it("gives the two commands on its first screen", () => {
    const firstScreen = readme.split("\n").slice(0, 25).join("\n");
    expect(firstScreen).toContain("npm install && npm start");
    expect(firstScreen).toContain("npm test");
  });

  it("lists every error code with the status and retry hint the code uses", () => {
    const rows = new Map<string, { status: number; retryable: boolean }>();
    for (const match of readme.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (yes|no) \|/gm)) {
      rows.set(match[1]!, { status: Number(match[2]), retryable: match[3] === "yes" });
    }
    for (const [code, row] of Object.entries(ERROR_TABLE)) {
      expect(rows.get(code), code).toEqual({ status: row.status, retryable: row.retryable });
    }
    expect(rows.size).toBe(Object.keys(ERROR_TABLE).length);
  });

  it("documents every environment variable the configuration reads", () => {
    for (const name of Object.values(ENV)) {
      expect(readme, name).toContain(`\`${name}\``);
    }
  });
});
