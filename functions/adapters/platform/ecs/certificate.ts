/**
 * A deployment's TLS certificate and DNS records (decision 274): its url has two labels
 * under the domain, which one wildcard certificate cannot cover, so each deployment gets
 * an ACM certificate `*.<id>.<domain>`, validated by DNS in the platform's hosted zone and
 * added to its shard's listener, and an alias record for its host to that load balancer.
 */
import {
  DeleteCertificateCommand,
  DescribeCertificateCommand,
  ListCertificatesCommand,
  RequestCertificateCommand,
} from '@aws-sdk/client-acm';
import { AddListenerCertificatesCommand, RemoveListenerCertificatesCommand } from '@aws-sdk/client-elastic-load-balancing-v2';
import {
  ChangeResourceRecordSetsCommand,
  ListResourceRecordSetsCommand,
  type ResourceRecordSet,
  type RRType,
} from '@aws-sdk/client-route-53';
import type { JobStatus } from '../../../core/platform.js';
import { certificateStatus } from '../../../core/platform-ecs.js';
import { aws, type EcsContext, type EcsJob, errorName, unlessAbsent } from './context.js';
import { clientToken, deploymentTags } from './names.js';

/**
 * The certificate of a domain, page by page: the account holds one per deployment, more than
 * a page of ListCertificates once the platform grows (ACM pages the list).
 */
async function findCertificate(ctx: EcsContext, domain: string): Promise<string | undefined> {
  let token: string | undefined;
  do {
    const page = await aws('listed the certificates', () =>
      ctx.aws.acm.send(new ListCertificatesCommand({ MaxItems: 1000, ...(token ? { NextToken: token } : {}) })),
    );
    const arn = page.CertificateSummaryList?.find((c) => c.DomainName === domain)?.CertificateArn;
    if (arn) return arn;
    token = page.NextToken;
  } while (token);
  return undefined;
}

/** `*.<id>.<domain>`: the url's host with its first label as the wildcard. */
export const certificateDomain = (host: string): string => `*.${host.split('.').slice(1).join('.')}`;

export async function requestCertificate(ctx: EcsContext, job: EcsJob, host: string): Promise<string> {
  const out = await aws('requested the certificate', () =>
    ctx.aws.acm.send(
      new RequestCertificateCommand({
        DomainName: certificateDomain(host),
        ValidationMethod: 'DNS',
        IdempotencyToken: clientToken(job.op, job.phase, 'cert'),
        Tags: deploymentTags(job.dep, job.org).map((t) => ({ Key: t.key, Value: t.value })),
      }),
    ),
  );
  return out.CertificateArn!;
}

const upsert = (ctx: EcsContext, record: ResourceRecordSet, action: 'UPSERT' | 'DELETE' = 'UPSERT') =>
  ctx.aws.route53.send(
    new ChangeResourceRecordSetsCommand({
      HostedZoneId: ctx.settings.hostedZoneId,
      ChangeBatch: { Changes: [{ Action: action, ResourceRecordSet: record }] },
    }),
  );

/** The host's alias record to its shard's load balancer. */
export const aliasRecord = (host: string, lb: { DNSName?: string; CanonicalHostedZoneId?: string }): ResourceRecordSet => ({
  Name: host,
  Type: 'A',
  AliasTarget: { DNSName: lb.DNSName!, HostedZoneId: lb.CanonicalHostedZoneId!, EvaluateTargetHealth: false },
});

export async function pointHost(ctx: EcsContext, record: ResourceRecordSet): Promise<void> {
  await aws('wrote the DNS record', () => upsert(ctx, record));
}

/**
 * Moves the certificate on (at most 2 calls): issued → added to the listener (succeeded);
 * pending → its validation record written (running); failed, timed out, revoked, or
 * pending for over an hour → permanent, with what to do (decision 322).
 */
export async function attachCertificate(ctx: EcsContext, arn: string, listenerArn: string, host: string): Promise<JobStatus> {
  const { Certificate: c } = await aws('looked at the certificate', () =>
    ctx.aws.acm.send(new DescribeCertificateCommand({ CertificateArn: arn })),
  );
  const status = certificateStatus({
    domain: c?.DomainName ?? certificateDomain(host),
    status: c?.Status ?? 'MISSING',
    ...(c?.FailureReason ? { failureReason: c.FailureReason } : {}),
    ...(c?.CreatedAt ? { ageSeconds: (ctx.now() - c.CreatedAt.getTime()) / 1000 } : {}),
  });
  if (status === 'issued') {
    await aws('added the certificate', () =>
      ctx.aws.elb.send(new AddListenerCertificatesCommand({ ListenerArn: listenerArn, Certificates: [{ CertificateArn: arn }] })),
    );
    return { state: 'succeeded' };
  }
  if (status.state !== 'running') return status;
  const rr = c?.DomainValidationOptions?.[0]?.ResourceRecord;
  if (rr?.Name && rr.Value)
    await aws('wrote the validation record', () =>
      upsert(ctx, { Name: rr.Name, Type: rr.Type ?? 'CNAME', TTL: 300, ResourceRecords: [{ Value: rr.Value }] }),
    );
  return status;
}

/** Deletes a record as Route 53 holds it (a DELETE must repeat every value); absent is done. */
async function deleteRecord(ctx: EcsContext, name: string, type: RRType): Promise<void> {
  const out = await aws('read the DNS record', () =>
    ctx.aws.route53.send(
      new ListResourceRecordSetsCommand({
        HostedZoneId: ctx.settings.hostedZoneId,
        StartRecordName: name,
        StartRecordType: type,
        MaxItems: 1,
      }),
    ),
  );
  const record = out.ResourceRecordSets?.find((r) => r.Name?.replace(/\.$/, '') === name.replace(/\.$/, '') && r.Type === type);
  if (record) await unlessAbsent('deleted the DNS record', ['InvalidChangeBatch'], () => upsert(ctx, record, 'DELETE'));
}

/**
 * Removes the host's record and the certificate; false while ACM still holds it in use (ask
 * again later). With `validationRecord` (a destroy's) the certificate's DNS validation
 * record goes too: a certificate that failed or never left validation leaves one as surely
 * as an issued one (decision 322).
 */
export async function removeCertificate(
  ctx: EcsContext,
  host: string,
  listenerArns: readonly string[],
  options: { validationRecord?: boolean } = {},
): Promise<boolean> {
  await deleteRecord(ctx, host, 'A');
  const arn = await findCertificate(ctx, certificateDomain(host));
  if (!arn) return true;
  if (options.validationRecord) {
    const described = await unlessAbsent('looked at the certificate', ['ResourceNotFoundException'], () =>
      ctx.aws.acm.send(new DescribeCertificateCommand({ CertificateArn: arn })),
    );
    for (const o of described?.Certificate?.DomainValidationOptions ?? [])
      if (o.ResourceRecord?.Name) await deleteRecord(ctx, o.ResourceRecord.Name, (o.ResourceRecord.Type ?? 'CNAME') as RRType);
  }
  for (const listenerArn of listenerArns)
    await unlessAbsent('removed the certificate', ['ListenerNotFoundException', 'CertificateNotFoundException'], () =>
      ctx.aws.elb.send(new RemoveListenerCertificatesCommand({ ListenerArn: listenerArn, Certificates: [{ CertificateArn: arn }] })),
    );
  try {
    await unlessAbsent('deleted the certificate', ['ResourceNotFoundException'], () =>
      ctx.aws.acm.send(new DeleteCertificateCommand({ CertificateArn: arn })),
    );
    return true;
  } catch (e) {
    // Detached certificates stay in use for a few minutes on AWS.
    if (errorName(e) === 'TransientPlatformError') return false;
    throw e;
  }
}
