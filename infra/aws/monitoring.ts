/**
 * The alarms operators act on and one dashboard for the whole service (decisions 190-195).
 *
 * Child alarms watch one signal each and notify nobody; two composite alarms read them and
 * are the only ones that notify the SNS topic: `ServiceUnhealthy` (page: clients are being
 * answered 5xx) and `ServiceDegraded` (ticket: everything else worth a look within a working
 * day). docs/deploy.md has the runbook: what each alarm means and what to do.
 */
import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { ServiceFunction } from './functions.js';
import { alarmKit, type ChildAlarm, type Severity } from './monitoring/alarms.js';
import { apiAlarms } from './monitoring/api-alarms.js';
import { dashboardWidgets } from './monitoring/dashboard-widgets.js';
import { lambdaAlarms } from './monitoring/lambda-alarms.js';
import { type PlatformAlarmTargets, platformAlarms } from './monitoring/platform-alarms.js';
import { tableAlarms } from './monitoring/table-alarms.js';
import { wafAlarms } from './monitoring/waf-alarms.js';
import { type WebhookResources, webhookAlarms } from './monitoring/webhook-alarms.js';
import { workflowAlarms } from './monitoring/workflow-alarms.js';
import type { Settings } from './settings.js';

export { ALARM_METRICS_MAX, type ChildAlarm, type Severity, THRESHOLDS } from './monitoring/alarms.js';
export { LATENCY_P99_MS_BY_GROUP } from './monitoring/api-alarms.js';

export interface MonitoringProps {
  readonly settings: Settings;
  /** Alarm names start with it (the parent stack's name), so the composite's rule and the console read them. */
  readonly namePrefix: string;
  readonly api: apigw.RestApi;
  readonly functions: readonly ServiceFunction[];
  readonly stateMachine: sfn.StateMachine;
  readonly table: dynamodb.Table;
  readonly webhooks: WebhookResources;
  /** The API's web ACL name, when the stage has one (the dashboard's CloudFront distribution has none). */
  readonly webAclName?: string;
  /** The ECS platform's shared resources, when the stage runs `platform=ecs`. */
  readonly platform?: PlatformAlarmTargets;
}

/**
 * The alarm topic, each signal family's child alarms (monitoring/*-alarms.ts), the two
 * composites and the dashboard. Every alarm is a child of this construct whichever family
 * makes it, and the families run in the order the alarms are listed on the dashboard, so
 * splitting them out moved no logical id (decision 223).
 */
export class Monitoring extends Construct {
  readonly topic: sns.Topic;
  readonly children: ChildAlarm[] = [];
  /** Page: clients are being answered with errors. */
  readonly unhealthy: cloudwatch.CompositeAlarm;
  /** Ticket: something needs a look within a working day. */
  readonly degraded: cloudwatch.CompositeAlarm;
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { settings, namePrefix, api, functions, stateMachine, table, webhooks } = props;
    const stage = settings.stage;

    this.topic = new sns.Topic(this, 'AlarmTopic', { displayName: `Deployment API alarms (${stage})`, enforceSSL: true });
    if (settings.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(settings.alarmEmail));

    const kit = alarmKit(this, stage, namePrefix, this.children);
    const apiSignals = apiAlarms(kit, api);
    const lambdaSignals = lambdaAlarms(kit, functions);
    const workflowSignals = workflowAlarms(kit, stateMachine);
    const webhookSignals = webhookAlarms(kit, webhooks);
    const tableSignals = tableAlarms(kit, table);
    const waf = wafAlarms(kit, props.webAclName);
    // Last, so that without the platform no alarm's logical id or place on the dashboard moves.
    if (props.platform) platformAlarms(kit, props.platform);

    // ---- The two composites, the only alarms with actions.
    const action = new cwActions.SnsAction(this.topic);
    const composite = (compositeId: string, severity: Severity, description: string) => {
      const watched = this.children.filter((c) => c.severity === severity).map((c) => c.alarm);
      const alarm = new cloudwatch.CompositeAlarm(this, compositeId, {
        compositeAlarmName: `${namePrefix}-${compositeId}`,
        alarmDescription: `${description} (${stage}; runbook in docs/deploy.md)`,
        alarmRule: cloudwatch.AlarmRule.anyOf(...watched.map((a) => cloudwatch.AlarmRule.fromAlarm(a, cloudwatch.AlarmState.ALARM))),
      });
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      return alarm;
    };
    this.unhealthy = composite('ServiceUnhealthy', 'page', 'Page: clients are being answered 5xx; one of its child alarms is in ALARM');
    this.degraded = composite(
      'ServiceDegraded',
      'ticket',
      'Ticket: a part of the service is failing, slow or behind; one of its child alarms is in ALARM',
    );

    // ---- One dashboard (decision 195).
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: dashboardWidgets(kit, {
        api: { restApi: api, signals: apiSignals },
        lambda: { functions, signals: lambdaSignals },
        workflow: { stateMachine, signals: workflowSignals },
        webhooks: webhookSignals,
        table: { table, signals: tableSignals },
        waf,
        alarms: [this.unhealthy, this.degraded, ...this.children.map((c) => c.alarm)],
      }),
    });
  }
}
