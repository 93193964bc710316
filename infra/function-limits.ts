/**
 * Each Lambda function's timeout and memory, declared once: the CDK stack gives them to
 * the functions (infra/aws/functions.ts), and the local host's Lambda context reports the
 * same timeout (local/gateway.ts), so middy's early timeout, which fires at the
 * context's remaining time, cuts a handler off at the same moment in both.
 */

/** Where a function's module lives: functions/http/<name>.ts, functions/workflow/<name>.ts or functions/events/<name>.ts. */
export type FunctionKind = 'http' | 'workflow' | 'events';

export interface FunctionLimits {
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
}

const BY_KIND: Readonly<Record<FunctionKind, FunctionLimits>> = {
  // API Gateway gives up after 29 s; a request that takes 10 s is already a fault.
  http: { timeoutSeconds: 10, memoryMb: 512 },
  workflow: { timeoutSeconds: 60, memoryMb: 512 },
  // A deliverer batch is 10 messages POSTed in parallel, each POST cut off at 10 s;
  // a dispatcher batch is 100 stream records, a Query and a few SendMessage each.
  events: { timeoutSeconds: 30, memoryMb: 512 },
};

/**
 * Functions that need more than their kind's. Both hosts read this file; the CDK stack
 * checks that each name is one of its functions (LimitOverrides in infra/aws/functions.ts).
 */
export const LIMIT_OVERRIDES = {
  // Decision 36: waits up to 20 s, then answers; API Gateway's integration limit is 29 s.
  'wait-operation': { timeoutSeconds: 25 },
  // The reconciler walks every unfinished operation, asking Step Functions about each: most of its 5 minutes.
  'reconcile-operations': { timeoutSeconds: 240 },
  // A round must end inside its minute (decision 246); about 2 ms of CPU a visit (bench/health-checker.ts)
  // is 20 s for 10,000 deployments on one vCPU, which 1,769 MB buys.
  'check-health': { timeoutSeconds: 55, memoryMb: 1769 },
  // A round must start its minute's transitions within the minute (decision 260): finding 10,000 due is
  // 11 Query pages, and each visit about 3 ms of CPU in groups of an organization (decision 327,
  // bench/hibernation-scheduler.ts), so one vCPU starts about 15,000 a minute.
  'run-hibernation-schedule': { timeoutSeconds: 55, memoryMb: 1769 },
} as const satisfies Readonly<Record<string, Partial<FunctionLimits>>>;

const OVERRIDES: Readonly<Partial<Record<string, Partial<FunctionLimits>>>> = LIMIT_OVERRIDES;

export const functionLimits = (kind: FunctionKind, name: string): FunctionLimits => ({ ...BY_KIND[kind], ...OVERRIDES[name] });
