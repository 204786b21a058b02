import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemoryTelemetry } from "../../../shared/observability/telemetry";
import { startLocalApi, type LocalApi } from "../../../scripts/lib/local-api";
import { startOrigin, type Origin } from "../../helpers/origin";
import { startStandIn, type StandIn } from "../../helpers/provider-stand-in";

let api: LocalApi;
let origin: Origin;
let searxng: StandIn;
const frontendLines: Record<string, unknown>[] = [];
const telemetry = createMemoryTelemetry();

beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    if (req.url === "/page") res.writeHead(200, { "content-type": "text/html" }).end("<title>Local page</title><h1>Hello</h1><p>from <a href='/x'>loopback</a></p>");
    else if (req.url === "/shell") res.writeHead(200, { "content-type": "text/html" }).end('<div id="app"></div><script src="/app.js"></script>');
    else res.writeHead(404).end();
  });
  searxng = await startStandIn((request) => {
    if (request.url.searchParams.get("q") === "broken json") return { status: 200, body: "<html>not json</html>", headers: { "content-type": "text/html" } };
    return {
      status: 200,
      body: {
        query: request.url.searchParams.get("q"),
        results: [
          { title: "Rivers &amp; <b>Lakes</b>", url: "https://example.com/rivers", content: "All about <em>rivers</em>.", publishedDate: "2026-01-02T00:00:00" },
          { title: "Not web", url: "ftp://example.com/file", content: "dropped" },
        ],
      },
    };
  });
  api = await startLocalApi({
    env: { WEBGATE_ALLOW_LOCALHOST: "true", WEBGATE_API_KEYS: "key-one,key-two", SEARXNG_URL: searxng.origin },
    port: 0,
    telemetry,
    log: (line) => frontendLines.push(line),
  });
});
afterAll(async () => {
  await api.close();
  await origin.close();
  await searxng.close();
});

async function call(path: string, init: RequestInit & { key?: string | null } = {}) {
  const headers = new Headers(init.headers);
  if (init.key !== null) headers.set("x-api-key", init.key ?? "key-one");
  const res = await fetch(`${api.url}${path}`, { ...init, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
}

const post = (path: string, body: unknown, key?: string | null) =>
  call(path, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" }, key });

describe("npm start's local server", () => {
  it("serves /fetch over HTTP with the dev switch reaching a loopback origin", async () => {
    const { status, json, headers } = await post("/fetch", { url: `${origin.base}/page`, main_content: false });
    expect(status).toBe(200);
    expect(json.title).toBe("Local page");
    expect(json.content).toContain("# Hello");
    // The dev switch keeps http for loopback targets.
    expect(json.url).toBe(`${origin.base}/page`);
    expect(headers.get("x-request-id")).toBeTruthy();
    expect(telemetry.lines.at(-1)!.fields).toMatchObject({ route: "fetch", status: 200 });
  });

  it("serves format text and answers no_readable_content over HTTP", async () => {
    const text = await call(`/fetch?url=${encodeURIComponent(`${origin.base}/page`)}&format=text`);
    expect(text.status).toBe(200);
    expect(text.json).toMatchObject({ format: "text", content: "Hello\n\nfrom loopback" });
    const shell = await post("/fetch", { url: `${origin.base}/shell` });
    expect(shell.status).toBe(422);
    expect(shell.json.error).toMatchObject({ code: "no_readable_content", reason: "js_required" });
  });

  it("serves GET /fetch with query parameters", async () => {
    const { status, json } = await call(`/fetch?url=${encodeURIComponent(`${origin.base}/page`)}&max_chars=1000&main_content=false`);
    expect(status).toBe(200);
    expect(json.cache).toBe("hit");
  });

  it("answers 403 Forbidden as API Gateway does without a matching key", async () => {
    const missing = await post("/fetch", { url: `${origin.base}/page` }, null);
    expect(missing.status).toBe(403);
    expect(missing.json).toEqual({ message: "Forbidden" });
    const wrong = await post("/fetch", { url: `${origin.base}/page` }, "key-three");
    expect(wrong.status).toBe(403);
    const second = await post("/fetch", { url: `${origin.base}/page` }, "key-two");
    expect(second.status).toBe(200);
  });

  it("keeps every refusal other than loopback in force with the dev switch on", async () => {
    const metadata = await post("/fetch", { url: "http://169.254.169.254/latest/meta-data/" });
    expect(metadata.status).toBe(403);
    expect(metadata.json.error.code).toBe("address_not_allowed");
    const priv = await post("/fetch", { url: "http://10.0.0.1/" });
    expect(priv.json.error.code).toBe("address_not_allowed");
  });

  it("serves the OpenAPI document and answers unknown routes and methods with error bodies", async () => {
    const doc = await call("/openapi.json", { key: null });
    expect(doc.status).toBe(200);
    expect(doc.json.openapi).toBe("3.1.0");
    // The server is on an ephemeral port here: the document names the one in use.
    expect(doc.json.servers).toEqual([{ url: api.url, description: "npm start" }]);
    expect(Object.keys(doc.json.paths)).toEqual(expect.arrayContaining(["/fetch", "/search"]));
    const missing = await call("/nowhere");
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe("not_found");
    const method = await call("/fetch", { method: "DELETE" });
    expect(method.status).toBe(405);
    expect(method.json.error.code).toBe("method_not_allowed");
  });

  it("serves /search through SEARXNG_URL", async () => {
    const { status, json } = await post("/search", { query: "rivers and lakes", max_results: 3 });
    expect(status).toBe(200);
    expect(json).toEqual({
      query: "rivers and lakes",
      provider: "searxng",
      results: [{ title: "Rivers & Lakes", url: "https://example.com/rivers", snippet: "All about rivers.", age: "2026-01-02T00:00:00" }],
    });
    expect(searxng.requests.at(-1)!.url.searchParams.get("format")).toBe("json");
  });

  it("answers invalid JSON and a wrong content type with 400, never 500", async () => {
    const broken = await call("/fetch", { method: "POST", body: "{url:", headers: { "content-type": "application/json" } });
    expect(broken.status).toBe(400);
    const typed = await call("/fetch", { method: "POST", body: "url=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(typed.status).toBe(400);
    expect(typed.json.error.code).toBe("invalid_request");
  });
});

describe("the OpenAPI document describes the real responses", () => {
  type Doc = { paths: Record<string, Record<string, { responses: Record<string, any> }>>; components: { schemas: Record<string, any> } };

  function schemaFor(doc: Doc, path: string, method: string, status: number): z.ZodType {
    const response = doc.paths[path]?.[method]?.responses[String(status)];
    expect(response, `${method.toUpperCase()} ${path} documents ${status}`).toBeDefined();
    const schema = response.content["application/json"].schema;
    const resolve = (s: any) => z.fromJSONSchema(doc.components.schemas[String(s.$ref).split("/").pop()!]);
    if (schema.oneOf) return z.union(schema.oneOf.map(resolve) as [z.ZodType, z.ZodType]);
    return resolve(schema);
  }

  it("every captured response conforms to the documented schema for its status", async () => {
    const doc = (await call("/openapi.json", { key: null })).json as Doc;
    const cases: Array<[string, string, Awaited<ReturnType<typeof call>>]> = [
      ["/fetch", "post", await post("/fetch", { url: `${origin.base}/page` })],
      ["/fetch", "post", await post("/fetch", { url: `${origin.base}/missing` })],
      ["/fetch", "post", await post("/fetch", { url: "http://10.0.0.1/" })],
      ["/fetch", "post", await post("/fetch", { url: "ftp://example.com/" })],
      ["/fetch", "post", await post("/fetch", { url: `${origin.base}/page`, max_chars: 5 })],
      ["/fetch", "post", await post("/fetch", { url: `${origin.base}/page`, snapshot_id: "gone" })],
      ["/fetch", "post", await post("/fetch", { url: `${origin.base}/page` }, null)],
      ["/fetch", "get", await call(`/fetch?url=${encodeURIComponent(`${origin.base}/page`)}`)],
      ["/search", "post", await post("/search", { query: "rivers" })],
      ["/search", "post", await post("/search", { query: "x" })],
      ["/search", "post", await post("/search", { query: "broken json" })],
      ["/search", "post", await post("/search", { query: "rivers", provider: "brave" })],
      ["/search", "post", await post("/search", { query: `key ${"A".repeat(48)}` })],
    ];
    for (const [path, method, res] of cases) {
      const schema = schemaFor(doc, path, method, res.status);
      const parsed = schema.safeParse(res.json);
      expect(parsed.success, `${method} ${path} ${res.status}: ${res.text.slice(0, 200)}`).toBe(true);
    }
    expect(new Set(cases.map(([, , r]) => r.status))).toEqual(new Set([200, 502, 403, 400, 410]));
  });
});
