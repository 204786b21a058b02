/**
 * The dev switch (`allowLocalhost`, WEBGATE_ALLOW_LOCALHOST) on real loopback servers: it lets a
 * caller read a server on this machine that the caller named, and nothing more. A redirect may
 * not carry the request to another local port, a public page's redirect may not enter this
 * machine, and a DNS answer for any name but `localhost` may not point at loopback. Canary
 * listeners on other loopback ports must see no connection at all.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createGuardedClient } from "../../../shared/guard/guarded-get";
import { resolvePolicy, withoutLocalhost } from "../../../shared/guard/policy";
import { isLoopbackTarget, refuseLoopbackHop, requestPolicy } from "../../../shared/guard/url-policy";
import { createHttpClient } from "../../../shared/http/http-client";
import { createNetDialer } from "../../../shared/http/net-dialer";
import type { DialTarget, Dialer } from "../../../shared/http/types";
import { expectWebgateError } from "../../helpers/expect-error";
import { MapResolver } from "../../helpers/test-network";
import { startTcpCanary, type TcpCanary } from "../../helpers/tcp-canary";

const DEV = resolvePolicy({ allowLocalhost: true });


/**
 * The real dialer, with every target recorded. A public test address stands for a public site
 * that the test network serves from the loopback origin (as plain HTTP, whatever the scheme).
 */
class RecordingDialer implements Dialer {
  readonly dials: DialTarget[] = [];
  private readonly inner = createNetDialer();
  dial(target: DialTarget) {
    this.dials.push(target);
    if (target.addresses.includes(PUBLIC_SITE)) return this.inner.dial({ ...target, addresses: ["127.0.0.1"], port: originPort, tls: false });
    return this.inner.dial(target);
  }
}
const PUBLIC_SITE = "93.184.215.14";

let origin: http.Server;
let originPort = 0;
let redirectTo: Record<string, string> = {};
let canaries: TcpCanary[] = [];

beforeAll(async () => {
  origin = http.createServer((req, res) => {
    const location = redirectTo[req.url ?? ""];
    if (location !== undefined) res.writeHead(302, { location }).end();
    else res.writeHead(200, { "content-type": "text/plain" }).end(`local page ${req.url ?? ""}`);
  });
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  originPort = (origin.address() as AddressInfo).port;
  canaries = (await Promise.all(["127.0.0.1", "127.0.0.2", "::1"].map(startTcpCanary))).filter((c): c is TcpCanary => c !== undefined);
});
afterAll(async () => {
  await new Promise((resolve) => origin.close(resolve));
  await Promise.all(canaries.map((c) => c.close()));
});
beforeEach(() => {
  redirectTo = {};
});

function devClient(table: Record<string, string[]> = {}) {
  const dialer = new RecordingDialer();
  const resolver = new MapResolver({ localhost: ["127.0.0.1"], ...table });
  const guarded = createGuardedClient({ http: createHttpClient({ dialer }), resolver, policy: DEV, limits: { timeoutMs: 5_000, connectTimeoutMs: 1_000 } });
  return { guarded, dialer, resolver };
}

const canaryHits = () => canaries.reduce((sum, c) => sum + c.connections, 0);

describe("the dev switch reads the local server the caller named", () => {
  it("fetches a loopback origin, and follows its redirects within that origin", async () => {
    redirectTo = { "/a": "/b", "/b": `http://localhost:${originPort}/c` };
    const { guarded } = devClient();
    const answer = await guarded.get(`http://127.0.0.1:${originPort}/a`);
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe("local page /c");
    expect(answer.redirects).toHaveLength(2);
    redirectTo = { "/d": `http://localhost:${originPort}/e` };
    const byName = await devClient().guarded.get(`http://localhost:${originPort}/d`);
    expect(byName.body.toString()).toBe("local page /e");
  });
});

describe("the dev switch never opens this machine to anything else", () => {
  const forms = (port: number) => [
    `http://127.0.0.1:${port}/`,
    `http://localhost:${port}/`,
    `http://LOCALHOST.:${port}/`,
    `http://[::1]:${port}/`,
    `http://127.0.0.2:${port}/`,
    `http://2130706433:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://127.1:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `//127.0.0.1:${port}/`,
    `/\\127.0.0.1:${port}/`,
    `https://127.0.0.1:${port}/`,
  ];

  it("refuses a redirect from the local origin to another local port, in every spelling, without a connection", async () => {
    const before = canaryHits();
    for (const canary of canaries) {
      for (const location of forms(canary.port)) {
        redirectTo = { "/go": location };
        const { guarded, dialer } = devClient();
        const error = await expectWebgateError(guarded.get(`http://127.0.0.1:${originPort}/go`));
        expect(["address_not_allowed", "host_not_allowed"], location).toContain(error.code);
        expect(error.message, location).toContain("only within the local server");
        expect(error.details).toMatchObject({ redirect: 1 });
        expect(dialer.dials.map((d) => d.port)).toEqual([originPort]);
      }
    }
    expect(canaryHits() - before).toBe(0);
  });

  it("refuses a public page's redirect into this machine, even to the port the switch would admit", async () => {
    // public.example.com is really served by the loopback origin here (fake DNS), but the
    // request is for a public name: it runs under the strict policy from its first hop.
    redirectTo = { "/p": `http://127.0.0.1:${originPort}/admin`, "/q": `http://localhost:${originPort}/admin`, "/fine": "/landing" };
    for (const path of ["/p", "/q"]) {
      const { guarded, dialer } = devClient({ "public.example.com": [PUBLIC_SITE] });
      const error = await expectWebgateError(guarded.get(`https://public.example.com${path}`));
      expect(["address_not_allowed", "host_not_allowed"]).toContain(error.code);
      expect(error.details).toMatchObject({ redirect: 1 });
      expect(dialer.dials.map((d) => d.hostname)).toEqual(["public.example.com"]);
    }
    // The same public site redirecting within itself is followed as always.
    const { guarded } = devClient({ "public.example.com": [PUBLIC_SITE] });
    expect((await guarded.get("https://public.example.com/fine")).body.toString()).toBe("local page /landing");
    expect(() => refuseLoopbackHop(new URL("https://public.example.com/p"), new URL(`http://127.0.0.1:${originPort}/admin`), DEV)).toThrow(/only within the local server/);
  });

  it("refuses a name other than localhost that resolves to loopback, as the caller's URL and as a redirect", async () => {
    const table = { "rebind.example.com": ["127.0.0.1"], "mixed.example.com": ["93.184.215.14", "::1"], "www.localtest.me": ["127.0.0.1"] };
    for (const host of Object.keys(table)) {
      const { guarded, dialer } = devClient(table);
      const error = await expectWebgateError(guarded.get(`http://${host}/`));
      expect(error.code, host).toBe("address_not_allowed");
      expect(error.message).not.toContain("127.0.0.1");
      expect(dialer.dials).toHaveLength(0);
    }
    redirectTo = { "/r": "http://rebind.example.com/" };
    const { guarded, dialer } = devClient(table);
    const error = await expectWebgateError(guarded.get(`http://127.0.0.1:${originPort}/r`));
    expect(error.code).toBe("address_not_allowed");
    expect(dialer.dials.map((d) => d.port)).toEqual([originPort]);
  });
});

describe("requestPolicy and isLoopbackTarget", () => {
  it.each([
    ["http://localhost:3000/", true],
    ["http://127.0.0.1/", true],
    ["http://127.9.9.9:81/", true],
    ["http://[::1]:8080/", true],
    ["http://[::ffff:127.0.0.1]/", true],
    ["https://example.com/", false],
    ["http://10.0.0.1/", false],
    ["http://localhost.example.com/", false],
  ])("%s is a loopback target under the switch: %s", (url, local) => {
    expect(isLoopbackTarget(new URL(url), DEV)).toBe(local);
    expect(isLoopbackTarget(new URL(url), resolvePolicy({}))).toBe(false);
    expect(requestPolicy(new URL(url), DEV)).toBe(local ? DEV : withoutLocalhost(DEV));
  });

  it("counts a scheme's default port as the port a redirect stays on", () => {
    expect(() => refuseLoopbackHop(new URL("https://localhost/"), new URL("http://127.0.0.1:443/x"), DEV)).not.toThrow();
    expect(() => refuseLoopbackHop(new URL("http://[::1]/"), new URL("https://localhost:80/x"), DEV)).not.toThrow();
    expect(() => refuseLoopbackHop(new URL("https://localhost/"), new URL("http://localhost/"), DEV)).toThrow(/only within the local server/);
    expect(() => refuseLoopbackHop(new URL("http://127.0.0.1:8080/"), new URL("https://example.com/"), DEV)).not.toThrow();
  });

  it("keeps every other field of the policy in the strict twin, and makes it once", () => {
    const policy = resolvePolicy({ allowLocalhost: true, allowedPorts: [80, 443, 8443], blockedDomains: ["*.corp.example"], blockedCidrs: ["203.0.114.0/24"] });
    const strict = withoutLocalhost(policy);
    expect(strict).toEqual({ ...policy, allowLocalhost: false });
    expect(withoutLocalhost(policy)).toBe(strict);
    expect(resolvePolicy(strict)).toBe(strict);
    expect(withoutLocalhost(strict)).toBe(strict);
  });
});
