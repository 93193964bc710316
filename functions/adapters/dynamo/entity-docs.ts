/**
 * What each item type of the table holds, for docs/data-model.md: a sentence and its
 * attributes besides its keys. Apart from the declarations (entities.ts), which the
 * functions bundle, because only the document reads it; the type makes an item type
 * without its description a compile error.
 */
import type { ENTITIES } from '../../../contract/table/entities.js';

export type EntityName = (typeof ENTITIES)[number]['name'];

export interface EntityDoc {
  /** What the item is. */
  readonly description: string;
  /** Its attributes besides keys, each with what it holds. */
  readonly attributes: Readonly<Record<string, string>>;
}

export const ENTITY_DOCS: { readonly [N in EntityName]: EntityDoc } = {
  organization: {
    description: 'an organization: its counters, each written under its lock `ver`',
    attributes: {
      ver: 'the optimistic lock every numbering write takes',
      last_at: 'the instant of the last record written: the next one is later',
      dep_seq: 'deployments, 1..n',
      op_seq: 'operations, 1..n',
      'seq_<type>': 'operations of one type, 1..n',
      evt_seq: 'events, 1..n (decision 37)',
      'evt_seq_<type>': 'events of one type, 1..n',
      create_hour: 'the clock hour of create_count',
      create_count: 'creations this hour (decision 32)',
      wh_count: 'webhooks, fewer than 10 (decision 38)',
      key_count: 'keys held (not revoked, not rotated away), at most `KEYS_PER_ORGANIZATION` (decision 130); absent is 0',
      org_id: 'the organization',
      created_at: 'its first key',
    },
  },
  deployment: {
    description: 'a deployment',
    attributes: {
      'id, org_id, name, app_type, status, environment_id, created_at, updated_at, last_operation_id': 'the record',
      'config, revision, applied_at':
        'its configuration (secrets sealed, with their digests) and revision (decision 41); absent on items stored before: revision 1, the default',
      in_flight: 'a string set of `<type> <id>` of its operations queued or running (decision 42)',
      seq: 'its position among the organization’s deployments',
      op_count: 'its operations, 1..n',
      'op_count_<type>': 'its operations of one type, 1..n',
      'health, ready_at, destroyed_at': 'its rolled-up health (decision 48) and when it became ready and was destroyed (decision 49)',
      hibernation: 'awake or hibernated, and a manual hold’s end (decision 50); absent on items stored before: awake',
      hibernated_spans: 'when it was hibernated, the latest 64: its metrics’ gaps (decision 50)',
      hibernation_due:
        'the next minute the scheduler visits it (decision 260); absent, and out of hibernationDue, without a schedule or a hold',
    },
  },
  operation: {
    description:
      'an operation: its four status indexes’ partitions move with its status; activeOperations holds it only while queued or running',
    attributes: {
      'id, org_id, type, status, phase, message, resource_id, requested_at, started_at, ended_at, error, result, params, job': 'the record',
      sealed_input: 'app_user.provision: the password, sealed for the phase steps, removed when the operation ends (decision 256)',
      update: 'deployment.update: the configuration to apply (secrets sealed), its changes, the revision a rollback restores',
      'seq, type_seq, res_seq, res_type_seq': 'its positions in its four dense lists',
      'log_count, log_at': 'its log (decision 45): the lines written, 1..n, and the time of the last; absent before the first',
    },
  },
  statusCounts: {
    description:
      'the status counts of one bucket of a dense list (status-counts.ts): `<list>` is the list’s partition (e.g. `ORG#<org_id>#OPS`), `<bucket>` = (position − 1) ÷ 50',
    attributes: { 'n_<status>': 'how many members at the bucket’s positions are in that status' },
  },
  nameReservation: {
    description: 'a deployment name held (decision 6): deleted when its deployment is destroyed',
    attributes: { deployment_id: 'who holds it', name: 'the name, exact and case-sensitive' },
  },
  waitSlot: {
    description: 'one of the organization’s slots for a concurrent operation wait: a lease that lapses by itself',
    attributes: { holder: 'the wait that holds it', lease_until: 'when it lapses (epoch seconds)', ttl: 'the same' },
  },
  idempotencyRecord: {
    description: 'an Idempotency-Key’s claim and answer',
    attributes: { 'state, fingerprint, claim_id, lease_until, response': 'the claim', ttl: '24 h' },
  },
  event: {
    description: 'an event (decision 37); `<type_sequence>`, its number among its type, is not stored',
    attributes: {
      'id, type, sequence, created_at, data, resource_id': 'the event',
      actor: 'who made the change (decision 46); absent on events written before it, read as the system (decision 140)',
    },
  },
  webhook: {
    description: 'a webhook (decision 38); the organization item counts them',
    attributes: {
      'id, org_id, url, events, description, created_at': 'the record',
      secret_sealed: 'its secret, sealed',
      delivery_count: 'its attempts',
    },
  },
  deliveryAttempt: {
    description: 'one attempt to deliver an event to a webhook',
    attributes: { 'event_id, attempt, attempted_at, status_code, succeeded': 'the attempt', ttl: '30 days' },
  },
  queuedDelivery: {
    description: 'a delivery waiting in the local queue (on AWS, SQS)',
    attributes: { body: 'the message', claimed_until: 'while a deliverer holds it' },
  },
  revision: {
    description: 'a deployment’s revision n (decision 43): its revisions are one key range, so a page reads what it returns',
    attributes: { 'deployment_id, revision, config, created_at, operation_id, rollback_of': 'the revision (secrets sealed)' },
  },
  deploymentHealth: {
    description:
      'a deployment’s health as last checked (decision 48), beside its deployment so one Query of `DEP#<id>` reads both; healthChecks holds it while the deployment is ready (decision 245)',
    attributes: {
      'org_id, deployment_id, status, since, checked_at, components': 'the health: components with their status, since and message',
      watched: 'true while the checker is to check it (the index holds it)',
    },
  },
  operationLogLine: {
    description:
      'line n of an operation’s log (decision 45), written in the transaction that counts it on the operation; an operation’s lines are one key range, so a page reads what it returns',
    attributes: { 'operation_id, sequence, time, phase, level, message': 'the line' },
  },
  simulatedJob: {
    description: 'a job of the simulated platform (only the simulated driver writes these)',
    attributes: { 'phase, ends_at, outcome': 'the job', state: 'running or canceled', ttl: '7 days' },
  },
  apiKey: {
    description: 'an API key, by the SHA-256 of the key',
    attributes: {
      'id, org_id, name, scopes, hash, hint, created_at, expires_at, revoked_at, last_used_at': 'the record',
      'rate_hour, rate_n, rate_m00…rate_m59': 'the rate-limit windows: this hour, its minutes',
      counted: 'present while the key holds one of its organization’s `key_count` places (decision 130)',
    },
  },
  usageEntry: {
    description: 'one request in a key’s usage log',
    attributes: {
      'at, method, route, path, status, key_id, org_id, request_id, client_address':
        'the entry (route: the template matched; path: the path named)',
      duration_ms: 'from arrival to answer, on entries written or corrected after the answer (decision 145)',
      deprecated: 'true when the request used a deprecated feature (decision 44)',
      ttl: '90 days',
    },
  },
  authFailures: {
    description:
      'failed authentications of one client address in one 10-minute window (written only when a well-formed key matched nothing)',
    attributes: { n: 'the failures', ttl: 'the window’s end + 10 minutes' },
  },
  userRate: {
    description: 'one dashboard user’s requests in one clock hour, counted against the limits of an API key (decision 232)',
    attributes: { n: 'the requests of the hour', m00: 'the requests of each minute of it (m00 … m59)', ttl: 'the hour’s end + 1 hour' },
  },
};
