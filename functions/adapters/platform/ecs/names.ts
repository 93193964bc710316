/**
 * Every name the driver gives a resource, derived from ids alone, so that a retried start
 * finds what an earlier try made and a destroy finds everything without a record.
 */
import { createHash } from 'node:crypto';
import type { AppType } from '../../../../contract/vocabulary.js';

/** The deployment id's 32 hex digits (ids are `dep_<uuid>` or a bare uuid). */
export const hexOf = (deploymentId: string): string => deploymentId.replace(/^dep_/, '').replaceAll('-', '').toLowerCase();

/** The task definition family of the application's service; `-job` for its one-off tasks. */
export const serviceFamily = (app: AppType, deploymentId: string): string => `${app}-${hexOf(deploymentId)}`;
export const jobFamily = (app: AppType, deploymentId: string): string => `${serviceFamily(app, deploymentId)}-job`;
export const serviceName = serviceFamily;

/** ELBv2 names hold at most 32 characters: `d` and the 32 hex digits would be 33, so 31 of them. */
export const targetGroupName = (deploymentId: string): string => `d${hexOf(deploymentId).slice(0, 31)}`;

/** The one Secrets Manager secret holding the deployment's secret env entries as JSON keys. */
export const envSecretName = (deploymentId: string): string => `deployments/${hexOf(deploymentId)}/env`;
/** The database credentials of the deployment's own role (`{username, password}`), for the Data API and the app. */
export const dbSecretName = (deploymentId: string): string => `deployments/${hexOf(deploymentId)}/db`;
/** The role and the database on the shared cluster. */
export const dbName = (deploymentId: string): string => `d_${hexOf(deploymentId)}`;

/** The log group of the deployment's containers and one-off tasks. */
export const logGroupName = (prefix: string, deploymentId: string): string => `${prefix.replace(/\/$/, '')}/${hexOf(deploymentId)}`;
/** The awslogs stream prefix of one-off tasks: their stream is `<prefix>/<container>/<task id>`. */
export const JOB_STREAM_PREFIX = 'job';
export const JOB_CONTAINER = 'job';

/**
 * A client token from the operation, the phase and the step: the same on every try, and
 * short enough for every API (ECS CreateService takes at most 36 characters).
 */
export const clientToken = (operationId: string, phase: string, step: string): string =>
  createHash('sha256').update(`${operationId}:${phase}:${step}`).digest('hex').slice(0, 32);

/** A UUID-shaped token (Secrets Manager's ClientRequestToken takes 32-64 characters). */
export const requestToken = (operationId: string, phase: string, step: string): string => {
  const h = createHash('sha256').update(`${operationId}:${phase}:${step}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

/** The tags of every resource made for a deployment (decision 52). */
export const deploymentTags = (deploymentId: string, orgId: string): { key: string; value: string }[] => [
  { key: 'deployment', value: deploymentId },
  { key: 'org', value: orgId },
  { key: 'managed-by', value: 'deployment-api' },
];
/** The secret a user-provisioning task reads the new user's password from (`{password}`). */
export const userSecretName = (deploymentId: string): string => `deployments/${hexOf(deploymentId)}/user`;
