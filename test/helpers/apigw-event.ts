import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { randomUUID } from "node:crypto";

export interface EventInput {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  body?: string | object;
  query?: Record<string, string | string[]>;
  headers?: Record<string, string>;
  isBase64Encoded?: boolean;
}

/** An API Gateway REST (v1) proxy event, as API Gateway sends it to Lambda. */
export function apiGatewayEvent(input: EventInput): APIGatewayProxyEvent {
  const headers: Record<string, string> = { ...input.headers };
  let body: string | null = null;
  if (input.body !== undefined) {
    body = typeof input.body === "string" ? input.body : JSON.stringify(input.body);
    if (!Object.keys(headers).some((k) => k.toLowerCase() === "content-type")) headers["Content-Type"] = "application/json";
  }
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(input.query ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    multi[name] = values;
    single[name] = values[values.length - 1]!;
  }
  const requestId = randomUUID();
  return {
    resource: input.path,
    path: input.path,
    httpMethod: input.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: Object.keys(single).length > 0 ? single : null,
    multiValueQueryStringParameters: Object.keys(multi).length > 0 ? multi : null,
    pathParameters: null,
    stageVariables: null,
    body,
    isBase64Encoded: input.isBase64Encoded ?? false,
    requestContext: {
      accountId: "123456789012",
      apiId: "testapi",
      authorizer: null,
      protocol: "HTTP/1.1",
      httpMethod: input.method,
      identity: {
        accessKey: null, accountId: null, apiKey: null, apiKeyId: null, caller: null, clientCert: null,
        cognitoAuthenticationProvider: null, cognitoAuthenticationType: null, cognitoIdentityId: null,
        cognitoIdentityPoolId: null, principalOrgId: null, sourceIp: "127.0.0.1", user: null,
        userAgent: "vitest", userArn: null,
      },
      path: `/test${input.path}`,
      stage: "test",
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: "abc123",
      resourcePath: input.path,
    },
  };
}

/** A Lambda context as the runtime passes it. */
export function lambdaContext(overrides: Partial<Context> = {}): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: "webgate-test",
    functionVersion: "$LATEST",
    invokedFunctionArn: "arn:aws:lambda:us-east-1:123456789012:function:webgate-test",
    memoryLimitInMB: "512",
    awsRequestId: randomUUID(),
    logGroupName: "/aws/lambda/webgate-test",
    logStreamName: "test",
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
    ...overrides,
  };
}
