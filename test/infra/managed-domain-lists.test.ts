/**
 * The DNS Firewall lookup custom resource, run from the very file the stack inlines: a loopback
 * HTTP server stands in for CloudFormation's pre-signed response URL, and the lister returns
 * pages in ListFirewallDomainLists' wire shape (there is no Route 53 Resolver emulator here).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MANAGED_DOMAIN_LISTS, MANAGED_DOMAIN_LISTS_SOURCE } from "../../infra/constructs/dns-firewall";

interface Page {
  FirewallDomainLists?: Array<{ Id?: string; Name?: string; ManagedOwnerName?: string }>;
  NextToken?: string;
}
type Lister = (token: string | undefined) => Promise<Page>;
const lookup = createRequire(import.meta.url)("../../infra/custom-resources/managed-domain-lists.cjs") as {
  run(event: Record<string, unknown>, createLister: () => Lister): Promise<void>;
};

let server: http.Server;
let url: string;
const received: Array<{ method: string; contentType: string | undefined; body: Record<string, any> }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ method: req.method ?? "", contentType: req.headers["content-type"], body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/presigned?X-Amz-Signature=abc`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function event(requestType: "Create" | "Update" | "Delete", names: unknown = [...MANAGED_DOMAIN_LISTS]) {
  return {
    RequestType: requestType,
    ResponseURL: url,
    StackId: "arn:aws:cloudformation:eu-west-1:123456789012:stack/webgate-prod/1",
    RequestId: `req-${received.length}`,
    LogicalResourceId: "DnsFirewallManagedDomainLists",
    ResourceType: "Custom::WebgateManagedDomainLists",
    ResourceProperties: { ServiceToken: "arn:aws:lambda:eu-west-1:123456789012:function:x", Names: names },
  };
}

const managed = (name: string, id: string) => ({ Id: id, Name: name, ManagedOwnerName: "Route 53 Resolver DNS Firewall" });

async function respondTo(e: Record<string, unknown>, pages: Page[]) {
  const tokens: Array<string | undefined> = [];
  const before = received.length;
  await lookup.run(e, () => (token) => {
    tokens.push(token);
    return Promise.resolve(pages[token === undefined ? 0 : Number(token)] ?? {});
  });
  expect(received).toHaveLength(before + 1);
  return { response: received.at(-1)!, tokens };
}

describe("managed domain list lookup", () => {
  it("is the source the stack inlines", () => {
    expect(MANAGED_DOMAIN_LISTS_SOURCE).toContain("module.exports = { handler, run, findDomainListIds }");
  });

  it("answers CloudFormation with the id of each list by name, across pages, ignoring an account's own list of that name", async () => {
    const pages: Page[] = [
      { FirewallDomainLists: [{ Id: "rslvr-fdl-own", Name: "AWSManagedDomainsMalwareDomainList" }, managed("AWSManagedDomainsMalwareDomainList", "rslvr-fdl-1")], NextToken: "1" },
      { FirewallDomainLists: [managed("AWSManagedDomainsBotnetCommandandControl", "rslvr-fdl-2"), managed("AWSManagedDomainsAmazonGuardDutyThreatList", "rslvr-fdl-9")], NextToken: "2" },
      { FirewallDomainLists: [managed("AWSManagedDomainsAggregateThreatList", "rslvr-fdl-3")], NextToken: "3" },
      { FirewallDomainLists: [managed("never-read", "rslvr-fdl-x")] },
    ];
    const { response, tokens } = await respondTo(event("Create"), pages);
    // It stops paging once every name is found.
    expect(tokens).toEqual([undefined, "1", "2"]);
    expect(response.method).toBe("PUT");
    // The pre-signed URL is signed without a content type.
    expect(response.contentType ?? "").toBe("");
    expect(response.body).toMatchObject({
      Status: "SUCCESS",
      StackId: "arn:aws:cloudformation:eu-west-1:123456789012:stack/webgate-prod/1",
      LogicalResourceId: "DnsFirewallManagedDomainLists",
      PhysicalResourceId: "managed-domain-lists-DnsFirewallManagedDomainLists",
      Data: { AWSManagedDomainsMalwareDomainList: "rslvr-fdl-1", AWSManagedDomainsBotnetCommandandControl: "rslvr-fdl-2", AWSManagedDomainsAggregateThreatList: "rslvr-fdl-3" },
    });
  });

  it("fails the deploy with the missing names when a region lacks a list", async () => {
    const { response } = await respondTo(event("Update"), [{ FirewallDomainLists: [managed("AWSManagedDomainsMalwareDomainList", "rslvr-fdl-1")] }]);
    expect(response.body.Status).toBe("FAILED");
    expect(response.body.Reason).toBe("AWS-managed DNS Firewall domain lists not found in this region: AWSManagedDomainsBotnetCommandandControl, AWSManagedDomainsAggregateThreatList");
  });

  it("reports a failing API call or SDK load to CloudFormation instead of leaving it waiting", async () => {
    const before = received.length;
    await lookup.run(event("Create"), () => {
      throw new Error("Cannot find module '@aws-sdk/client-route53resolver'");
    });
    expect(received[before]!.body).toMatchObject({ Status: "FAILED", Reason: "Cannot find module '@aws-sdk/client-route53resolver'" });
    const { response } = await respondTo(event("Create", []), []);
    expect(response.body).toMatchObject({ Status: "FAILED", Reason: "ResourceProperties.Names must be a non-empty list" });
  });

  it("deletes nothing and calls no API on Delete", async () => {
    const before = received.length;
    await lookup.run({ ...event("Delete"), PhysicalResourceId: "managed-domain-lists-X" }, () => {
      throw new Error("must not be called");
    });
    expect(received[before]!.body).toMatchObject({ Status: "SUCCESS", PhysicalResourceId: "managed-domain-lists-X" });
  });
});
