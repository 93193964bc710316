/**
 * The whole service on AWS, the same code for every stage (settings.ts holds what
 * differs): the table, one function per handler module, the operation workflow, the
 * reconciler's schedule, webhook delivery (key, queues, event sources), the REST API,
 * and the alarms.
 */
import fs from 'node:fs';
import { CfnOutput, Duration, NestedStack, Stack, type StackProps, Tags, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { dashboardHandlerNames } from '../../contract/dashboard-routes.js';
import { handlerNames } from '../../contract/routes.js';
import { NOT_FOUND_HANDLER, ServiceApi } from './api.js';
import { DashboardSite, DashboardUsers } from './dashboard.js';
import {
  EVENTS_FUNCTIONS,
  type FunctionName,
  HEALTH_CHECK_FUNCTION,
  HIBERNATION_SCHEDULE_FUNCTION,
  type HttpHandlerName,
  SCHEDULED_FUNCTION,
} from './function-access.js';
import { FunctionFactory } from './functions.js';
import { Monitoring } from './monitoring.js';
import { platformNames } from './platform/names.js';
import type { PlatformSettings } from './platform/settings.js';
import type { Settings } from './settings.js';
import { aslSteps, OPERATION_ASL, OperationStateMachine } from './state-machine.js';
import { DataTable } from './table.js';
import { WebhookDelivery } from './webhooks.js';

/** How often the reconciler looks for operations whose workflow died. */
export const RECONCILE_EVERY = Duration.minutes(5);
/** Decision 48: HEALTH_CHECK_SECONDS's default, and EventBridge's shortest rate. */
export const HEALTH_CHECK_EVERY = Duration.minutes(1);
/** Decision 260: the hibernation scheduler looks at each minute once. */
export const HIBERNATION_SCHEDULE_EVERY = Duration.minutes(1);

export interface DeploymentApiStackProps extends StackProps {
  readonly settings: Settings;
  /**
   * The ECS platform (`-c platform=ecs`): the driver's functions get PLATFORM=ecs, PLATFORM_SETTINGS
   * (read from the platform stack's SSM parameter at deploy time) and its grants; the platform's alarms
   * join the monitoring. Absent, the template is the simulated platform's.
   */
  readonly platform?: PlatformSettings;
}

export class DeploymentApiStack extends Stack {
  readonly settings: Settings;
  readonly data: DataTable;
  readonly webhooks: WebhookDelivery;
  readonly functions: FunctionFactory;
  readonly workflow: OperationStateMachine;
  readonly api: ServiceApi;
  readonly monitoring: Monitoring;
  readonly dashboardUsers: DashboardUsers;
  readonly dashboard: DashboardSite;

  constructor(scope: Construct, id: string, props: DeploymentApiStackProps) {
    super(scope, id, props);
    const { settings } = props;
    this.settings = settings;
    // CloudFormation takes no Tags on a CloudWatch dashboard in every region (us-east-1 rejects them).
    const untaggable = { excludeResourceTypes: ['AWS::CloudWatch::Dashboard'] };
    Tags.of(this).add('service', 'deployment-management-api', untaggable);
    Tags.of(this).add('stage', settings.stage, untaggable);

    this.data = new DataTable(this, 'Data', settings);

    const asl = fs.readFileSync(OPERATION_ASL, 'utf8');
    this.webhooks = new WebhookDelivery(this, 'Webhooks', settings);
    this.dashboardUsers = new DashboardUsers(this, 'DashboardUsers', settings);
    // New API keys are signed with it (functions/core/api-keys.ts): generated here, read once per
    // process by the functions that verify or mint keys, never in an environment variable.
    const apiKeySecret = new secretsmanager.Secret(this, 'ApiKeySigningSecret', {
      description: 'Signs new API keys (HMAC); read by the functions that verify or mint keys.',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      // Replacing it would make every key signed with it invalid: kept as the table that holds the keys is.
      removalPolicy: settings.removalPolicy,
    });
    Validations.of(apiKeySecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "The secret signs API keys (docs/decisions.md, decision 121): rotating it would make every key signed with it invalid, so it changes only by an operator's deliberate action, never on a schedule.",
    });
    new CfnOutput(this, 'ApiKeySecretArn', {
      value: apiKeySecret.secretArn,
      description: 'API_KEY_SECRET_ARN for `npm run keys -- --aws`.',
    });
    const platform = props.platform && platformWiring(this, props.platform);
    this.functions = new FunctionFactory(this, 'Functions', {
      settings,
      platform: platform?.functions,
      apiKeySecret,
      table: this.data.table,
      deliveryQueue: this.webhooks.queue,
      webhookKey: this.webhooks.key,
      userPool: {
        issuer: this.dashboardUsers.issuer,
        clientId: this.dashboardUsers.client.userPoolClientId,
        arn: this.dashboardUsers.pool.userPoolArn,
      },
    });

    // The workflow's steps are the functions its placeholders name.
    const stepFunctions = new Map<FunctionName, lambda.IFunction>();
    for (const step of aslSteps(asl)) stepFunctions.set(step.name, this.functions.create('workflow', step.name).fn);
    this.workflow = new OperationStateMachine(this, 'Workflow', { settings, aslFile: OPERATION_ASL, stepFunctions });
    const stateMachine = this.workflow.stateMachine;

    const reconciler = this.functions.create('workflow', SCHEDULED_FUNCTION, stateMachine);
    new events.Rule(this, 'ReconcileSchedule', {
      description: `Settles operations whose workflow stopped without recording it (${settings.stage})`,
      schedule: events.Schedule.rate(RECONCILE_EVERY),
      targets: [new targets.LambdaFunction(reconciler.fn, { retryAttempts: 2, maxEventAge: RECONCILE_EVERY })],
    });

    // Decisions 48, 246: a round of health checks every minute; a round that is late is dropped, not queued.
    const checker = this.functions.create('workflow', HEALTH_CHECK_FUNCTION);
    new events.Rule(this, 'HealthCheckSchedule', {
      description: `Checks the health of every ready deployment (${settings.stage})`,
      schedule: events.Schedule.rate(HEALTH_CHECK_EVERY),
      targets: [new targets.LambdaFunction(checker.fn, { retryAttempts: 0, maxEventAge: HEALTH_CHECK_EVERY })],
    });

    // Decisions 50, 260: the hibernation scheduler's round every minute (one rule, not one schedule per
    // deployment); a round that is late is dropped, not queued: its minute is not replayed.
    const scheduler = this.functions.create('workflow', HIBERNATION_SCHEDULE_FUNCTION, stateMachine);
    new events.Rule(this, 'HibernationSchedule', {
      description: `Hibernates and wakes deployments on their schedules (${settings.stage})`,
      schedule: events.Schedule.rate(HIBERNATION_SCHEDULE_EVERY),
      targets: [new targets.LambdaFunction(scheduler.fn, { retryAttempts: 0, maxEventAge: HIBERNATION_SCHEDULE_EVERY })],
    });

    for (const name of [...handlerNames, ...dashboardHandlerNames, NOT_FOUND_HANDLER])
      this.functions.create('http', name as HttpHandlerName, stateMachine);
    // Decision 38: the table's stream → dispatch-events → the delivery queue → deliver-webhooks.
    for (const name of EVENTS_FUNCTIONS) this.functions.create('events', name);
    this.webhooks.connect(this.data.table, this.functions.get('dispatch-events').fn, this.functions.get('deliver-webhooks').fn);

    this.api = new ServiceApi(this, 'Http', {
      settings,
      handler: (name) => this.functions.get(name).fn,
    });

    this.dashboard = new DashboardSite(this, 'Dashboard', {
      settings,
      users: this.dashboardUsers,
      api: this.api.api,
      apiDomainName: settings.customDomain?.domainName,
    });

    // The alarms and the dashboard in a nested stack of their own, so that they never compete with
    // the service's own resources for CloudFormation's 500 a stack (decision 151).
    this.monitoring = new Monitoring(
      new NestedStack(this, 'Operations', { description: `Alarms and dashboard (${settings.stage})` }),
      'Monitoring',
      {
        settings,
        namePrefix: this.stackName,
        api: this.api.api,
        functions: this.functions.all,
        stateMachine,
        table: this.data.table,
        webhooks: {
          queue: this.webhooks.queue,
          deadLetterQueue: this.webhooks.deadLetterQueue,
          dispatcher: this.functions.get('dispatch-events').fn,
        },
        webAclName: this.api.webAcl?.name,
        platform: platform?.alarms,
      },
    );

    new CfnOutput(this, 'ApiUrl', { value: this.api.baseUrl, description: 'Service base URL (ends in /api/v1)' });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName, description: 'DynamoDB table (TABLE_NAME for npm run keys)' });
    new CfnOutput(this, 'StateMachineArn', { value: stateMachine.stateMachineArn, description: 'Operation workflow' });
    new CfnOutput(this, 'DeliveryDeadLetterQueueUrl', {
      value: this.webhooks.deadLetterQueue.queueUrl,
      description: 'Webhook deliveries and stream batches that could not be handled',
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.monitoring.topic.topicArn,
      description: 'SNS topic the two composite alarms notify (ServiceUnhealthy: page, ServiceDegraded: ticket)',
    });
    new CfnOutput(this, 'DashboardName', { value: this.monitoring.dashboard.dashboardName, description: 'CloudWatch dashboard' });
    if (this.api.domain) {
      new CfnOutput(this, 'CustomDomainTarget', {
        value: this.api.domain.domainNameAliasDomainName,
        description: `Point ${settings.customDomain?.domainName} here: a CNAME, or a Route 53 alias with CustomDomainHostedZoneId`,
      });
      new CfnOutput(this, 'CustomDomainHostedZoneId', {
        value: this.api.domain.domainNameAliasHostedZoneId,
        description: 'Hosted zone id for a Route 53 alias record',
      });
    }
  }
}

/**
 * What the API stack takes from the platform stack, at deploy time through its SSM parameters
 * (no export locks either stack) and otherwise by the platform's deterministic names.
 */
function platformWiring(scope: Construct, p: PlatformSettings) {
  const names = platformNames(p.stage);
  const read = (name: string) => ssm.StringParameter.valueForStringParameter(scope, name);
  return {
    functions: {
      settingsJson: read(names.settingsParameter),
      targets: { names, albShards: p.albShards, hostedZoneId: p.hostedZoneId, domain: p.domain },
    },
    alarms: { names, loadBalancerFullNames: Array.from({ length: p.albShards }, (_, i) => read(names.loadBalancerParameter(i + 1))) },
  };
}
