import { createHash } from "node:crypto";
import zlib from "node:zlib";
import { DeleteItemCommand, ScanCommand, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createDynamoClient } from "../../../shared/cache/dynamo-client";
import { DynamoPageStore } from "../../../shared/cache/dynamo-page-store";
import { SnapshotCache } from "../../../shared/cache/snapshot-cache";
import { PAGE_TABLE } from "../../../shared/cache/table";
import { createTestTable, startTestDynamo, type LocalDynamo } from "../../helpers/dynalite";
import { html, startFetchApp } from "../../helpers/fetch-app";

let dynamo: LocalDynamo;
let app: Awaited<ReturnType<typeof startFetchApp>>;
let tableName: string;

beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(async () => {
  await dynamo.close();
});
beforeEach(async () => {
  await app?.close();
  tableName = await createTestTable(dynamo.client);
  app = await startFetchApp({ dynamo: dynamo.client, tableName });
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A prototype's own method as it is before a spy replaces it, to call through from the spy. */
function original<T extends object, K extends keyof T>(proto: T, name: K): T[K] {
  let owner: object | null = proto;
  while (owner !== null && !Object.prototype.hasOwnProperty.call(owner, name)) owner = Object.getPrototypeOf(owner) as object | null;
  return Object.getOwnPropertyDescriptor(owner ?? proto, name)!.value as T[K];
}

const ARTICLE = `<!doctype html><html><head><title>Rivers &amp; Lakes</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>Rivers</h1><p>A river is a natural <strong>flowing</strong> watercourse. See <a href="/lakes">lakes</a>.</p>
<h2>Table</h2><table><thead><tr><th>Name</th><th>Length</th></tr></thead><tbody><tr><td>Nile</td><td>6650 km</td></tr></tbody></table>
<p><del>old</del> new</p><ul><li>one</li><li>two</li></ul><pre><code>let x = 1;</code></pre></article>
<footer>Copyright footer text</footer><script>var secret = 1;</script></body></html>`;

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("/fetch through the whole handler", () => {
  it("converts a real page to Markdown and answers the documented fields", async () => {
    app.setSite({ "/rivers": html(ARTICLE) });
    const { res, json } = await app.post({ url: "http://site.example.com/rivers#frag", main_content: false });
    expect(res.statusCode).toBe(200);
    expect(json).toMatchObject({
      url: "https://site.example.com/rivers",
      final_url: "https://site.example.com/rivers",
      redirects: [],
      status: 200,
      content_type: "text/html",
      charset: "UTF-8",
      title: "Rivers & Lakes",
      start: 0,
      next_start: null,
      cache: "miss",
      extractor: "full",
    });
    expect(json.content).toContain("# Rivers");
    expect(json.content).toContain("[lakes](https://site.example.com/lakes)");
    expect(json.content).toContain("| Nile | 6650 km |");
    expect(json.content).toContain("~~old~~");
    expect(json.content).toContain("- one");
    expect(json.content).toContain("```\nlet x = 1;\n```");
    expect(json.content).not.toContain("Copyright footer");
    expect(json.content).not.toContain("var secret");
    expect(json.content).not.toContain("About");
    expect(json.total_chars).toBe(json.content.length);
    expect(json.end).toBe(json.content.length);
    expect(json.snapshot.sha256).toBe(sha256(json.content));
    expect(json.snapshot.age_s).toBe(0);
    expect(app.telemetry.lines.at(-1)!.fields).toMatchObject({ route: "fetch", status: 200, cache: "miss", final_host: "site.example.com" });
  });

  it.each([
    ["gzip", (b: Buffer) => zlib.gzipSync(b)],
    ["br", (b: Buffer) => zlib.brotliCompressSync(b)],
  ])("reads %s bodies", async (encoding, compress) => {
    app.setSite({
      "/z": (_req, res) => {
        res.writeHead(200, { "content-type": "text/html", "content-encoding": encoding });
        res.end(compress(Buffer.from("<title>Z</title><p>compressed body text</p>")));
      },
    });
    const { json } = await app.post({ url: "https://site.example.com/z", main_content: false });
    expect(json.content).toContain("compressed body text");
  });

  it("stops a compression bomb at the byte limit", async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(40 * 1024 * 1024, 32));
    app.setSite({
      "/bomb": (_req, res) => {
        res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" });
        res.end(bomb);
      },
    });
    const { res, json } = await app.post({ url: "https://site.example.com/bomb" });
    expect(res.statusCode).toBe(502);
    expect(json.error.code).toBe("upstream_too_large");
  });

  it.each([
    ["text/plain; charset=utf-8", "plain <b>text</b>", "plain <b>text</b>", "text/plain"],
    ["application/json", '{"a":1}', '{"a":1}', "application/json"],
    ["application/rss+xml", "<rss><channel><title>Feed</title></channel></rss>", "<rss>", "application/rss+xml"],
    ["text/csv", "a,b\n1,2\n", "a,b", "text/csv"],
  ])("passes %s through as text", async (type, body, expected, mediaType) => {
    app.setSite({ "/t": (_req, res) => res.writeHead(200, { "content-type": type }).end(body) });
    const { res, json } = await app.post({ url: "https://site.example.com/t" });
    expect(res.statusCode).toBe(200);
    expect(json.content).toContain(expected);
    expect(json.content_type).toBe(mediaType);
    expect(json.extractor).toBeNull();
  });

  it("answers 422 no_readable_content for an empty HTML page, never an empty 200 or a 500", async () => {
    app.setSite({ "/empty": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end() });
    const { res, json } = await app.post({ url: "https://site.example.com/empty" });
    expect(res.statusCode).toBe(422);
    expect(json.error).toMatchObject({ code: "no_readable_content", reason: "empty_body", retryable: false });
  });

  it("keeps an empty text file an empty 200", async () => {
    app.setSite({ "/empty.txt": (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end() });
    const { res, json } = await app.post({ url: "https://site.example.com/empty.txt", format: "text" });
    expect(res.statusCode).toBe(200);
    expect(json).toMatchObject({ content: "", total_chars: 0, next_start: null, extractor: null, format: "text" });
  });

  it("writes plain text for format text: link text without targets, no images, no Markdown syntax", async () => {
    app.setSite({ "/rivers": html(ARTICLE) });
    const { res, json } = await app.post({ url: "https://site.example.com/rivers", format: "text" });
    expect(res.statusCode).toBe(200);
    expect(json).toMatchObject({ format: "text", title: "Rivers & Lakes", cache: "miss" });
    expect(json.content).toContain("A river is a natural flowing watercourse. See lakes.\n\n");
    expect(json.content).toContain("Name\nLength\nNile\n6650 km");
    expect(json.content).toContain("one\ntwo");
    expect(json.content).not.toMatch(/\]\(|^#|\*\*|^- |\|/m);
    expect(json.content).not.toContain("site.example.com");
    expect(json.snapshot.sha256).toBe(sha256(json.content));
    // The same URL in Markdown is another snapshot, made by another origin fetch.
    const markdown = await app.post({ url: "https://site.example.com/rivers" });
    expect(markdown.json).toMatchObject({ format: "markdown", cache: "miss" });
    expect(markdown.json.content).toContain("[lakes](https://site.example.com/lakes)");
    const again = await app.post({ url: "https://site.example.com/rivers", format: "text" });
    expect(again.json).toMatchObject({ cache: "hit", content: json.content });
    // A snapshot id belongs to its format too.
    const crossed = await app.post({ url: "https://site.example.com/rivers", snapshot_id: json.snapshot.id });
    expect(crossed.res.statusCode).toBe(410);
  });

  it("answers 422 js_required for an application shell, with advice in the message", async () => {
    const shell = '<!doctype html><html><head><title>App</title><script type="module" src="/assets/index-4f2a.js"></script></head><body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>';
    app.setSite({ "/app": html(shell) });
    for (const body of [{ url: "https://site.example.com/app" }, { url: "https://site.example.com/app", main_content: false, format: "text" }]) {
      const { res, json } = await app.post(body);
      expect(res.statusCode).toBe(422);
      expect(json.error).toMatchObject({ code: "no_readable_content", reason: "js_required", retryable: false });
      expect(json.error.message).toMatch(/JavaScript/);
    }
  });

  it("refuses an unsupported content type with 415", async () => {
    app.setSite({ "/img": (_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47])) });
    const { res, json } = await app.post({ url: "https://site.example.com/img" });
    expect(res.statusCode).toBe(415);
    expect(json.error.code).toBe("unsupported_content_type");
  });

  it.each([
    ["Shift_JIS from the header", "text/html; charset=shift_jis", Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]), "日本語", "Shift_JIS"],
    ["windows-1252 for an iso-8859-1 label", "text/html; charset=iso-8859-1", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80]), "café €", "windows-1252"],
    [
      "a meta charset",
      "text/html",
      Buffer.concat([Buffer.from('<meta charset="windows-1252"><p>'), Buffer.from([0x97, 0x20, 0x93, 0x71, 0x94]), Buffer.from("</p>")]),
      "— “q”",
      "windows-1252",
    ],
  ])("decodes %s", async (_name, type, bytes, text, charset) => {
    app.setSite({ "/c": (_req, res) => res.writeHead(200, { "content-type": type }).end(Buffer.concat([Buffer.from("<title>c</title>"), bytes])) });
    const { json } = await app.post({ url: "https://site.example.com/c", main_content: false });
    expect(json.content).toContain(text);
    expect(json.charset).toBe(charset);
  });

  it.each([
    [404, false],
    [500, true],
  ])("answers an origin %i with upstream_status", async (status, retryable) => {
    app.setSite({ "/s": (_req, res) => res.writeHead(status, { "content-type": "text/html" }).end("<p>err</p>") });
    const { res, json } = await app.post({ url: "https://site.example.com/s" });
    expect(res.statusCode).toBe(502);
    expect(json.error).toMatchObject({ code: "upstream_status", upstream_status: status, retryable });
    expect(json.error.message).toContain(String(status));
  });

  it("follows redirects and reports the chain", async () => {
    app.setSite({
      "/old": (_req, res) => res.writeHead(301, { location: "/mid" }).end(),
      "/mid": (_req, res) => res.writeHead(302, { location: "https://site.example.com/new" }).end(),
      "/new": html("<title>New</title><p>arrived</p>"),
    });
    const { json } = await app.post({ url: "https://site.example.com/old" });
    expect(json.final_url).toBe("https://site.example.com/new");
    expect(json.redirects).toEqual([
      { url: "https://site.example.com/old", status: 301, location: "https://site.example.com/mid" },
      { url: "https://site.example.com/mid", status: 302, location: "https://site.example.com/new" },
    ]);
  });

  it("refuses a redirect to a private address without connecting to it", async () => {
    app.setSite({ "/jump": (_req, res) => res.writeHead(302, { location: "https://private.example.net/" }).end() });
    const { res, json } = await app.post({ url: "https://site.example.com/jump" });
    expect(res.statusCode).toBe(403);
    expect(json.error.code).toBe("address_not_allowed");
    expect(res.body).not.toContain("10.1.2.3");
    expect(app.dialer.dials.map((d) => d.hostname)).toEqual(["site.example.com"]);
    // Callers get the coarse reason; the log line and the Refusals metric the exact class.
    expect(json.error.reason).toBe("resolves-to-refused-address");
    expect(res.body).not.toContain("private-network");
    const line = app.telemetry.lines.at(-1)!;
    expect(line).toMatchObject({ level: "info", message: "request", fields: { route: "fetch", status: 403, code: "address_not_allowed", reason: "private", host: "site.example.com" } });
    expect(JSON.stringify(line)).not.toContain("10.1.2.3");
    expect(app.telemetry.metrics).toContainEqual(expect.objectContaining({ name: "Refusals", dimensions: { route: "fetch", code: "address_not_allowed", reason: "private" } }));
  });

  it("refuses addresses in WEBGATE_BLOCKED_CIDRS, whichever name resolves to them", async () => {
    const blocked = await startFetchApp({ dynamo: dynamo.client, tableName, env: { WEBGATE_BLOCKED_CIDRS: "93.184.215.0/28" } });
    blocked.setSite({ "/p": html("<p>public</p>") });
    try {
      const refused = await blocked.post({ url: "https://site.example.com/p" });
      expect(refused.res.statusCode).toBe(403);
      expect(refused.json.error.code).toBe("address_not_allowed");
      expect(blocked.dialer.dials).toHaveLength(0);
      const other = await blocked.post({ url: "https://other.example.org/p" });
      expect(other.res.statusCode).toBe(200);
    } finally {
      await blocked.close();
    }
  });

  it("refuses loopback URLs with 403 and bad URLs with 400", async () => {
    const loop = await app.post({ url: "http://127.0.0.1/" });
    expect(loop.res.statusCode).toBe(403);
    expect(loop.json.error.code).toBe("address_not_allowed");
    const bad = await app.post({ url: "ftp://site.example.com/" });
    expect(bad.res.statusCode).toBe(400);
    expect(bad.json.error.code).toBe("url_not_allowed");
    const host = await app.post({ url: "http://localhost/" });
    expect(host.res.statusCode).toBe(403);
    expect(host.json.error.code).toBe("host_not_allowed");
  });
});

describe("/fetch paging and the snapshot store", () => {
  const longText = Array.from({ length: 4_000 }, (_, i) => `Line ${i}: ünïcödé 😀 text with some words.`).join("\n");

  beforeEach(() => {
    app.setSite({ "/long": (_req, res) => res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(longText) });
  });

  it("pages through the whole content; the pages join back to the snapshot exactly", async () => {
    const first = await app.post({ url: "https://site.example.com/long", max_chars: 7_000 });
    const total = first.json.total_chars as number;
    expect(total).toBe(longText.length);
    let joined = first.json.content as string;
    let next = first.json.next_start as number | null;
    let pages = 1;
    while (next !== null) {
      const page = await app.post({ url: "https://site.example.com/long", start: next, max_chars: 7_000, snapshot_id: first.json.snapshot.id });
      expect(page.res.statusCode).toBe(200);
      expect(page.json.start).toBe(next);
      expect(page.json.cache).toBe("hit");
      joined += page.json.content;
      next = page.json.next_start;
      pages += 1;
    }
    expect(pages).toBeGreaterThan(20);
    expect(joined).toBe(longText);
    expect(sha256(joined)).toBe(first.json.snapshot.sha256);
    expect(app.origin.requests).toHaveLength(1);
  });

  it("never splits a surrogate pair across pages", async () => {
    const emoji = "😀".repeat(3_000);
    app.setSite({ "/emoji": (_req, res) => res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(emoji) });
    const first = await app.post({ url: "https://site.example.com/emoji", max_chars: 1_001 });
    expect(first.json.end).toBe(1_000);
    expect(first.json.content).toBe("😀".repeat(500));
  });

  it("moves a start on the second half of a surrogate pair back to the whole character", async () => {
    const text = `ab${"😀".repeat(2_000)}`;
    app.setSite({ "/pairs": (_req, res) => res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(text) });
    const first = await app.post({ url: "https://site.example.com/pairs", max_chars: 1_000 });
    // Offset 3 is the low half of the first emoji (which spans 2-3).
    const odd = await app.post({ url: "https://site.example.com/pairs", start: 3, max_chars: 1_000, snapshot_id: first.json.snapshot.id });
    expect(odd.json.start).toBe(2);
    expect(odd.json.content.startsWith("😀")).toBe(true);
    expect(odd.json.content).toBe(text.slice(2, odd.json.end));
    expect(odd.json.content.isWellFormed()).toBe(true);
  });

  it("serves the second call from the store, and fetches again past max_age", async () => {
    await app.post({ url: "https://site.example.com/long" });
    const hit = await app.post({ url: "https://site.example.com/long" });
    expect(hit.json.cache).toBe("hit");
    expect(app.origin.requests).toHaveLength(1);
    app.clock.advance(601);
    const stale = await app.post({ url: "https://site.example.com/long" });
    expect(stale.json.cache).toBe("miss");
    const again = await app.post({ url: "https://site.example.com/long", max_age: 0 });
    expect(again.json.cache).toBe("miss");
    expect(app.origin.requests).toHaveLength(3);
    app.clock.advance(100);
    const aged = await app.post({ url: "https://site.example.com/long", max_age: 3600 });
    expect(aged.json.cache).toBe("hit");
    expect(aged.json.snapshot.age_s).toBe(Math.floor((app.clock.now() - Date.parse(aged.json.snapshot.fetched_at)) / 1000));
    expect(aged.json.snapshot.age_s).toBeGreaterThanOrEqual(99);
  });

  it("keeps a snapshot to its own url and main_content choice", async () => {
    const first = await app.post({ url: "https://site.example.com/long", main_content: false });
    const otherMode = await app.post({ url: "https://site.example.com/long", main_content: true, snapshot_id: first.json.snapshot.id });
    expect(otherMode.res.statusCode).toBe(410);
    const otherUrl = await app.post({ url: "https://site.example.com/other", main_content: false, snapshot_id: first.json.snapshot.id });
    expect(otherUrl.res.statusCode).toBe(410);
    const same = await app.post({ url: "https://site.example.com/long", main_content: false, snapshot_id: first.json.snapshot.id });
    expect(same.res.statusCode).toBe(200);
  });

  it("answers 410 for an unknown or expired snapshot id", async () => {
    const first = await app.post({ url: "https://site.example.com/long" });
    const unknown = await app.post({ url: "https://site.example.com/long", snapshot_id: "nosuchsnapshot" });
    expect(unknown.res.statusCode).toBe(410);
    expect(unknown.json.error.code).toBe("snapshot_expired");
    app.clock.advance(3_601);
    const expired = await app.post({ url: "https://site.example.com/long", snapshot_id: first.json.snapshot.id });
    expect(expired.res.statusCode).toBe(410);
  });

  async function chunkItems() {
    const scan = await dynamo.client.send(new ScanCommand({ TableName: tableName }));
    return (scan.Items ?? []).filter((item) => item[PAGE_TABLE.sortKey]?.S?.startsWith("chunk#"));
  }

  it("never serves a snapshot with a missing chunk: it is a miss", async () => {
    await app.post({ url: "https://site.example.com/long", max_chars: 100_000 });
    const chunks = await chunkItems();
    expect(chunks.length).toBeGreaterThan(1);
    await dynamo.client.send(new DeleteItemCommand({ TableName: tableName, Key: { pk: chunks[0]!.pk!, sk: chunks[0]!.sk! } }));
    const after = await app.post({ url: "https://site.example.com/long", max_chars: 100_000 });
    expect(after.json.cache).toBe("miss");
    expect(after.json.content).toBe(longText.slice(0, after.json.end));
    expect(app.telemetry.lines.some((l) => l.message.includes("corrupt"))).toBe(true);
    expect(app.origin.requests).toHaveLength(2);
  });

  it("never serves a snapshot with a tampered chunk", async () => {
    const first = await app.post({ url: "https://site.example.com/long", max_chars: 100_000 });
    const chunks = await chunkItems();
    const forged = zlib.deflateRawSync(Buffer.from("forged content ".repeat(100)));
    for (const chunk of chunks) {
      await dynamo.client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: { pk: chunk.pk!, sk: chunk.sk! },
          UpdateExpression: "SET #d = :d",
          ExpressionAttributeNames: { "#d": "data" },
          ExpressionAttributeValues: { ":d": { B: forged } },
        }),
      );
    }
    const byId = await app.post({ url: "https://site.example.com/long", snapshot_id: first.json.snapshot.id });
    expect(byId.res.statusCode).toBe(410);
    const fresh = await app.post({ url: "https://site.example.com/long", max_chars: 100_000 });
    expect(fresh.res.statusCode).toBe(200);
    expect(fresh.json.content).not.toContain("forged");
    expect(fresh.json.content).toBe(longText.slice(0, fresh.json.end));
  });

  it("answers from the origin with cache bypass when the table is unreachable", async () => {
    const down = await startFetchApp({ dynamo: createDynamoClient({ endpoint: "http://127.0.0.1:9", maxAttempts: 1 }), tableName });
    down.setSite({ "/p": html("<title>P</title><p>still served</p>") });
    try {
      const { res, json } = await down.post({ url: "https://site.example.com/p" });
      expect(res.statusCode).toBe(200);
      expect(json.cache).toBe("bypass");
      expect(json.content).toContain("still served");
      expect(down.telemetry.lines.some((l) => l.level === "warn")).toBe(true);
    } finally {
      await down.close();
    }
  });

  it("makes one origin request for 20 concurrent misses of one URL", async () => {
    // The origin holds its answer until the other 19 calls are waiting for it, shown by events,
    // not a sleep (a loaded machine may not have started them all within any fixed time): the
    // origin was asked, all 20 calls entered the cache, and every store lookup they made has
    // answered, so each call has either joined the running fill or started one of its own.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let asked = false;
    let lookupsInFlight = 0;
    const enteredCalls = () => getPage.mock.calls.length;
    const releaseWhenAllWait = () => {
      if (asked && enteredCalls() === 20 && lookupsInFlight === 0) setImmediate(release);
    };
    const realGetPage = original(SnapshotCache.prototype, "getPage");
    const getPage = vi.spyOn(SnapshotCache.prototype, "getPage").mockImplementation(function (this: SnapshotCache, ...args) {
      const page = realGetPage.apply(this, args);
      releaseWhenAllWait();
      return page;
    });
    const realFindLatest = original(DynamoPageStore.prototype, "findLatest");
    vi.spyOn(DynamoPageStore.prototype, "findLatest").mockImplementation(function (this: DynamoPageStore, ...args) {
      lookupsInFlight += 1;
      return realFindLatest.apply(this, args).finally(() => {
        lookupsInFlight -= 1;
        releaseWhenAllWait();
      });
    });
    app.setSite({
      "/slow": (_req, res) => {
        asked = true;
        releaseWhenAllWait();
        void gate.then(() => res.writeHead(200, { "content-type": "text/plain" }).end("shared body"));
      },
    });
    const calls = Array.from({ length: 20 }, () => app.post({ url: "https://site.example.com/slow" }));
    const results = await Promise.all(calls);
    expect(results.every((r) => r.res.statusCode === 200 && r.json.content === "shared body")).toBe(true);
    expect(app.origin.requests).toHaveLength(1);
    expect(new Set(results.map((r) => r.json.snapshot.id)).size).toBe(1);
  });

});

describe("/fetch request validation", () => {
  it.each([
    [{}, "url"],
    [{ url: 5 }, "url"],
    [{ url: "https://site.example.com/", max_chars: 999 }, "max_chars"],
    [{ url: "https://site.example.com/", max_chars: 100_001 }, "max_chars"],
    [{ url: "https://site.example.com/", start: -1 }, "start"],
    [{ url: "https://site.example.com/", start: 1.5 }, "start"],
    [{ url: "https://site.example.com/", max_age: 86_401 }, "max_age"],
    [{ url: "https://site.example.com/", snapshot_id: "../../etc" }, "snapshot_id"],
    [{ url: "https://site.example.com/", extra: true }, "extra"],
    [{ url: "https://site.example.com/", format: "html" }, "format"],
    [{ url: "https://site.example.com/", format: true }, "format"],
  ])("refuses %j naming %s", async (body, field) => {
    const { res, json } = await app.post(body);
    expect(res.statusCode).toBe(400);
    expect(json.error.code).toBe("invalid_request");
    expect(json.error.field).toBe(field);
  });

  it("accepts the same fields as GET query parameters", async () => {
    app.setSite({ "/q": (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(5_000)) });
    const { res, json } = await app.get({ url: "https://site.example.com/q", start: "10", max_chars: "1000", max_age: "0", main_content: "false" });
    expect(res.statusCode).toBe(200);
    expect(json).toMatchObject({ start: 10, end: 1_010, next_start: 1_010, total_chars: 5_000 });
    const text = await app.get({ url: "https://site.example.com/q", format: "text", max_chars: "1000" });
    expect(text.json).toMatchObject({ format: "text", end: 1_000 });
    const badFormat = await app.get({ url: "https://site.example.com/q", format: "pdf" });
    expect(badFormat.json.error).toMatchObject({ code: "invalid_request", field: "format" });
    const bad = await app.get({ url: "https://site.example.com/q", max_chars: "lots" });
    expect(bad.json.error).toMatchObject({ code: "invalid_request", field: "max_chars" });
    const twice = await app.get({ url: ["https://a.example.com/", "https://b.example.com/"] });
    expect(twice.json.error).toMatchObject({ code: "invalid_request", field: "url" });
  });

  it("refuses a start beyond the content", async () => {
    app.setSite({ "/short": (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("short") });
    const { res, json } = await app.post({ url: "https://site.example.com/short", start: 50 });
    expect(res.statusCode).toBe(400);
    expect(json.error.field).toBe("start");
  });
});

