/**
 * The CloudWatch dashboard and alarms of one environment, and who they notify.
 *
 * Alarms page only on what the operator can fix: webgate's own faults (the codes of
 * {@link OWN_FAULT_CODES}), Lambda errors, throttles and p99 duration near the timeout, NAT port
 * exhaustion, DynamoDB throttles and search provider failures. Origin failures (502/504 such as
 * `connect_failed`) are what callers' dead links produce: any key holder could page the
 * operator by fetching broken URLs, so they are on the dashboard only.
 *
 * Powertools Metrics adds a `service` dimension (the function's POWERTOOLS_SERVICE_NAME) to
 * every metric, so `ServerErrors` is emitted with {service, route, code}. Alarms need exact
 * dimension sets and name each one; the dashboard uses SEARCH expressions, which match whatever
 * dimension set the handlers emit.
 */
import { Duration } from "aws-cdk-lib";
import type * as apigw from "aws-cdk-lib/aws-apigateway";
import * as cw from "aws-cdk-lib/aws-cloudwatch";
import * as cwActions from "aws-cdk-lib/aws-cloudwatch-actions";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as sns from "aws-cdk-lib/aws-sns";
import * as subscriptions from "aws-cdk-lib/aws-sns-subscriptions";
import { Validations } from "aws-cdk-lib";
import { Construct } from "constructs";
import { PROVIDER_NAMES } from "../../shared/search/schema";
import { DIMENSION, METRIC, METRICS_NAMESPACE, OWN_FAULT_CODES } from "../../shared/observability/metric-names";
import type { ApiFunction } from "./api-function";

const PERIOD = Duration.minutes(5);

export interface ObservabilityProps {
  envName: string;
  restApi: apigw.RestApi;
  /** Every function of the stack: each gets the Lambda alarms, each with a route the fault alarm. */
  functions: ApiFunction[];
  table: dynamodb.ITable;
  /** The NAT gateways' ids (AWS/NATGateway ErrorPortAllocation). */
  natGatewayIds: string[];
  /** Alarm when this percentage of a function's invocations end in one of webgate's own faults. */
  ownFaultRatePercent: number;
  /** Alarm when a function's p99 duration reaches this share of its timeout. */
  durationP99PercentOfTimeout: number;
  /** Alarm when one search provider fails this often in 5 minutes. */
  providerFailuresPer5Min: number;
  /** An existing topic to notify; without it the stack creates one. */
  alarmTopicArn?: string;
  /** Subscribed to the topic this stack creates (ignored with alarmTopicArn). */
  alarmEmail?: string;
  /** The WAF web ACL's metric prefix, for the dashboard (absent without WAF). */
  wafWebAclName?: string;
}

/** A SEARCH over every dimension set of one webgate metric. */
function searchMetric(metricName: string, statistic: string, label: string): cw.MathExpression {
  return new cw.MathExpression({
    expression: `SEARCH('Namespace="${METRICS_NAMESPACE}" MetricName="${metricName}"', '${statistic}', ${PERIOD.toSeconds()})`,
    label,
    period: PERIOD,
    usingMetrics: {},
  });
}

/** One webgate metric with its exact dimensions (as Powertools emits them, service included). */
function webgateMetric(metricName: string, dimensionsMap: Record<string, string>): cw.Metric {
  return new cw.Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap, statistic: "Sum", period: PERIOD });
}

/** `a + b + …` over metrics whose missing points count as 0, keyed for usingMetrics. */
function sumOf(prefix: string, metrics: cw.Metric[]): { expression: string; usingMetrics: Record<string, cw.IMetric> } {
  const usingMetrics = Object.fromEntries(metrics.map((m, i) => [`${prefix}${i}`, m]));
  return { expression: Object.keys(usingMetrics).map((k) => `FILL(${k}, 0)`).join(" + "), usingMetrics };
}

export class Observability extends Construct {
  readonly dashboard: cw.Dashboard;
  readonly alarms: cw.Alarm[] = [];
  /** The functions this construct watches. */
  readonly functions: readonly ApiFunction[];
  /** The topic every alarm notifies, on alarm and on recovery. */
  readonly topic: sns.ITopic;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.functions = props.functions;
    const api = props.restApi;
    const name = (suffix: string) => `webgate-${props.envName}-${suffix}`;
    const alarm = (metric: cw.Metric | cw.MathExpression, id: string, options: Omit<cw.CreateAlarmOptions, "evaluationPeriods"> & { evaluationPeriods?: number }) => {
      const created = metric.createAlarm(this, id, {
        evaluationPeriods: 1,
        comparisonOperator: cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cw.TreatMissingData.NOT_BREACHING,
        ...options,
      });
      this.alarms.push(created);
      return created;
    };

    for (const fn of props.functions) {
      const short = fn.node.id.toLowerCase();
      if (fn.route !== undefined) {
        // webgate's own faults, as a share of the function's invocations (one per request).
        const faults = sumOf(
          "f",
          OWN_FAULT_CODES.map((code) => webgateMetric(METRIC.serverErrors, { service: fn.serviceName, [DIMENSION.route]: fn.route!, [DIMENSION.code]: code })),
        );
        const rate = new cw.MathExpression({
          expression: `IF(FILL(invocations, 0) > 0, 100 * (${faults.expression}) / invocations, 0)`,
          usingMetrics: { ...faults.usingMetrics, invocations: fn.function.metricInvocations({ period: PERIOD, statistic: "Sum" }) },
          label: `${short} own faults (%)`,
          period: PERIOD,
        });
        alarm(rate, `${fn.node.id}OwnFaults`, {
          alarmName: name(`${short}-own-faults`),
          alarmDescription: `More than ${props.ownFaultRatePercent}% of ${short} requests ended in webgate's own fault (${OWN_FAULT_CODES.join(", ")}) in two 5-minute periods running. Origin failures (502/504) do not count. Runbook: docs/operations.md.`,
          threshold: props.ownFaultRatePercent,
          evaluationPeriods: 2,
          comparisonOperator: cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
        });
      }
      // Handlers answer caller errors themselves; Lambda Errors counts crashes and timeouts.
      alarm(fn.function.metricErrors({ period: PERIOD, statistic: "Sum" }), `${fn.node.id}Errors`, {
        alarmName: name(`${short}-errors`),
        alarmDescription: `The ${short} function failed (crash or timeout) at least once in 5 minutes.`,
        threshold: 1,
      });
      alarm(fn.function.metricThrottles({ period: PERIOD, statistic: "Sum" }), `${fn.node.id}Throttles`, {
        alarmName: name(`${short}-throttles`),
        alarmDescription: `The ${short} function hit its reserved concurrency in 5 minutes (callers got 429 rate_limited).`,
        threshold: 1,
      });
      const limitMs = Math.floor((fn.timeout.toMilliseconds() * props.durationP99PercentOfTimeout) / 100);
      alarm(fn.function.metricDuration({ period: PERIOD, statistic: "p99" }), `${fn.node.id}DurationP99`, {
        alarmName: name(`${short}-duration-p99`),
        alarmDescription: `The ${short} function's p99 duration reached ${limitMs} ms (${props.durationP99PercentOfTimeout}% of its ${fn.timeout.toSeconds()} s timeout; API Gateway cuts at 29 s) in two 5-minute periods running.`,
        threshold: limitMs,
        evaluationPeriods: 2,
      });
      if (fn.callsSearchProviders) {
        for (const provider of PROVIDER_NAMES) {
          // Every failed attempt of the provider, whether or not a failover followed.
          const failures = webgateMetric(METRIC.searchProviderFailures, { service: fn.serviceName, [DIMENSION.provider]: provider });
          alarm(failures, `${fn.node.id}Provider${provider}`, {
            alarmName: name(`${short}-provider-${provider}`),
            alarmDescription: `The ${provider} search provider failed ${props.providerFailuresPer5Min} times or more in 5 minutes (any provider_* code: auth, rate limit, timeout, error, bad response).`,
            threshold: props.providerFailuresPer5Min,
          });
        }
      }
    }

    props.natGatewayIds.forEach((natGatewayId, i) => {
      const metric = new cw.Metric({ namespace: "AWS/NATGateway", metricName: "ErrorPortAllocation", dimensionsMap: { NatGatewayId: natGatewayId }, statistic: "Sum", period: PERIOD });
      alarm(metric, `Nat${i}PortAllocation`, {
        alarmName: name(`nat-${i}-port-allocation`),
        alarmDescription: "A NAT gateway could not allocate a source port (too many concurrent connections to one destination): fetches fail with connect_failed.",
        threshold: 1,
      });
    });

    const tableThrottles = new cw.MathExpression({
      expression: "FILL(reads, 0) + FILL(writes, 0)",
      usingMetrics: {
        reads: props.table.metric("ReadThrottleEvents", { statistic: "Sum", period: PERIOD }),
        writes: props.table.metric("WriteThrottleEvents", { statistic: "Sum", period: PERIOD }),
      },
      label: "DynamoDB throttle events",
      period: PERIOD,
    });
    alarm(tableThrottles, "TableThrottles", {
      alarmName: name("table-throttles"),
      alarmDescription: "The page table throttled reads or writes in 5 minutes (the fetch route then answers with cache: bypass).",
      threshold: 1,
    });

    if (props.alarmTopicArn !== undefined) {
      this.topic = sns.Topic.fromTopicArn(this, "AlarmTopic", props.alarmTopicArn);
    } else {
      const topic = new sns.Topic(this, "AlarmTopic", { displayName: `webgate ${props.envName} alarms`, enforceSSL: true });
      if (props.alarmEmail !== undefined) topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
      Validations.of(topic).acknowledge({
        id: "AwsSolutions-SNS2",
        reason:
          "Alarm notifications carry alarm names, thresholds and metric values, no request data. CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer-managed key (USD 1 a month plus a key policy for CloudWatch) buys no confidentiality for that content.",
      });
      this.topic = topic;
    }
    const action = new cwActions.SnsAction(this.topic);
    for (const a of this.alarms) {
      a.addAlarmAction(action);
      a.addOkAction(action);
    }

    // 5xx rate for the dashboard: includes origin failures (502/504), so it is no alarm.
    const serverErrorRate = new cw.MathExpression({
      expression: "errors * 100",
      usingMetrics: { errors: api.metricServerError({ statistic: "Average", period: PERIOD }) },
      label: "5xx rate (%)",
      period: PERIOD,
    });
    const fns = props.functions.map((fn) => [fn.node.id.toLowerCase(), fn.function] as const);
    this.dashboard = new cw.Dashboard(this, "Dashboard", {
      dashboardName: `webgate-${props.envName}`,
      defaultInterval: Duration.hours(6),
      widgets: [
        [
          new cw.GraphWidget({ title: "API requests", left: [api.metricCount({ period: PERIOD, statistic: "Sum" })], width: 8 }),
          new cw.GraphWidget({ title: "API 5xx rate (%)", left: [serverErrorRate], width: 8 }),
          new cw.GraphWidget({
            title: "API latency (ms)",
            left: [api.metricLatency({ period: PERIOD, statistic: "p50" }), api.metricLatency({ period: PERIOD, statistic: "p99" })],
            width: 8,
          }),
        ],
        [
          new cw.GraphWidget({ title: "Requests by route and status", left: [searchMetric(METRIC.requests, "Sum", "")], width: 12 }),
          new cw.GraphWidget({
            title: "Cache outcomes (/fetch)",
            left: [searchMetric(METRIC.cacheHit, "Sum", "hit"), searchMetric(METRIC.cacheMiss, "Sum", "miss"), searchMetric(METRIC.cacheBypass, "Sum", "bypass")],
            width: 12,
          }),
        ],
        [
          new cw.GraphWidget({ title: "Refusals by code (4xx)", left: [searchMetric(METRIC.refusals, "Sum", "")], width: 8 }),
          new cw.GraphWidget({ title: "Origin latency p90 (ms)", left: [searchMetric(METRIC.originLatency, "p90", "")], width: 8 }),
          new cw.GraphWidget({ title: "Origin bytes p90", left: [searchMetric(METRIC.originBytes, "p90", "")], width: 8 }),
        ],
        [
          new cw.GraphWidget({ title: "Search provider calls", left: [searchMetric(METRIC.providerCalls, "Sum", "")], width: 8 }),
          new cw.GraphWidget({
            title: "Lambda errors and throttles",
            left: fns.flatMap(([name, fn]) => [
              fn.metricErrors({ period: PERIOD, statistic: "Sum", label: `${name} errors` }),
              fn.metricThrottles({ period: PERIOD, statistic: "Sum", label: `${name} throttles` }),
            ]),
            width: 8,
          }),
          new cw.GraphWidget({
            title: "Lambda duration p99 (ms)",
            left: fns.map(([name, fn]) => fn.metricDuration({ period: PERIOD, statistic: "p99", label: name })),
            width: 8,
          }),
        ],
        [
          new cw.GraphWidget({ title: "5xx by code: own faults and origin failures", left: [searchMetric(METRIC.serverErrors, "Sum", "")], width: 8 }),
          new cw.GraphWidget({ title: "DynamoDB throttles", left: [tableThrottles], width: 8 }),
          new cw.GraphWidget({
            title: "NAT port allocation errors",
            left: props.natGatewayIds.map(
              (natGatewayId, i) => new cw.Metric({ namespace: "AWS/NATGateway", metricName: "ErrorPortAllocation", dimensionsMap: { NatGatewayId: natGatewayId }, statistic: "Sum", period: PERIOD, label: `nat ${i}` }),
            ),
            width: 8,
          }),
        ],
        [
          ...(props.wafWebAclName === undefined
            ? []
            : [
                new cw.GraphWidget({
                  title: "WAF blocked requests by rule",
                  left: [
                    new cw.MathExpression({
                      expression: `SEARCH('Namespace="AWS/WAFV2" MetricName="BlockedRequests" WebACL="${props.wafWebAclName}"', 'Sum', ${PERIOD.toSeconds()})`,
                      label: "",
                      period: PERIOD,
                      usingMetrics: {},
                    }),
                  ],
                  width: 12,
                }),
              ]),
          new cw.AlarmStatusWidget({ title: "Alarms", alarms: this.alarms, width: props.wafWebAclName === undefined ? 24 : 12 }),
        ],
      ],
    });
  }
}
