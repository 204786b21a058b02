import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryTelemetry } from "../../../shared/observability/telemetry";
import { startLocalApi, type LocalApi } from "../../../scripts/lib/local-api";
import { startOrigin, type Origin } from "../../helpers/origin";
import { bodyLines, textPdf } from "../../helpers/pdf-fixtures";

// PDFs, Markdown from the site, robots.txt and bot protection over HTTP, through `npm start`'s
// server (robots.txt respected: the default), with a loopback origin reached by the dev switch.
let api: LocalApi;
let origin: Origin;
let pdf: Buffer;

beforeAll(async () => {
  pdf = await textPdf([{ lines: bodyLines(["First page of the local report."]) }, { lines: bodyLines(["Second page."]) }], { title: "Local Report" });
  origin = await startOrigin((req, res) => {
    if (req.url === "/robots.txt") res.writeHead(200, { "content-type": "text/plain" }).end("User-agent: *\nDisallow: /members/\n");
    else if (req.url === "/report.pdf") res.writeHead(200, { "content-type": "application/pdf" }).end(pdf);
    else if (req.url === "/notes") res.writeHead(200, { "content-type": "text/markdown", "x-markdown-tokens": "42" }).end("# Notes\n\nMarkdown from the site.\n");
    else if (req.url === "/challenge") res.writeHead(403, { "content-type": "text/html", "cf-mitigated": "challenge" }).end("<title>Just a moment...</title>");
    else res.writeHead(200, { "content-type": "text/html" }).end("<title>Members</title><p>secret</p>");
  });
  api = await startLocalApi({ env: { WEBGATE_ALLOW_LOCALHOST: "true" }, port: 0, telemetry: createMemoryTelemetry(), log: () => undefined });
});
afterAll(async () => {
  await api.close();
  await origin.close();
});

async function fetchPage(path: string) {
  const res = await fetch(`${api.url}/fetch`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: `${origin.base}${path}` }) });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

describe("reach over the local server's HTTP API", () => {
  it("reads a PDF", async () => {
    const { status, json } = await fetchPage("/report.pdf");
    expect(status).toBe(200);
    expect(json).toMatchObject({ extractor: "pdf", content_type: "application/pdf", title: "Local Report", truncated: false });
    expect(json.content).toBe("<!-- page 1 -->\n\nFirst page of the local report.\n\n<!-- page 2 -->\n\nSecond page.\n");
  });

  it("passes the site's Markdown through", async () => {
    const { json } = await fetchPage("/notes");
    expect(json).toMatchObject({ extractor: "origin-markdown", title: "Notes", origin_tokens: 42, content: "# Notes\n\nMarkdown from the site.\n" });
  });

  it("refuses a path robots.txt disallows", async () => {
    const { status, json } = await fetchPage("/members/list");
    expect(status).toBe(403);
    expect(json.error).toMatchObject({ code: "robots_disallowed", rule: "/members/" });
    expect(origin.requests.filter((r) => r.url === "/members/list")).toHaveLength(0);
    expect(origin.requests.filter((r) => r.url === "/robots.txt")).toHaveLength(1);
  });

  it("answers a challenge with blocked_by_bot_protection", async () => {
    const { status, json } = await fetchPage("/challenge");
    expect(status).toBe(502);
    expect(json.error).toMatchObject({ code: "blocked_by_bot_protection", vendor: "cloudflare" });
  });
});
