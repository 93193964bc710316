/** The firewall: requests the API's web ACL blocked (decision 194), when the stage has one. */
import { Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { type AlarmKit, PERIOD, THRESHOLDS } from './alarms.js';

/** One of the web ACL's own metrics (AllowedRequests, BlockedRequests), over all its rules. */
export type WafMetric = (name: string) => cloudwatch.Metric;

/** A ticket on many blocked requests; the web ACL's metrics for the dashboard, or undefined without a web ACL. */
export function wafAlarms(kit: AlarmKit, webAclName: string | undefined): WafMetric | undefined {
  if (!webAclName) return undefined;
  const waf: WafMetric = (name) =>
    new cloudwatch.Metric({
      namespace: 'AWS/WAFV2',
      metricName: name,
      dimensionsMap: { WebACL: webAclName, Region: Stack.of(kit.scope).region, Rule: 'ALL' },
      statistic: 'Sum',
      period: PERIOD,
      label: name,
    });
  kit.child(
    'WafBlockedRequests',
    'ticket',
    waf('BlockedRequests'),
    `The API's web ACL blocked ${THRESHOLDS.wafBlockedPer5Minutes} or more requests in 2 of 3 five-minute periods`,
    { threshold: THRESHOLDS.wafBlockedPer5Minutes, evaluationPeriods: 3, datapointsToAlarm: 2 },
  );
  return waf;
}
