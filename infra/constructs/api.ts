/**
 * The public API: an API Gateway REST API (regional) with `POST /fetch`, `GET /fetch`,
 * `POST /search` and the MCP endpoint `POST /mcp` (GET and DELETE reach its function too, which
 * answers 405 as the MCP transport allows), an API key required on every method, a usage plan per environment, stage
 * throttling, JSON access logs, request validation that bounds the fields' sizes, and error
 * bodies in webgate's own `{ "error": { … } }` shape for the answers API Gateway gives itself.
 * CORS is off: callers are agents and servers, not browsers.
 */
import { Validations } from "aws-cdk-lib";
import * as apigw from "aws-cdk-lib/aws-apigateway";
import type * as lambda from "aws-cdk-lib/aws-lambda";
import type * as logs from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";

/** Upper bounds API Gateway enforces on request fields before a function runs. */
export const FIELD_LIMITS = {
  /** Characters of `url` (POST body); longer URLs are refused with invalid_request. */
  url: 8_192,
  snapshotId: 256,
  /** Characters of `query`; generous on purpose: the handler applies the exact 2–400 rule. */
  query: 4_096,
  provider: 32,
  /** Fields per JSON body. */
  properties: 16,
} as const;

/**
 * Answers API Gateway gives without calling a function, rewritten to webgate's error shape, each
 * with a code from shared/errors.ts. A missing or wrong API key keeps API Gateway's own
 * `403 {"message":"Forbidden"}`: that is the documented contract, and the local server
 * answers the same.
 */
export const GATEWAY_ERRORS: ReadonlyArray<{ type: apigw.ResponseType; status: number; code: string; retryable: boolean; message: string }> = [
  { type: apigw.ResponseType.BAD_REQUEST_BODY, status: 400, code: "invalid_request", retryable: false, message: `The request body is not accepted: a field is too long (url at most ${FIELD_LIMITS.url} characters, query at most ${FIELD_LIMITS.query}, snapshot_id at most ${FIELD_LIMITS.snapshotId}) or it has more than ${FIELD_LIMITS.properties} fields.` },
  { type: apigw.ResponseType.BAD_REQUEST_PARAMETERS, status: 400, code: "invalid_request", retryable: false, message: "The query parameter url is required." },
  // REST APIs answer an unknown path or method with 403 MissingAuthenticationToken; say 404.
  { type: apigw.ResponseType.MISSING_AUTHENTICATION_TOKEN, status: 404, code: "not_found", retryable: false, message: "No such route: use POST /fetch, GET /fetch, POST /search or POST /mcp." },
  { type: apigw.ResponseType.THROTTLED, status: 429, code: "rate_limited", retryable: true, message: "Too many requests: slow down and retry." },
  { type: apigw.ResponseType.QUOTA_EXCEEDED, status: 429, code: "rate_limited", retryable: false, message: "The API key's quota for this period is used up." },
  { type: apigw.ResponseType.REQUEST_TOO_LARGE, status: 400, code: "invalid_request", retryable: false, message: "The request is too large." },
  { type: apigw.ResponseType.INTEGRATION_TIMEOUT, status: 504, code: "upstream_timeout", retryable: true, message: "The request took too long to answer." },
  { type: apigw.ResponseType.DEFAULT_5XX, status: 500, code: "internal", retryable: true, message: "Internal error." },
];

export interface ApiProps {
  envName: string;
  fetchFunction: lambda.IFunction;
  searchFunction: lambda.IFunction;
  /** Serves /mcp (web_fetch and web_search over MCP Streamable HTTP). */
  mcpFunction: lambda.IFunction;
  accessLogGroup: logs.ILogGroup;
  usagePlan: { rateLimit: number; burstLimit: number; quotaLimit: number; quotaPeriod: "DAY" | "WEEK" | "MONTH" };
  stageThrottle: { rateLimit: number; burstLimit: number };
}

export class Api extends Construct {
  readonly restApi: apigw.RestApi;
  readonly usagePlan: apigw.UsagePlan;
  /** The first consumer's key; its value stays in API Gateway (output: its id only). */
  readonly apiKey: apigw.IApiKey;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    this.restApi = new apigw.RestApi(this, "RestApi", {
      restApiName: `webgate-${props.envName}`,
      description: "webgate: guarded web reader and web search for AI agents",
      endpointConfiguration: { types: [apigw.EndpointType.REGIONAL] },
      // API Gateway writes access and execution logs only when the account-level CloudWatch
      // role is set; this creates it (retained on delete, other APIs may rely on it).
      cloudWatchRole: true,
      deployOptions: {
        stageName: "v1",
        throttlingRateLimit: props.stageThrottle.rateLimit,
        throttlingBurstLimit: props.stageThrottle.burstLimit,
        accessLogDestination: new apigw.LogGroupLogDestination(props.accessLogGroup),
        // resourcePath, not path: the query string (caller URLs) stays out of the access log.
        accessLogFormat: apigw.AccessLogFormat.custom(
          JSON.stringify({
            requestId: "$context.requestId",
            extendedRequestId: "$context.extendedRequestId",
            ip: "$context.identity.sourceIp",
            apiKeyId: "$context.identity.apiKeyId",
            method: "$context.httpMethod",
            resource: "$context.resourcePath",
            status: "$context.status",
            responseLength: "$context.responseLength",
            requestTime: "$context.requestTimeEpoch",
            latencyMs: "$context.responseLatency",
            integrationLatencyMs: "$context.integration.latency",
            integrationStatus: "$context.integration.status",
            errorType: "$context.error.responseType",
          }),
        ),
        // Errors only, never request or response bodies (dataTrace) in execution logs.
        loggingLevel: apigw.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
      },
      defaultMethodOptions: { apiKeyRequired: true },
      apiKeySourceType: apigw.ApiKeySourceType.HEADER,
      // No defaultCorsPreflightOptions: no OPTIONS methods, no CORS headers.
    });

    for (const e of GATEWAY_ERRORS) {
      this.restApi.addGatewayResponse(`Gw${e.type.responseType}`, {
        type: e.type,
        statusCode: String(e.status),
        responseHeaders: { "Content-Type": "'application/json'" },
        templates: {
          "application/json": JSON.stringify({
            error: { code: e.code, message: e.message, retryable: e.retryable, request_id: "$context.requestId" },
          }),
        },
      });
    }

    // One validator for every method: body checks apply where a model is declared (POST),
    // parameter checks where parameters are declared required (GET).
    const validator = this.restApi.addRequestValidator("Validator", { validateRequestBody: true, validateRequestParameters: true });
    // Size bounds only, no types: the handlers' own validation names the wrong field exactly;
    // these models just keep huge strings from reaching a function (draft-04 maxLength only
    // applies to strings, so a wrong type passes through to that validation).
    const fetchModel = this.restApi.addModel("FetchRequest", {
      contentType: "application/json",
      schema: {
        schema: apigw.JsonSchemaVersion.DRAFT4,
        title: "FetchRequest",
        maxProperties: FIELD_LIMITS.properties,
        properties: { url: { maxLength: FIELD_LIMITS.url }, snapshot_id: { maxLength: FIELD_LIMITS.snapshotId } },
      },
    });
    const searchModel = this.restApi.addModel("SearchRequest", {
      contentType: "application/json",
      schema: {
        schema: apigw.JsonSchemaVersion.DRAFT4,
        title: "SearchRequest",
        maxProperties: FIELD_LIMITS.properties,
        properties: { query: { maxLength: FIELD_LIMITS.query }, provider: { maxLength: FIELD_LIMITS.provider } },
      },
    });

    const fetchIntegration = new apigw.LambdaIntegration(props.fetchFunction, { allowTestInvoke: false });
    const searchIntegration = new apigw.LambdaIntegration(props.searchFunction, { allowTestInvoke: false });
    const fetch = this.restApi.root.addResource("fetch");
    fetch.addMethod("POST", fetchIntegration, { requestValidator: validator, requestModels: { "application/json": fetchModel } });
    fetch.addMethod("GET", fetchIntegration, { requestValidator: validator, requestParameters: { "method.request.querystring.url": true } });
    this.restApi.root.addResource("search").addMethod("POST", searchIntegration, { requestValidator: validator, requestModels: { "application/json": searchModel } });
    // /mcp: no body model. JSON-RPC bodies (objects or batches) are parsed, bounded (64 KiB) and
    // answered with the protocol's own errors by the function; a gateway 400 in the REST error
    // shape would not be an answer an MCP client understands. GET (an SSE stream) and DELETE (a
    // session) reach the function, which answers 405, instead of the gateway's 404 for an
    // unknown method. Same key, same usage plan as the REST routes (defaultMethodOptions).
    const mcpIntegration = new apigw.LambdaIntegration(props.mcpFunction, { allowTestInvoke: false });
    const mcp = this.restApi.root.addResource("mcp");
    for (const method of ["POST", "GET", "DELETE"]) mcp.addMethod(method, mcpIntegration, { requestValidator: validator });

    this.usagePlan = this.restApi.addUsagePlan("UsagePlan", {
      name: `webgate-${props.envName}`,
      description: "Per-key limits for webgate consumers",
      throttle: { rateLimit: props.usagePlan.rateLimit, burstLimit: props.usagePlan.burstLimit },
      quota: { limit: props.usagePlan.quotaLimit, period: apigw.Period[props.usagePlan.quotaPeriod] },
      apiStages: [{ api: this.restApi, stage: this.restApi.deploymentStage }],
    });
    this.apiKey = this.restApi.addApiKey("DefaultKey", { description: `webgate ${props.envName}: first consumer key` });
    this.usagePlan.addApiKey(this.apiKey);

    Validations.of(this.restApi).acknowledge({
      id: "AwsSolutions-APIG3",
      reason:
        "No WAF: callers are authenticated by API key with per-key usage-plan throttling and quotas plus stage throttling; request size is bounded by request validation. A WebACL can be associated with the stage later without changing this stack.",
    });
    Validations.of(this.restApi).acknowledge({
      id: "AwsSolutions-APIG4",
      reason:
        "Machine consumers (AI agents) authenticate with API keys attached to a usage plan, the product's access model; every method requires a key (apiKeyRequired).",
    });
    Validations.of(this.restApi).acknowledge({
      id: "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]",
      reason:
        "The account-level API Gateway logging role uses AWS's AmazonAPIGatewayPushToCloudWatchLogs, the policy AWS documents for it; API Gateway (not our code) assumes the role.",
    });
    Validations.of(this.restApi).acknowledge({
      id: "AwsSolutions-COG4",
      reason: "No Cognito: consumers are agents and servers using API keys, not users signing in.",
    });
  }
}
