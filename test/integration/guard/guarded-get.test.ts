import type http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGuardedClient, ORIGIN_REQUEST_HEADERS, type GuardedClient } from "../../../shared/guard/guarded-get";
import { DEFAULT_GUARD_POLICY } from "../../../shared/guard/policy";
import { checkUrl, isCheckedUnder, type CheckedUrl } from "../../../shared/guard/url-policy";
import { createHttpClient } from "../../../shared/http/http-client";
import type { Resolver } from "../../../shared/guard/dns-resolver";
import { FakeResolver } from "../../helpers/fake-resolver";
import { startOrigin, type Origin } from "../../helpers/origin";
import { MapResolver, RoutingDialer } from "../../helpers/test-network";
import { loadDnsVectors } from "../../helpers/ssrf-vectors";
import { expectWebgateError } from "../../helpers/expect-error";

/** A scripted origin: answers by scheme + Host + path from a table, and records what it saw. */
interface Script {
  [schemeHostPath: string]: { status: number; location?: string; body?: string; headers?: Record<string, string> };
}
let plain: Origin;
let secure: Origin;
let script: Script = {};
const seen: string[] = [];

function respond(scheme: string) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const key = `${scheme}://${req.headers.host ?? ""}${req.url ?? ""}`;
    seen.push(key);
    const entry = script[key];
    if (!entry) {
      res.writeHead(404).end("not scripted");
      return;
    }
    res.writeHead(entry.status, { ...(entry.location !== undefined ? { Location: entry.location } : {}), ...entry.headers });
    res.end(entry.body ?? "final page");
  };
}

beforeAll(async () => {
  plain = await startOrigin(respond("http"));
  secure = await startOrigin(respond("https"));
});
afterAll(async () => {
  await plain.close();
  await secure.close();
});

function client(resolver: Resolver, limits: Parameters<typeof createGuardedClient>[0]["limits"] = {}) {
  const dialer = new RoutingDialer({ plain: plain.port, secure: secure.port });
  const guarded: GuardedClient = createGuardedClient({
    http: createHttpClient({ dialer }),
    resolver,
    limits: { timeoutMs: 5_000, connectTimeoutMs: 1_000, ...limits },
  });
  return { guarded, dialer };
}

const failure = expectWebgateError;

function reset(next: Script) {
  script = next;
  seen.length = 0;
}

const loaded = loadDnsVectors();
const haveVectors = loaded !== undefined;
const vectors = loaded ?? { dns: [], rebinding: [], redirects: [] };

describe.skipIf(!haveVectors)("shared DNS vectors through the guarded connection", () => {
  it.each(vectors.dns.map((row) => [`${row.host}: ${row.why}`, row] as const))("%s", async (_name, row) => {
    reset({ [`https://${row.host}/`]: { status: 200 } });
    const resolver = new MapResolver({ [row.host]: row.error ? Object.assign(new Error(row.error), { code: row.error }) : row.addresses ?? [] });
    const { guarded, dialer } = client(resolver);
    if (row.expect === "allow") {
      const res = await guarded.get(row.url);
      expect(res.status).toBe(200);
      expect(dialer.dialedAddresses).toEqual(row.addresses);
    } else {
      const error = await failure(guarded.get(row.url));
      expect(["address_not_allowed", "dns_failed", "host_not_allowed"]).toContain(error.code);
      expect(dialer.dials).toHaveLength(0);
      for (const address of row.addresses ?? []) expect(error.message).not.toContain(address);
    }
    expect(resolver.lookups.length).toBeLessThanOrEqual(1);
  });

  it.each(vectors.rebinding.map((row) => [`${row.host}: ${row.why}`, row] as const))("rebinding %s", async (_name, row) => {
    reset({ [`https://${row.host}/`]: { status: 200 } });
    const resolver = new FakeResolver(row.answers.map((addresses) => ({ addresses })));
    const { guarded, dialer } = client(resolver);
    if (row.expect === "allow") {
      await guarded.get(`https://${row.host}/`);
      expect(dialer.dialedAddresses).toEqual([row.connect_to]);
    } else {
      await failure(guarded.get(`https://${row.host}/`));
      expect(dialer.dials).toHaveLength(0);
    }
    expect(resolver.calls).toHaveLength(row.lookups);
  });

  it.each(vectors.redirects.map((row) => [row.name, row] as const))("redirect chain: %s", async (_name, row) => {
    const next: Script = {};
    for (const hop of row.hops) {
      let key: string;
      try {
        const u = new URL(hop.url);
        key = `${u.protocol.replace(":", "")}://${u.host}${u.pathname}${u.search}`;
      } catch {
        continue;
      }
      next[key] = hop.status !== undefined && hop.location !== undefined ? { status: hop.status, location: hop.location } : { status: 200 };
      // The guard upgrades http to https: script the upgraded form too.
      if (key.startsWith("http://")) next[`https://${key.slice(7)}`] ??= next[key]!;
    }
    reset(next);
    const resolver = new MapResolver(row.dns);
    const { guarded, dialer } = client(resolver);
    if (row.expect === "allow") {
      const res = await guarded.get(row.hops[0]!.url);
      expect(res.status).toBe(200);
      expect(res.finalUrl).toBe(new URL(row.hops.at(-1)!.url.replace(/^http:/, "https:")).href);
    } else {
      const error = await failure(guarded.get(row.hops[0]!.url));
      expect(["url_not_allowed", "host_not_allowed", "address_not_allowed", "dns_failed"]).toContain(error.code);
      const refused = row.hops[row.refused_at!]!.url;
      let refusedHost: string | undefined;
      try {
        refusedHost = new URL(refused).hostname.replace(/^\[|\]$/g, "");
      } catch {
        refusedHost = undefined;
      }
      // No connection to the refused hop: neither dialed by name nor reached at the origin.
      expect(dialer.dials.filter((d) => d.hostname === refusedHost)).toHaveLength(0);
      expect(dialer.dials).toHaveLength(row.refused_at!);
      for (const addresses of Object.values(row.dns)) for (const a of addresses) expect(error.message).not.toContain(a);
    }
  });
});

describe("guarded GET", () => {
  const publicDns = () => new MapResolver({ "example.com": ["93.184.215.14"], "example.org": ["93.184.215.34"], "internal.example.net": ["10.0.0.5"] });

  it("sends only webgate's fixed headers", async () => {
    reset({ "https://example.com/h": { status: 200 } });
    const { guarded } = client(publicDns());
    await guarded.get("https://example.com/h");
    const headers = secure.requests.at(-1)!.headers;
    expect(headers["user-agent"]).toBe(ORIGIN_REQUEST_HEADERS["User-Agent"]);
    expect(headers["accept-encoding"]).toBe("gzip, deflate, br");
    expect(headers.accept).toContain("text/html");
    expect(headers.accept).toContain("text/markdown");
    expect(headers.accept).toContain("application/json");
    expect(headers.cookie).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
  });

  it("upgrades http to https before anything is sent", async () => {
    reset({ "https://example.com/u": { status: 200 } });
    const { guarded, dialer } = client(publicDns());
    const res = await guarded.get("http://example.com/u");
    expect(res.url).toBe("https://example.com/u");
    expect(dialer.dials.every((d) => d.tls && d.port === 443)).toBe(true);
  });

  it("follows up to the hop limit and returns the whole chain", async () => {
    const next: Script = {};
    for (let i = 0; i < 5; i += 1) next[`https://example.com/${i}`] = { status: i % 2 ? 302 : 301, location: `/${i + 1}` };
    next["https://example.com/5"] = { status: 200, body: "end" };
    reset(next);
    const { guarded } = client(publicDns(), { maxRedirects: 5 });
    const res = await guarded.get("https://example.com/0");
    expect(res.body.toString()).toBe("end");
    expect(res.redirects.map((r) => r.url)).toEqual([0, 1, 2, 3, 4].map((i) => `https://example.com/${i}`));
    expect(res.redirects[0]).toEqual({ url: "https://example.com/0", status: 301, location: "https://example.com/1" });
    expect(res.finalUrl).toBe("https://example.com/5");
  });

  it("refuses one hop more than the limit without connecting to it", async () => {
    const next: Script = {};
    for (let i = 0; i < 25; i += 1) next[`https://example.com/${i}`] = { status: 307, location: `/${i + 1}` };
    reset(next);
    const { guarded, dialer } = client(publicDns(), { maxRedirects: 5 });
    const error = await failure(guarded.get("https://example.com/0"));
    expect(error.code).toBe("too_many_redirects");
    expect(dialer.dials).toHaveLength(6);
    expect(seen).not.toContain("https://example.com/6");
  });

  it("refuses a redirect loop", async () => {
    reset({ "https://example.com/a": { status: 302, location: "/b" }, "https://example.com/b": { status: 302, location: "/a" } });
    const { guarded } = client(publicDns());
    const error = await failure(guarded.get("https://example.com/a"));
    expect(error.code).toBe("too_many_redirects");
    expect(error.message).toContain("loop");
  });

  it("refuses a 3xx without Location", async () => {
    reset({ "https://example.com/n": { status: 302 } });
    const { guarded } = client(publicDns());
    expect((await failure(guarded.get("https://example.com/n"))).code).toBe("redirect_without_location");
  });

  it("refuses a Location that is not a URL", async () => {
    reset({ "https://example.com/bad": { status: 302, location: "http://exa mple.com:99999/" } });
    const { guarded } = client(publicDns());
    expect((await failure(guarded.get("https://example.com/bad"))).code).toBe("url_not_allowed");
  });

  it("names the refused hop and never the address it resolved to", async () => {
    reset({ "https://example.com/r": { status: 302, location: "https://internal.example.net/" } });
    const { guarded } = client(publicDns());
    const error = await failure(guarded.get("https://example.com/r"));
    expect(error.code).toBe("address_not_allowed");
    expect(error.message).toMatch(/^Redirect 1 refused/);
    expect(error.details.redirect).toBe(1);
    expect(error.message).not.toContain("10.0.0.5");
  });

  it.each([
    ["the metadata address", "http://169.254.169.254/latest/meta-data/", "address_not_allowed"],
    ["a decimal loopback literal", "http://2130706433/", "address_not_allowed"],
    ["a scheme-relative metadata URL", "//169.254.169.254/", "address_not_allowed"],
    ["localhost by name", "http:localhost", "host_not_allowed"],
    ["a file: URL", "file:///etc/passwd", "url_not_allowed"],
    ["credentials", "https://user:pass@example.org/", "url_not_allowed"],
    // The URL parser drops an empty userinfo; the Location as sent still shows it.
    ["an empty userinfo", "https://@example.org/", "url_not_allowed"],
    ["an empty user and password", "https://:@example.org/", "url_not_allowed"],
    ["a scheme-relative empty userinfo", "//@example.org/", "url_not_allowed"],
    ["an empty userinfo behind a tab and backslashes", "\thttps:\\\\@example.org/", "url_not_allowed"],
  ])("refuses a redirect to %s without connecting to it (repo's own cases)", async (_name, location, code) => {
    reset({ "https://example.com/go": { status: 302, location } });
    const { guarded, dialer } = client(publicDns());
    const error = await failure(guarded.get("https://example.com/go"));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(/^Redirect 1 refused/);
    expect(dialer.dials).toHaveLength(1);
  });

  it("follows relative and absolute Locations whose path or query holds an @", async () => {
    reset({
      "https://example.com/a": { status: 302, location: "/users/@me?x=@y" },
      "https://example.com/users/@me?x=@y": { status: 302, location: "https://example.com/b@c" },
      "https://example.com/b@c": { status: 200, body: "arrived" },
    });
    const { guarded } = client(publicDns());
    const response = await guarded.get("https://example.com/a");
    expect(response.body.toString()).toBe("arrived");
    expect(response.redirects).toHaveLength(2);
  });

  it("returns non-redirect 3xx and error statuses as they are", async () => {
    reset({ "https://example.com/404": { status: 404, body: "nope" }, "https://example.com/300": { status: 300, location: "/x" } });
    const { guarded } = client(publicDns());
    expect((await guarded.get("https://example.com/404")).status).toBe(404);
    expect((await guarded.get("https://example.com/300")).status).toBe(300);
  });

  it("applies the time limit to the whole exchange and honours the caller's signal", async () => {
    const { guarded } = client(new FakeResolver([{ hang: true }, { hang: true }]), { timeoutMs: 200, connectTimeoutMs: 5_000 });
    expect((await failure(guarded.get("https://example.com/slow"))).code).toBe("upstream_timeout");
    const controller = new AbortController();
    const pending = guarded.get("https://example.com/slow", { signal: controller.signal });
    controller.abort();
    expect((await failure(pending)).code).toBe("upstream_timeout");
  });
});

describe("guarded GET of a checked URL", () => {
  it("fetches a URL checked under its own policy as it was checked", async () => {
    reset({ "https://example.com/checked?q=1": { status: 200 } });
    const url = checkUrl("HTTP://Example.COM./checked?q=1#part");
    expect(isCheckedUnder(url, DEFAULT_GUARD_POLICY)).toBe(true);
    const { guarded, dialer } = client(FakeResolver.answering(["93.184.216.34"]));
    const res = await guarded.get(url);
    expect(res).toMatchObject({ status: 200, url: "https://example.com/checked?q=1", finalUrl: "https://example.com/checked?q=1" });
    expect(dialer.dialedAddresses).toEqual(["93.184.216.34"]);
  });

  it("checks a checked URL again once it was changed, and refuses what the change let in", async () => {
    const url = checkUrl("https://example.com/");
    // Only a cast gets past the read-only type: the run-time record still sees the change.
    (url as URL).hostname = "169.254.169.254";
    expect(isCheckedUnder(url, DEFAULT_GUARD_POLICY)).toBe(false);
    const resolver = FakeResolver.answering(["93.184.216.34"]);
    const { guarded, dialer } = client(resolver);
    expect((await failure(guarded.get(url))).code).toBe("address_not_allowed");
    expect(dialer.dials).toHaveLength(0);
    expect(resolver.calls).toHaveLength(0);
  });

  it("checks a URL checked under another policy again under its own", async () => {
    const url = checkUrl("http://localhost:8080/", { allowLocalhost: true });
    expect(isCheckedUnder(url, DEFAULT_GUARD_POLICY)).toBe(false);
    const { guarded, dialer } = client(FakeResolver.answering(["127.0.0.1"]));
    expect((await failure(guarded.get(url))).code).toBe("host_not_allowed");
    expect(dialer.dials).toHaveLength(0);
  });

  it("never takes a URL that checkUrl did not return for a checked one", () => {
    const forged = new URL("https://example.com/") as unknown as CheckedUrl;
    expect(isCheckedUnder(forged, DEFAULT_GUARD_POLICY)).toBe(false);
  });
});
