import { execFile } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatTable, main, runSmoke } from "../../../scripts/smoke";

const KEY = "smoke-test-key";
const DOC = Array.from({ length: 120 }, (_, i) => `line ${i} of the imitation page`).join("\n");

/** What the imitation API gets wrong, one fault per test. */
type Fault = "none" | "no-key-accepted" | "wrong-slice" | "refusal-code" | "search-down";
let fault: Fault = "none";
const seen: Array<{ method: string; path: string; key: string | undefined; body: unknown }> = [];

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

const error = (code: string) => ({ error: { code, message: code, retryable: false, request_id: "r-1" } });

/** Imitates API Gateway + the handlers: key check, the fetch paging contract, search, refusals. */
async function imitateApi(req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const key = req.headers["x-api-key"] as string | undefined;
  const raw = Buffer.concat(chunks).toString("utf8");
  const body = raw === "" ? {} : (JSON.parse(raw) as Record<string, unknown>);
  seen.push({ method: req.method ?? "", path: url.pathname, key, body });
  if (key !== KEY && fault !== "no-key-accepted") return send(res, 403, { message: "Forbidden" });
  const route = `${req.method} ${url.pathname}`;
  if (route === "POST /v1/search") {
    if (fault === "search-down") return send(res, 503, error("search_not_configured"));
    return send(res, 200, { query: body.query, provider: "brave", results: [{ title: "t", url: "https://example.org/", snippet: "s" }] });
  }
  if (route !== "POST /v1/fetch" && route !== "GET /v1/fetch") return send(res, 404, error("not_found"));
  const input = req.method === "GET" ? Object.fromEntries(url.searchParams) : body;
  if (String(input.url).includes("169.254.")) return send(res, 403, error(fault === "refusal-code" ? "host_not_allowed" : "address_not_allowed"));
  const start = Number(input.start ?? 0);
  const maxChars = Number(input.max_chars ?? 30_000);
  const offset = fault === "wrong-slice" && start > 0 ? 1 : 0;
  const end = Math.min(DOC.length, start + maxChars);
  send(res, 200, {
    url: input.url,
    total_chars: DOC.length,
    start,
    end,
    next_start: end < DOC.length ? end : null,
    content: DOC.slice(start + offset, end + offset),
    snapshot: { id: "snap-1", sha256: "0".repeat(64), fetched_at: "2026-01-01T00:00:00Z", age_s: 0 },
    cache: start > 0 ? "hit" : "miss",
  });
}

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => void imitateApi(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const run = (f: Fault) => {
  fault = f;
  seen.length = 0;
  return runSmoke({ url: base, key: KEY, page: "https://example.com/", timeoutMs: 5_000 });
};
const byCheck = (results: Awaited<ReturnType<typeof runSmoke>>) => Object.fromEntries(results.map((r) => [r.check, r]));

describe("runSmoke", () => {
  it("passes every check against an API that behaves", async () => {
    const results = await run("none");
    expect(results.map((r) => [r.check, r.ok])).toEqual([
      ["POST /fetch", true],
      ["GET /fetch", true],
      ["POST /fetch (page 2)", true],
      ["POST /search", true],
      ["POST /fetch (refused URL)", true],
      ["POST /fetch (no API key)", true],
    ]);
    // The paging call reused the first snapshot, and only the last call went without a key.
    expect(seen[2]!.body).toMatchObject({ snapshot_id: "snap-1", start: Math.floor(DOC.length / 2), max_chars: 1000 });
    expect(seen.map((s) => s.key)).toEqual([KEY, KEY, KEY, KEY, KEY, undefined]);
    expect(seen[1]).toMatchObject({ method: "GET", path: "/v1/fetch" });
  });

  it.each([
    ["no-key-accepted", "POST /fetch (no API key)", "200"],
    ["wrong-slice", "POST /fetch (page 2)", "200"],
    ["refusal-code", "POST /fetch (refused URL)", "403 host_not_allowed"],
    ["search-down", "POST /search", "503 search_not_configured"],
  ] as const)("fails only the affected check when the API has fault %s", async (f, failing, got) => {
    const results = byCheck(await run(f));
    for (const [name, r] of Object.entries(results)) expect(r.ok, name).toBe(name !== failing);
    expect(results[failing]!.got).toBe(got);
  });

  it("reports an unreachable API as failed checks, not a crash", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const results = await runSmoke({ url: `http://127.0.0.1:${port}/v1/`, key: KEY, timeoutMs: 2_000 });
    expect(results).toHaveLength(6);
    for (const r of results) expect(r.ok).toBe(false);
    expect(results[0]!.got).toBe("no answer");
  });
});

describe("formatTable", () => {
  it("aligns columns and marks failures", () => {
    const table = formatTable([
      { check: "a", expected: "200", got: "200", ok: true, detail: "" },
      { check: "longer check", expected: "403", got: "200", ok: false, detail: "x" },
    ]);
    expect(table.split("\n")).toEqual([
      "check         expected  got  result  detail",
      "------------  --------  ---  ------  ------",
      "a             200       200  ok",
      "longer check  403       200  FAIL    x",
    ]);
  });
});

describe("command line", () => {
  it("exits 2 with the usage when --url or --key is missing, or an option is unknown", async () => {
    const lines: string[] = [];
    expect(await main(["--url", base], (l) => lines.push(l))).toBe(2);
    expect(await main(["--url", base, "--key", KEY, "--bogus", "1"], (l) => lines.push(l))).toBe(2);
    expect(lines.join("\n")).toContain("usage: npm run smoke -- --url");
  });

  it("runs as a script: exit 0 and a table when all pass, exit 1 when a check fails", async () => {
    fault = "none";
    const script = path.resolve(import.meta.dirname, "../../../scripts/smoke.ts");
    const exec = promisify(execFile);
    const ok = await exec(process.execPath, ["--import", "tsx", script, "--url", base, "--key", KEY]);
    expect(ok.stdout).toContain("all 6 checks passed");
    fault = "refusal-code";
    const failed = await exec(process.execPath, ["--import", "tsx", script, "--url", base, "--key", KEY]).then(
      () => undefined,
      (err: { code: number; stdout: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toMatch(/POST \/fetch \(refused URL\)\s+403 address_not_allowed\s+403 host_not_allowed\s+FAIL/);
  });
});
