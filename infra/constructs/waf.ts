/**
 * The AWS WAF web ACL in front of the API stage. API keys are the only authentication, so a
 * leaked key would otherwise let anyone use the NAT's addresses as a fetch proxy at the usage
 * plan's rate; WAF adds limits that do not depend on the key:
 * - the AWS managed IP reputation list (known bots, scanners, DDoS sources): 403, as API
 *   Gateway answers a refused key;
 * - a body size rule: bodies over {@link MAX_REQUEST_BODY_BYTES} never reach a function (413);
 * - a per-client-IP rate-based rule over 5-minute windows (429).
 * The 413 and 429 answers are in webgate's error shape. WAF answers before API Gateway assigns
 * its request id to a handler, so their `request_id` is empty; API Gateway's `x-amzn-RequestId`
 * response header still identifies the request.
 */
import * as wafv2 from "aws-cdk-lib/aws-wafv2";
import { Construct } from "constructs";
import { ERROR_TABLE, type ErrorCode } from "../../shared/errors";
import { MAX_REQUEST_BODY_BYTES } from "../../shared/middleware/parse-request";

export interface WafProps {
  envName: string;
  /** ARN of the API Gateway stage to protect. */
  stageArn: string;
  /** Requests per client IP in a 5-minute window before WAF answers 429. */
  ipRateLimitPer5Min: number;
}

/** Rule names; also the CloudWatch metric names WAF publishes per rule (AWS/WAFV2). */
export const WAF_RULES = {
  ipReputation: "aws-ip-reputation",
  bodySize: "body-size",
  ipRate: "ip-rate",
} as const;

/** A WAF custom response body in webgate's error shape. */
function errorBody(code: ErrorCode, message: string): wafv2.CfnWebACL.CustomResponseBodyProperty {
  return {
    contentType: "APPLICATION_JSON",
    content: JSON.stringify({ error: { code, message, retryable: ERROR_TABLE[code].retryable, request_id: "" } }),
  };
}

function block(code: ErrorCode): wafv2.CfnWebACL.RuleActionProperty {
  return { block: { customResponse: { responseCode: ERROR_TABLE[code].status, customResponseBodyKey: code } } };
}

export class Waf extends Construct {
  readonly webAcl: wafv2.CfnWebACL;
  readonly metricPrefix: string;

  constructor(scope: Construct, id: string, props: WafProps) {
    super(scope, id);
    this.metricPrefix = `webgate-${props.envName}`;
    const visibility = (name: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      metricName: `${this.metricPrefix}-${name}`,
      // Sampled requests keep up to 3 hours of matched request headers for the console; no bodies.
      sampledRequestsEnabled: true,
    });

    this.webAcl = new wafv2.CfnWebACL(this, "WebAcl", {
      name: `webgate-${props.envName}`,
      description: "webgate API: IP reputation, body size, per-IP rate",
      scope: "REGIONAL",
      defaultAction: { allow: {} },
      visibilityConfig: visibility("web-acl"),
      customResponseBodies: {
        request_too_large: errorBody("request_too_large", `The request body is larger than ${MAX_REQUEST_BODY_BYTES} bytes.`),
        rate_limited: errorBody("rate_limited", "Too many requests from this address: slow down and retry."),
      },
      rules: [
        {
          name: WAF_RULES.ipReputation,
          priority: 0,
          statement: { managedRuleGroupStatement: { vendorName: "AWS", name: "AWSManagedRulesAmazonIpReputationList" } },
          overrideAction: { none: {} },
          visibilityConfig: visibility(WAF_RULES.ipReputation),
        },
        {
          // API Gateway lets WAF inspect the first 16 KB of a body (the default for API
          // Gateway); a larger body is "oversize", which this rule treats as a match, so the
          // refusal starts exactly where the handlers' own 16 KiB limit does.
          name: WAF_RULES.bodySize,
          priority: 1,
          statement: {
            sizeConstraintStatement: {
              fieldToMatch: { body: { oversizeHandling: "MATCH" } },
              comparisonOperator: "GT",
              size: MAX_REQUEST_BODY_BYTES,
              textTransformations: [{ priority: 0, type: "NONE" }],
            },
          },
          action: block("request_too_large"),
          visibilityConfig: visibility(WAF_RULES.bodySize),
        },
        {
          name: WAF_RULES.ipRate,
          priority: 2,
          statement: { rateBasedStatement: { limit: props.ipRateLimitPer5Min, aggregateKeyType: "IP", evaluationWindowSec: 300 } },
          action: block("rate_limited"),
          visibilityConfig: visibility(WAF_RULES.ipRate),
        },
      ],
    });

    new wafv2.CfnWebACLAssociation(this, "StageAssociation", { resourceArn: props.stageArn, webAclArn: this.webAcl.attrArn });
  }
}
