/**
 * Smoke check of a deployed webgate stack:
 *
 *   npm run smoke -- --url https://abc123.execute-api.eu-west-1.amazonaws.com/v1/ --key <api key>
 *
 * Calls every route once (POST /fetch of a public page, GET /fetch, a paging call against the
 * same snapshot, POST /search, a refused URL, a call without a key), prints a table of what
 * works, and exits 1 when any check fails. The URL is the operator's own API, so the global
 * fetch is fine here: nothing in this script fetches a caller-supplied address.
 */
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";

export interface SmokeOptions {
  /** The stage URL (the ApiUrl output), e.g. https://…/v1/ */
  url: string;
  key: string;
  /** A public page the deployment may fetch. */
  page?: string;
  /** A URL the guard must refuse with address_not_allowed (403). */
  refusedUrl?: string;
  query?: string;
  /** Per-request limit; API Gateway answers within 29 s. */
  timeoutMs?: number;
}

export interface SmokeResult {
  check: string;
  expected: string;
  got: string;
  ok: boolean;
  detail: string;
}

export const SMOKE_DEFAULTS = {
  page: "https://example.com/",
  refusedUrl: "http://169.254.169.254/latest/meta-data/",
  query: "webgate smoke test",
  timeoutMs: 30_000,
} as const;

interface Answer {
  status: number;
  body: unknown;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const errorCode = (body: unknown): string | undefined =>
  isObject(body) && isObject(body.error) && typeof body.error.code === "string" ? body.error.code : undefined;

async function call(base: URL, route: string, init: { method: string; key?: string; body?: Json; query?: Record<string, string> }, timeoutMs: number): Promise<Answer> {
  const target = new URL(route, base);
  for (const [k, v] of Object.entries(init.query ?? {})) target.searchParams.set(k, v);
  const headers: Record<string, string> = { accept: "application/json" };
  if (init.key !== undefined) headers["x-api-key"] = init.key;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(target, {
    method: init.method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    redirect: "manual",
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: keep the text for the detail column.
  }
  return { status: res.status, body };
}

/** Describes an answer in a few words for the table (never echoes page content). */
function describe(a: Answer): string {
  const code = errorCode(a.body);
  if (code !== undefined) return `${a.status} ${code}`;
  return String(a.status);
}

/** Runs every check in order; a failing check never stops the others. */
export async function runSmoke(options: SmokeOptions): Promise<SmokeResult[]> {
  const base = new URL(options.url.endsWith("/") ? options.url : `${options.url}/`);
  const page = options.page ?? SMOKE_DEFAULTS.page;
  const timeoutMs = options.timeoutMs ?? SMOKE_DEFAULTS.timeoutMs;
  const results: SmokeResult[] = [];

  const check = async (name: string, expected: string, run: () => Promise<{ got: string; ok: boolean; detail: string }>) => {
    try {
      results.push({ check: name, expected, ...(await run()) });
    } catch (err) {
      results.push({ check: name, expected, got: "no answer", ok: false, detail: err instanceof Error ? err.message : String(err) });
    }
  };

  let first: Json | undefined;
  await check("POST /fetch", "200 with content", async () => {
    const a = await call(base, "fetch", { method: "POST", key: options.key, body: { url: page } }, timeoutMs);
    const ok = a.status === 200 && isObject(a.body) && typeof a.body.content === "string" && isObject(a.body.snapshot);
    if (ok) first = a.body as Json;
    return { got: describe(a), ok, detail: ok ? `${String(first?.total_chars)} chars, cache ${String(first?.cache)}` : "" };
  });

  await check("GET /fetch", "200 with content", async () => {
    const a = await call(base, "fetch", { method: "GET", key: options.key, query: { url: page, max_chars: "1000" } }, timeoutMs);
    const ok = a.status === 200 && isObject(a.body) && typeof a.body.content === "string";
    return { got: describe(a), ok, detail: ok && isObject(a.body) ? `cache ${String(a.body.cache)}` : "" };
  });

  await check("POST /fetch (page 2)", "200, same snapshot, the right slice", async () => {
    if (first === undefined || !isObject(first.snapshot)) return { got: "skipped", ok: false, detail: "needs the first POST /fetch" };
    const content = first.content as string;
    const start = Math.floor(content.length / 2);
    const a = await call(base, "fetch", { method: "POST", key: options.key, body: { url: page, start, max_chars: 1000, snapshot_id: first.snapshot.id as string } }, timeoutMs);
    if (a.status !== 200 || !isObject(a.body) || !isObject(a.body.snapshot)) return { got: describe(a), ok: false, detail: "" };
    const body = a.body;
    const piece = String(body.content);
    const sameSnapshot = (body.snapshot as Json).id === first.snapshot.id;
    // The first page started at 0, so it holds this page's text wherever it overlaps.
    const matches = body.start === start && piece.length > 0 && content.slice(start, start + piece.length) === piece.slice(0, Math.max(0, content.length - start));
    return { got: describe(a), ok: sameSnapshot && matches, detail: sameSnapshot ? (matches ? `start ${start}` : "slice differs from the first page") : "snapshot changed" };
  });

  await check("POST /search", "200 with results", async () => {
    const a = await call(base, "search", { method: "POST", key: options.key, body: { query: options.query ?? SMOKE_DEFAULTS.query, max_results: 3 } }, timeoutMs);
    const ok = a.status === 200 && isObject(a.body) && Array.isArray(a.body.results);
    return { got: describe(a), ok, detail: ok && isObject(a.body) ? `${(a.body.results as unknown[]).length} results from ${String(a.body.provider)}` : "" };
  });

  await check("POST /fetch (refused URL)", "403 address_not_allowed", async () => {
    const a = await call(base, "fetch", { method: "POST", key: options.key, body: { url: options.refusedUrl ?? SMOKE_DEFAULTS.refusedUrl } }, timeoutMs);
    return { got: describe(a), ok: a.status === 403 && errorCode(a.body) === "address_not_allowed", detail: "" };
  });

  await check("POST /fetch (no API key)", "403", async () => {
    const a = await call(base, "fetch", { method: "POST", body: { url: page } }, timeoutMs);
    return { got: describe(a), ok: a.status === 403, detail: "" };
  });

  return results;
}

/** Renders the results as a fixed-width text table. */
export function formatTable(results: SmokeResult[]): string {
  const rows = [["check", "expected", "got", "result", "detail"], ...results.map((r) => [r.check, r.expected, r.got, r.ok ? "ok" : "FAIL", r.detail])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(rows[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)].join("\n");
}

const USAGE = "usage: npm run smoke -- --url <ApiUrl> --key <api key> [--page <url>] [--refused-url <url>] [--query <text>]";

/** The command line: returns the exit code (0 all ok, 1 a check failed, 2 bad arguments). */
export async function main(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { url: { type: "string" }, key: { type: "string" }, page: { type: "string" }, "refused-url": { type: "string" }, query: { type: "string" } },
      strict: true,
    }));
  } catch (err) {
    out(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 2;
  }
  if (values.url === undefined || values.key === undefined) {
    out(USAGE);
    return 2;
  }
  const results = await runSmoke({ url: values.url, key: values.key, page: values.page, refusedUrl: values["refused-url"], query: values.query });
  out(formatTable(results));
  const failed = results.filter((r) => !r.ok).length;
  out(failed === 0 ? `\nall ${results.length} checks passed` : `\n${failed} of ${results.length} checks failed`);
  return failed === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
