"use strict";
/**
 * CloudFormation custom resource: the ids of AWS-managed Route 53 Resolver DNS Firewall domain
 * lists, looked up by name. AWS creates these lists in every region under different ids, and
 * CloudFormation can only reference a list by id, so the stack asks the account at deploy time.
 *
 * Deployed as inline code (ZipFile) on the Lambda Node.js runtime, with the runtime's AWS SDK:
 * plain CommonJS, no dependencies, nothing to bundle. test/infra/managed-domain-lists.test.ts
 * runs this very file.
 *
 * ResourceProperties.Names: the list names. Data: { "<name>": "<id>", ... }.
 */

/**
 * Pages through ListFirewallDomainLists until every name is found.
 *
 * @param {string[]} names
 * @param {(nextToken: string | undefined) => Promise<{ FirewallDomainLists?: Array<{ Id?: string; Name?: string; ManagedOwnerName?: string }>; NextToken?: string }>} listPage
 * @returns {Promise<Record<string, string>>}
 */
async function findDomainListIds(names, listPage) {
  const found = {};
  let token;
  do {
    const page = await listPage(token);
    for (const list of page.FirewallDomainLists ?? []) {
      // Only lists AWS manages: an account's own list could carry the same name.
      if (list.ManagedOwnerName && list.Name && list.Id && names.includes(list.Name)) found[list.Name] = list.Id;
    }
    token = page.NextToken;
  } while (token && names.some((name) => !(name in found)));
  const missing = names.filter((name) => !(name in found));
  if (missing.length > 0) throw new Error(`AWS-managed DNS Firewall domain lists not found in this region: ${missing.join(", ")}`);
  return found;
}

/** Sends the result to the pre-signed URL CloudFormation waits on. */
async function respond(event, status, reason, data) {
  const body = JSON.stringify({
    Status: status,
    Reason: reason,
    PhysicalResourceId: event.PhysicalResourceId ?? `managed-domain-lists-${event.LogicalResourceId}`,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
    Data: data,
  });
  // The URL is signed without a content type: sending one would break the signature.
  const response = await fetch(event.ResponseURL, { method: "PUT", body, headers: { "content-type": "" } });
  if (!response.ok) throw new Error(`CloudFormation response upload failed: HTTP ${response.status}`);
}

/**
 * The handler with its lister factory passed in (the runtime SDK in Lambda, a stand-in in
 * tests). Every failure, the factory's included, is reported to CloudFormation: a custom
 * resource that never answers holds the stack for an hour.
 */
async function run(event, createLister) {
  if (event.RequestType === "Delete") {
    // Nothing was created: the lists belong to AWS.
    await respond(event, "SUCCESS", "nothing to delete", {});
    return;
  }
  try {
    const names = event.ResourceProperties.Names;
    if (!Array.isArray(names) || names.length === 0) throw new Error("ResourceProperties.Names must be a non-empty list");
    const ids = await findDomainListIds(names, createLister());
    await respond(event, "SUCCESS", "found", ids);
  } catch (error) {
    await respond(event, "FAILED", error instanceof Error ? error.message : String(error), {});
  }
}

async function handler(event) {
  await run(event, () => {
    // Loaded here, not at the top, so the tests can run this file where the SDK is not installed.
    const { Route53ResolverClient, ListFirewallDomainListsCommand } = require("@aws-sdk/client-route53resolver");
    const client = new Route53ResolverClient({});
    return (NextToken) => client.send(new ListFirewallDomainListsCommand({ NextToken, MaxResults: 100 }));
  });
}

module.exports = { handler, run, findDomainListIds };
