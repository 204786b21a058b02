/**
 * The CloudWatch dashboard and alarms of one environment.
 *
 * Powertools Metrics writes EMF with a `service` dimension added to every metric (the
 * POWERTOOLS_SERVICE_NAME of the function), so `Requests` is emitted with {service, route,
 * status}, not {route, status}. The dashboard therefore uses SEARCH expressions keyed on the
 * namespace and metric name, which match whatever dimension set the handlers emit. Alarms cannot
 * use SEARCH, so they watch AWS's own metrics, whose dimensions are exact: API Gateway 5XXError,
 * Lambda Errors and Throttles, DynamoDB read/write throttle events.
 */
import { Duration } from "aws-cdk-lib";
import type * as apigw from "aws-cdk-lib/aws-apigateway";
import * as cw from "aws-cdk-lib/aws-cloudwatch";
import * as cwActions from "aws-cdk-lib/aws-cloudwatch-actions";
import type * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import type * as lambda from "aws-cdk-lib/aws-lambda";
import * as sns from "aws-cdk-lib/aws-sns";
import { Construct } from "constructs";
import { METRIC, METRICS_NAMESPACE } from "../../shared/observability/metric-names";

const PERIOD = Duration.minutes(5);

export interface ObservabilityProps {
  envName: string;
  restApi: apigw.RestApi;
  functions: Record<string, lambda.IFunction>;
  table: dynamodb.ITable;
  serverErrorRatePercent: number;
  /** Notified when an alarm fires and when it recovers. */
  alarmTopicArn?: string;
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

export class Observability extends Construct {
  readonly dashboard: cw.Dashboard;
  readonly alarms: cw.Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const api = props.restApi;

    // 5XXError's Average is the fraction of requests that ended in a 5xx.
    const serverErrorRate = new cw.MathExpression({
      expression: "errors * 100",
      usingMetrics: { errors: api.metricServerError({ statistic: "Average", period: PERIOD }) },
      label: "5xx rate (%)",
      period: PERIOD,
    });
    this.alarms.push(
      serverErrorRate.createAlarm(this, "Api5xxRate", {
        alarmName: `webgate-${props.envName}-api-5xx-rate`,
        alarmDescription: `More than ${props.serverErrorRatePercent}% of API requests ended in a 5xx in two 5-minute periods running.`,
        threshold: props.serverErrorRatePercent,
        evaluationPeriods: 2,
        comparisonOperator: cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cw.TreatMissingData.NOT_BREACHING,
      }),
    );

    for (const [name, fn] of Object.entries(props.functions)) {
      // Handlers answer caller errors themselves; Lambda Errors counts crashes and timeouts.
      this.alarms.push(
        fn.metricErrors({ period: PERIOD, statistic: "Sum" }).createAlarm(this, `${name}Errors`, {
          alarmName: `webgate-${props.envName}-${name}-errors`,
          alarmDescription: `The ${name} function failed (crash or timeout) at least once in 5 minutes.`,
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cw.TreatMissingData.NOT_BREACHING,
        }),
        fn.metricThrottles({ period: PERIOD, statistic: "Sum" }).createAlarm(this, `${name}Throttles`, {
          alarmName: `webgate-${props.envName}-${name}-throttles`,
          alarmDescription: `The ${name} function hit its reserved concurrency in 5 minutes.`,
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cw.TreatMissingData.NOT_BREACHING,
        }),
      );
    }

    const tableThrottles = new cw.MathExpression({
      expression: "reads + writes",
      usingMetrics: {
        reads: props.table.metric("ReadThrottleEvents", { statistic: "Sum", period: PERIOD }),
        writes: props.table.metric("WriteThrottleEvents", { statistic: "Sum", period: PERIOD }),
      },
      label: "DynamoDB throttle events",
      period: PERIOD,
    });
    this.alarms.push(
      tableThrottles.createAlarm(this, "TableThrottles", {
        alarmName: `webgate-${props.envName}-table-throttles`,
        alarmDescription: "The page table throttled reads or writes in 5 minutes (the fetch route then answers with cache: bypass).",
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cw.TreatMissingData.NOT_BREACHING,
      }),
    );

    if (props.alarmTopicArn !== undefined) {
      const action = new cwActions.SnsAction(sns.Topic.fromTopicArn(this, "AlarmTopic", props.alarmTopicArn));
      for (const alarm of this.alarms) {
        alarm.addAlarmAction(action);
        alarm.addOkAction(action);
      }
    }

    const fns = Object.entries(props.functions);
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
          new cw.GraphWidget({ title: "Refusals by code", left: [searchMetric(METRIC.refusals, "Sum", "")], width: 8 }),
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
          new cw.GraphWidget({ title: "DynamoDB throttles", left: [tableThrottles], width: 12 }),
          new cw.AlarmStatusWidget({ title: "Alarms", alarms: this.alarms, width: 12 }),
        ],
      ],
    });
  }
}
