/**
 * The public API: an API Gateway REST API (regional) with `POST /fetch`, `GET /fetch`,
 * `POST /search` and the MCP endpoint `POST /mcp` (GET and DELETE reach its function, which
 * answers 405 as the MCP transport allows), an API key required on every method, a usage plan per environment, stage
 * throttling, JSON access logs, request validation that bounds the fields' sizes, and error
 * bodies in webgate's own `{ "error": { … } }` shape for the answers API Gateway gives itself.
 * `GET /openapi.json` is a static answer generated at synth (no Lambda, no key).
 * CORS is off: callers are agents and servers, not browsers.
 */
import { type RemovalPolicy, Validations } from "aws-cdk-lib";
import * as apigw from "aws-cdk-lib/aws-apigateway";
import type * as lambda from "aws-cdk-lib/aws-lambda";
import type * as logs from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { buildOpenApiDocument } from "../../shared/api/openapi";

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
 * with a code from shared/errors.ts. Every response type that can occur on this API is here,
 * except these, which keep API Gateway's own `403 {"message":"Forbidden"}`: a missing or wrong
 * API key (INVALID_API_KEY; the documented contract, and the local server answers the same) and
 * a WAF block by IP reputation (WAF_FILTERED; WAF's own size and rate blocks answer 413/429 in
 * webgate's shape, see infra/constructs/waf.ts). DEFAULT_4XX is left alone for the same reason:
 * INVALID_API_KEY falls back to it. ACCESS_DENIED, UNAUTHORIZED, EXPIRED_TOKEN,
 * INVALID_SIGNATURE and the AUTHORIZER_* types need an authorizer, IAM auth or a resource policy,
 * which this API has none of; their 5xx forms fall under DEFAULT_5XX.
 */
export const GATEWAY_ERRORS: ReadonlyArray<{ type: apigw.ResponseType; status: number; code: string; retryable: boolean; message: string }> = [
  { type: apigw.ResponseType.BAD_REQUEST_BODY, status: 400, code: "invalid_request", retryable: false, message: `The request body is not accepted: a field is too long (url at most ${FIELD_LIMITS.url} characters, query at most ${FIELD_LIMITS.query}, snapshot_id at most ${FIELD_LIMITS.snapshotId}) or it has more than ${FIELD_LIMITS.properties} fields.` },
  { type: apigw.ResponseType.BAD_REQUEST_PARAMETERS, status: 400, code: "invalid_request", retryable: false, message: "The query parameter url is required." },
  { type: apigw.ResponseType.UNSUPPORTED_MEDIA_TYPE, status: 400, code: "invalid_request", retryable: false, message: "The request body must be JSON, sent with Content-Type: application/json." },
  // REST APIs answer an unknown path or method with 403 MissingAuthenticationToken; say 404.
  { type: apigw.ResponseType.MISSING_AUTHENTICATION_TOKEN, status: 404, code: "not_found", retryable: false, message: "No such route: use POST /fetch, GET /fetch, POST /search, POST /mcp or GET /openapi.json." },
  { type: apigw.ResponseType.RESOURCE_NOT_FOUND, status: 404, code: "not_found", retryable: false, message: "No such route: use POST /fetch, GET /fetch, POST /search, POST /mcp or GET /openapi.json." },
  { type: apigw.ResponseType.THROTTLED, status: 429, code: "rate_limited", retryable: true, message: "Too many requests: slow down and retry." },
  { type: apigw.ResponseType.QUOTA_EXCEEDED, status: 429, code: "rate_limited", retryable: false, message: "The API key's quota for this period is used up." },
  // A function at its reserved concurrency makes Lambda refuse the invocation (429
  // TooManyRequestsException), which API Gateway reports as INTEGRATION_FAILURE: that is
  // capacity, not a bug, so the caller gets 429 with a retry hint instead of a 5xx.
  { type: apigw.ResponseType.INTEGRATION_FAILURE, status: 429, code: "rate_limited", retryable: true, message: "The service is at capacity: retry with backoff." },
  { type: apigw.ResponseType.REQUEST_TOO_LARGE, status: 413, code: "request_too_large", retryable: false, message: "The request is too large." },
  { type: apigw.ResponseType.INTEGRATION_TIMEOUT, status: 504, code: "upstream_timeout", retryable: true, message: "The request took too long to answer." },
  { type: apigw.ResponseType.DEFAULT_5XX, status: 500, code: "internal", retryable: true, message: "Internal error." },
];

/** The one stage; its name is the first path segment of every URL. */
export const STAGE_NAME = "v1";

/** The route that serves the OpenAPI document, without a key. */
export const OPENAPI_PATH = "openapi.json";

/**
 * The integration response template for `GET /openapi.json`: the document, generated at synth
 * from the same schemas the handlers validate with, base64-encoded so that VTL cannot read its
 * `$ref` keys as variable references. Its server is the stage itself (a relative URL).
 */
export function openApiTemplate(stageName: string): string {
  const document = buildOpenApiDocument({ servers: [{ url: `/${stageName}`, description: "this API Gateway stage" }] });
  return `$util.base64Decode("${Buffer.from(JSON.stringify(document), "utf8").toString("base64")}")`;
}

export interface ApiProps {
  envName: string;
  fetchFunction: lambda.IFunction;
  searchFunction: lambda.IFunction;
  /** Serves /mcp (web_fetch and web_search over MCP Streamable HTTP). */
  mcpFunction: lambda.IFunction;
  accessLogGroup: logs.ILogGroup;
  usagePlan: { rateLimit: number; burstLimit: number; quotaLimit: number; quotaPeriod: "DAY" | "WEEK" | "MONTH" };
  stageThrottle: { rateLimit: number; burstLimit: number };
  /**
   * Create the account-wide API Gateway CloudWatch role (AWS::ApiGateway::Account). One stack
   * per account and region owns it; the others rely on it (access logs need it).
   */
  accountCloudWatchRole: boolean;
  /** What happens to that role when this stack is deleted. */
  accountCloudWatchRoleRemovalPolicy: RemovalPolicy;
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
      // role is set; exactly one stack per account and region creates it (cdk.json
      // apiGatewayAccountRole), or they would overwrite each other's.
      cloudWatchRole: props.accountCloudWatchRole,
      ...(props.accountCloudWatchRole ? { cloudWatchRoleRemovalPolicy: props.accountCloudWatchRoleRemovalPolicy } : {}),
      deployOptions: {
        stageName: STAGE_NAME,
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

    // The document is public (it describes the API, holds no secret) and costs no Lambda call.
    const openApi = new apigw.MockIntegration({
      requestTemplates: { "application/json": '{"statusCode": 200}' },
      passthroughBehavior: apigw.PassthroughBehavior.NEVER,
      integrationResponses: [
        {
          statusCode: "200",
          responseParameters: { "method.response.header.Content-Type": "'application/json'", "method.response.header.Cache-Control": "'max-age=300'" },
          responseTemplates: { "application/json": openApiTemplate(STAGE_NAME) },
        },
      ],
    });
    this.restApi.root.addResource(OPENAPI_PATH).addMethod("GET", openApi, {
      apiKeyRequired: false,
      methodResponses: [{ statusCode: "200", responseParameters: { "method.response.header.Content-Type": true, "method.response.header.Cache-Control": true } }],
    });

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
      id: "AwsSolutions-APIG4",
      reason:
        "Machine consumers (AI agents) authenticate with API keys attached to a usage plan, the product's access model; every method requires a key (apiKeyRequired) except GET /openapi.json, a static public description of the API served by a mock integration.",
    });
    if (props.accountCloudWatchRole) {
      Validations.of(this.restApi).acknowledge({
        id: "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]",
        reason:
          "The account-level API Gateway logging role uses AWS's AmazonAPIGatewayPushToCloudWatchLogs, the policy AWS documents for it; API Gateway (not our code) assumes the role.",
      });
    }
    Validations.of(this.restApi).acknowledge({
      id: "cdk-validator-cfnguard::lambda_function_public_access_prohibited_check",
      reason:
        "The integrations' Lambda permissions name the apigateway.amazonaws.com principal with a SourceArn scoped to this API's own execute-api ARN (built with Fn::Join); Control Tower's rule only recognises a literal string or a Ref/GetAtt there.",
    });
    Validations.of(this.restApi).acknowledge({
      id: "cdk-validator-cfnguard::api_gw_xray_enabled_check",
      reason:
        "No X-Ray on the stage: the JSON access log already records each request's latency and integration latency, the functions are not traced, and tracing would cost about USD 4.50 a month at 1 M requests (docs/deploy.md) for no new information.",
    });
    Validations.of(this.restApi).acknowledge({
      id: "AwsSolutions-COG4",
      reason: "No Cognito: consumers are agents and servers using API keys, not users signing in.",
    });
  }
}
