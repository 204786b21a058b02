/**
 * Deployment environments (dev, prod, …): their settings live in `cdk.json` context under
 * `environments`, the one to deploy is chosen with `-c env=<name>`, and both are validated here
 * with zod at synth time so a typo fails before anything reaches CloudFormation.
 */
import * as z from "zod";
import { CONFIG_FIELDS, DEFAULTS, ENV } from "../shared/config";

/** API Gateway's hard integration timeout for REST APIs (seconds). */
export const API_GATEWAY_INTEGRATION_LIMIT_S = 29;

/**
 * Time the fetch handler needs after the origin fetch has given up: HTML → Markdown conversion,
 * the snapshot write to DynamoDB and the response. The Lambda timeout must leave at least this
 * much on top of `WEBGATE_FETCH_TIMEOUT_MS`.
 */
export const FETCH_POST_PROCESSING_BUDGET_MS = 3_000;

/** Log retention values CloudWatch Logs accepts (days). */
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653] as const;

const retention = z
  .number()
  .int()
  .refine((d) => (RETENTION_DAYS as readonly number[]).includes(d), {
    message: `must be one of ${RETENTION_DAYS.join(", ")}`,
  });

// The runtime's own field schemas (shared/config.ts), so a value synth accepts is a value the
// function accepts at cold start (`a..b` in a domain list used to pass synth and stop the start).
const domainList = CONFIG_FIELDS.domainList.default([]);

/**
 * SEARXNG_URL as the runtime checks it, and https only: the runtime's plain-http exception is
 * for a SearXNG on the same machine as `npm start`, and a Lambda function has none. The value
 * is passed on as written.
 */
const searxngUrl = z.string().superRefine((raw, ctx) => {
  const parsed = CONFIG_FIELDS.searxngUrl.safeParse(raw);
  if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message });
  else if (parsed.data.protocol !== "https:") ctx.addIssue({ code: "custom", message: "must use https in AWS (plain http on loopback is for the local server)" });
});

const functionSettings = z.strictObject({
  memoryMb: z.number().int().min(128).max(10_240),
  timeoutS: z.number().int().min(1).max(API_GATEWAY_INTEGRATION_LIMIT_S - 1),
  reservedConcurrency: z.number().int().min(1).max(1_000),
});

/** The settings of one environment, as written in `cdk.json` context. */
export const environmentSettingsSchema = z
  .strictObject({
    /** A /16 to /20 private IPv4 range for the VPC. */
    vpcCidr: z.string().regex(/^(10|172|192)\.\d{1,3}\.\d{1,3}\.\d{1,3}\/(1[6-9]|20)$/, "must be a private IPv4 CIDR from /16 to /20"),
    /** NAT gateways: 1 (cheaper, one AZ's NAT is a single point of failure) or 2 (one per AZ). */
    natGateways: z.number().int().min(1).max(2),
    /** Keep the page table when the stack is deleted (prod) or delete it with the stack (dev). */
    retainData: z.boolean(),
    logRetentionDays: retention,
    fetch: functionSettings.extend({
      fetchTimeoutMs: CONFIG_FIELDS.fetchTimeoutMs,
      maxResponseBytes: CONFIG_FIELDS.maxResponseBytes,
      maxRedirects: CONFIG_FIELDS.maxRedirects,
      cacheTtlS: CONFIG_FIELDS.cacheTtlSeconds,
      allowedDomains: domainList,
      blockedDomains: domainList,
      /** robots.txt policy (WEBGATE_ROBOTS); respected unless an environment says otherwise. */
      robots: CONFIG_FIELDS.robots.default(DEFAULTS.robots),
      /** Pages of a PDF read at most (WEBGATE_PDF_MAX_PAGES). */
      pdfMaxPages: CONFIG_FIELDS.pdfMaxPages.default(DEFAULTS.pdfMaxPages),
    }),
    search: functionSettings.extend({
      provider: CONFIG_FIELDS.providerName.optional(),
      searxngUrl: searxngUrl.optional(),
      /** WEBGATE_SEARCH_ORDER: the default choice and failover order; unset keeps the runtime default. */
      order: CONFIG_FIELDS.searchOrder.optional(),
      /** WEBGATE_ANTHROPIC_MODEL: the model that runs Anthropic's web search. */
      anthropicModel: CONFIG_FIELDS.anthropicModel.optional(),
    }),
    api: z.strictObject({
      /** Usage plan (per API key): steady requests per second, burst, quota per period. */
      rateLimit: z.number().positive(),
      burstLimit: z.number().int().positive(),
      quotaLimit: z.number().int().positive(),
      quotaPeriod: z.enum(["DAY", "WEEK", "MONTH"]),
      /** Stage throttling for all callers together. */
      stageRateLimit: z.number().positive(),
      stageBurstLimit: z.number().int().positive(),
    }),
    alarms: z.strictObject({
      /**
       * Alarm when this percentage of a function's requests end in webgate's own fault (500
       * internal, 503 store_unavailable, search_not_configured, render_unavailable) in two
       * 5-minute periods running. Origin failures (502/504) are not counted.
       */
      serverErrorRatePercent: z.number().positive().max(100),
      /** An existing SNS topic to notify on alarm and on recovery (e.g. the on-call pager). */
      topicArn: z.string().regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/, "must be an SNS topic ARN").optional(),
      /** Without topicArn: the stack creates a topic and subscribes this address (confirm the mail once). */
      email: z.email().optional(),
      /** Alarm when a function's p99 duration reaches this share of its timeout. */
      durationP99PercentOfTimeout: z.number().int().min(50).max(100).default(95),
      /** Alarm when one search provider fails this often in 5 minutes. */
      providerFailuresPer5Min: z.number().int().min(1).default(5),
    }),
    /** Keep this stack from being deleted by accident (on whenever data is retained). */
    terminationProtection: z.boolean().default(false),
    /**
     * The deployment target. Required for retained environments, so that prod deploys only to
     * its own account and region and never wherever the CLI profile points.
     */
    account: z.string().regex(/^\d{12}$/, "must be a 12-digit AWS account id").optional(),
    region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, "must be an AWS region such as eu-west-1").optional(),
    /**
     * The two availability zones, required with a region: a fixed region would otherwise make
     * the VPC look them up in the account at synth, which needs credentials.
     */
    availabilityZones: z.tuple([z.string(), z.string()]).optional(),
    /**
     * Create the account-wide API Gateway CloudWatch role (`AWS::ApiGateway::Account`) in this
     * stack. Exactly one stack per account and region may own it: API Gateway has one such
     * setting per account and region, and two stacks would overwrite each other's.
     */
    apiGatewayAccountRole: z.boolean(),
    /** Point-in-time recovery on the page table (35 days of continuous backups). */
    pointInTimeRecovery: z.boolean(),
    /** AWS WAF web ACL on the API stage; when absent, on exactly in retained environments. */
    waf: z
      .strictObject({
        enabled: z.boolean(),
        /** Requests per client IP in any 5-minute window before WAF answers 429 (AWS minimum 10). */
        ipRateLimitPer5Min: z.number().int().min(10).max(2_000_000_000).default(1_500),
      })
      .optional(),
    /**
     * Route 53 Resolver DNS Firewall on the VPC, blocking the AWS-managed threat domain lists;
     * when absent, on exactly in retained environments.
     */
    dnsFirewall: z.strictObject({ enabled: z.boolean() }).optional(),
  })
  .superRefine((s, ctx) => {
    // The fetch must give up early enough that conversion and the store write still fit in the
    // Lambda timeout, which itself sits under API Gateway's 29 s integration limit.
    if (s.fetch.fetchTimeoutMs + FETCH_POST_PROCESSING_BUDGET_MS > s.fetch.timeoutS * 1_000) {
      ctx.addIssue({
        code: "custom",
        path: ["fetch", "fetchTimeoutMs"],
        message: `fetchTimeoutMs + ${FETCH_POST_PROCESSING_BUDGET_MS} ms of post-processing must fit in fetch.timeoutS (${s.fetch.timeoutS} s)`,
      });
    }
    if (s.search.provider === "searxng" && s.search.searxngUrl === undefined) {
      ctx.addIssue({ code: "custom", path: ["search", "searxngUrl"], message: "is required when provider is searxng" });
    }
    if (s.api.burstLimit > s.api.stageBurstLimit || s.api.rateLimit > s.api.stageRateLimit) {
      ctx.addIssue({ code: "custom", path: ["api"], message: "a usage plan's rate and burst cannot exceed the stage's" });
    }
    // A retained environment is one whose loss matters: it must page someone, deploy only to its
    // own account and region, and refuse a stack deletion.
    if (s.retainData) {
      if (s.alarms.topicArn === undefined && s.alarms.email === undefined) {
        ctx.addIssue({ code: "custom", path: ["alarms"], message: "a retained environment needs alarms.topicArn or alarms.email: its alarms must notify someone" });
      }
      if (s.account === undefined) ctx.addIssue({ code: "custom", path: ["account"], message: "is required for a retained environment" });
      if (s.region === undefined) ctx.addIssue({ code: "custom", path: ["region"], message: "is required for a retained environment" });
      if (!s.terminationProtection) ctx.addIssue({ code: "custom", path: ["terminationProtection"], message: "must be true for a retained environment" });
    }
    if (s.alarms.topicArn !== undefined && s.alarms.email !== undefined) {
      ctx.addIssue({ code: "custom", path: ["alarms", "email"], message: "give topicArn (an existing topic) or email (a topic this stack creates), not both" });
    }
    if ((s.account === undefined) !== (s.region === undefined)) {
      ctx.addIssue({ code: "custom", path: [s.account === undefined ? "account" : "region"], message: "account and region go together" });
    }
    if (s.region !== undefined && s.availabilityZones === undefined) {
      ctx.addIssue({ code: "custom", path: ["availabilityZones"], message: "is required with a region (two zone names, e.g. eu-west-1a and eu-west-1b)" });
    }
    if (s.availabilityZones !== undefined) {
      if (s.region === undefined) ctx.addIssue({ code: "custom", path: ["availabilityZones"], message: "needs a region" });
      s.availabilityZones.forEach((zone, i) => {
        if (s.region !== undefined && !new RegExp(`^${s.region}[a-z]$`).test(zone)) {
          ctx.addIssue({ code: "custom", path: ["availabilityZones", i], message: `must be a zone of ${s.region} (${s.region}a, ${s.region}b, …)` });
        }
      });
      if (s.availabilityZones[0] === s.availabilityZones[1]) ctx.addIssue({ code: "custom", path: ["availabilityZones"], message: "must be two different zones" });
    }
  })
  // Protection is on by default where data is retained (prod-like), off elsewhere (cost).
  .transform((s) => ({
    ...s,
    waf: s.waf ?? { enabled: s.retainData, ipRateLimitPer5Min: 1_500 },
    dnsFirewall: s.dnsFirewall ?? { enabled: s.retainData },
  }));

export type EnvironmentSettings = z.infer<typeof environmentSettingsSchema>;

/**
 * The /fetch function's environment variables for these settings (values as the runtime's
 * `loadConfig` reads them; `tableName` is the page table's name or its token).
 */
export function fetchFunctionEnvironment(s: EnvironmentSettings, tableName: string): Record<string, string> {
  return {
    [ENV.TABLE_NAME]: tableName,
    [ENV.FETCH_TIMEOUT_MS]: String(s.fetch.fetchTimeoutMs),
    [ENV.MAX_RESPONSE_BYTES]: String(s.fetch.maxResponseBytes),
    [ENV.MAX_REDIRECTS]: String(s.fetch.maxRedirects),
    [ENV.CACHE_TTL_S]: String(s.fetch.cacheTtlS),
    [ENV.ALLOWED_DOMAINS]: s.fetch.allowedDomains.join(","),
    [ENV.BLOCKED_DOMAINS]: s.fetch.blockedDomains.join(","),
    [ENV.ROBOTS]: s.fetch.robots,
    [ENV.PDF_MAX_PAGES]: String(s.fetch.pdfMaxPages),
  };
}

/** The /search function's environment variables for these settings (`secretArn`: the provider secret's ARN or its token). */
export function searchFunctionEnvironment(s: EnvironmentSettings, secretArn: string): Record<string, string> {
  return {
    [ENV.PROVIDER_SECRET_ARN]: secretArn,
    ...(s.search.provider ? { [ENV.SEARCH_PROVIDER]: s.search.provider } : {}),
    ...(s.search.searxngUrl ? { [ENV.SEARXNG_URL]: s.search.searxngUrl } : {}),
    ...(s.search.order ? { [ENV.SEARCH_ORDER]: s.search.order.join(",") } : {}),
    ...(s.search.anthropicModel ? { [ENV.ANTHROPIC_MODEL]: s.search.anthropicModel } : {}),
  };
}

/** An environment chosen for this synth: its name and validated settings. */
export interface WebgateEnvironment {
  name: string;
  settings: EnvironmentSettings;
}

/** Thrown at synth when `-c env=…` is missing or unknown, or its settings are invalid. */
export class EnvironmentError extends Error {
  override readonly name = "EnvironmentError";
}

const envName = z.string().regex(/^[a-z][a-z0-9-]{1,15}$/, "environment names are lower-case letters, digits and dashes");

/** The `environments` table: names mapped to raw settings, or an {@link EnvironmentError}. */
function environmentTable(environments: unknown): Record<string, unknown> {
  const table = z.record(envName, z.unknown()).safeParse(environments);
  if (!table.success) {
    throw new EnvironmentError(
      `cdk.json context "environments" must map environment names to settings: ${table.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  return table.data;
}

function parseSettings(name: string, raw: unknown): EnvironmentSettings {
  const parsed = environmentSettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `environments.${name}.${i.path.join(".")}: ${i.message}`);
    throw new EnvironmentError(`Invalid settings for environment "${name}":\n- ${problems.join("\n- ")}`);
  }
  return parsed.data;
}

/**
 * API Gateway keeps one CloudWatch role setting per account and region: two environments of
 * the same account and region that both create it would overwrite each other's on every deploy,
 * and deleting either would break the other's logging. Environments without a fixed account
 * cannot be compared; the docs say to turn the flag off in all but one of them.
 */
function checkAccountRoleOwners(name: string, settings: EnvironmentSettings, table: Record<string, unknown>): void {
  if (!settings.apiGatewayAccountRole || settings.account === undefined) return;
  for (const [other, raw] of Object.entries(table)) {
    if (other === name) continue;
    const parsed = environmentSettingsSchema.safeParse(raw);
    if (!parsed.success) continue;
    const o = parsed.data;
    if (o.apiGatewayAccountRole && o.account === settings.account && o.region === settings.region) {
      throw new EnvironmentError(
        `environments.${name}.apiGatewayAccountRole and environments.${other}.apiGatewayAccountRole are both true for account ${settings.account} in ${settings.region}: exactly one stack per account and region may own AWS::ApiGateway::Account`,
      );
    }
  }
}

/**
 * Picks and validates the environment to synthesize.
 *
 * @param selected the value of the `env` context (`-c env=dev`)
 * @param environments the `environments` context object from `cdk.json`
 * @throws {EnvironmentError} listing every problem: no `env`, an unknown name, or invalid settings
 */
export function resolveEnvironment(selected: unknown, environments: unknown): WebgateEnvironment {
  const table = environmentTable(environments);
  const known = Object.keys(table);
  if (typeof selected !== "string" || selected.trim() === "") {
    throw new EnvironmentError(`No environment selected: pass -c env=<name> (one of: ${known.join(", ")})`);
  }
  const raw = table[selected];
  if (raw === undefined) {
    throw new EnvironmentError(`Unknown environment "${selected}": expected one of ${known.join(", ")}`);
  }
  const settings = parseSettings(selected, raw);
  checkAccountRoleOwners(selected, settings, table);
  return { name: selected, settings };
}

/**
 * The environments one synth builds: the one `-c env=<name>` selects, or every environment of
 * the table when none is selected (so `npm run synth` checks them all).
 *
 * @throws {EnvironmentError} as {@link resolveEnvironment}, for the first environment that fails
 */
export function resolveEnvironments(selected: unknown, environments: unknown): WebgateEnvironment[] {
  if (selected === undefined) return Object.keys(environmentTable(environments)).map((name) => resolveEnvironment(name, environments));
  return [resolveEnvironment(selected, environments)];
}
