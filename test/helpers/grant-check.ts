/**
 * DynamoDB Local checks no IAM, so this replays every request a function's code sends
 * against that function's grants in infra/aws/function-access.ts, as IAM would judge it:
 * the item action (a transaction item by item), the partition it reaches
 * (`dynamodb:LeadingKeys`), the attributes it names (`dynamodb:Attributes`) and the
 * ReturnValues it asks for; a Query by the table or index it reads and the partition.
 * test/infra checks that the synthesized policies hold exactly those grants, so together
 * the two prove that what the code does on the local stack, the stack's roles allow.
 *
 * Which function sent a request comes from local/current-function.ts; requests sent
 * outside any function (a test's own setup, the local host's work, a stand-in's own
 * table items) are not judged. The local stand-ins for SQS and KMS are judged at their
 * ports (judgedStandIns): each call as the SendMessage, Encrypt or Decrypt it stands in
 * for. Step Functions grants are few and whole-resource, and not replayed.
 */
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { INDEXES, TABLE_KEYS } from '../../contract/table/table.js';
import { SEAL_CONTEXT_KEYS, sealContext } from '../../functions/core/secret-sealer.js';
import {
  FUNCTION_ACCESS,
  type FunctionAccess,
  type FunctionName,
  type ItemGrant,
  leadingKeyPattern,
  physicalIndexes,
  QUERY_EXCLUDED,
  usesTable,
} from '../../infra/aws/function-access.js';
import { currentFunction } from '../../local/current-function.js';
import type { StandIns } from '../../local/stand-ins.js';
import { watchDynamoCalls } from './sdk-calls.js';

/** One request as IAM authorises it: a transaction or a batch is several. */
export interface Authorised {
  action: string;
  /** The partition key value it reaches (of the index, for a Query). */
  leadingKey: string | undefined;
  /** The attribute names it names: keys, item, expressions, projection. */
  attributes: string[];
  returnValues?: string;
  /** A Query's index (undefined: the table). */
  index?: string;
  /** A KMS request's encryption context. */
  encryptionContext?: Record<string, string>;
}

export interface SentRequest {
  /** The SDK command's name, e.g. `UpdateCommand` or `UpdateItemCommand`. */
  command: string;
  input: Record<string, any>;
}

const FUNCTIONS_OF_EXPRESSIONS =
  /^(if_not_exists|attribute_exists|attribute_not_exists|attribute_type|begins_with|contains|size|list_append)$/i;
const KEYWORDS = /^(SET|REMOVE|ADD|DELETE|AND|OR|NOT|BETWEEN|IN)$/i;

/** The top-level attribute names an expression uses, `#placeholders` resolved. */
export function namesIn(expression: string | undefined, names: Record<string, string> = {}): string[] {
  if (!expression) return [];
  const out: string[] = [];
  // A name starts a path (not after `.`, `:` or another name character) and is not a function being called.
  for (const m of expression.matchAll(/(?<![\w.:#])(#?[A-Za-z_]\w*)\b(?!\s*\()/g)) {
    const token = m[1]!;
    if (token.startsWith('#')) out.push(names[token] ?? token);
    else if (!KEYWORDS.test(token) && !FUNCTIONS_OF_EXPRESSIONS.test(token)) out.push(token);
  }
  return out;
}

const expressionNames = (i: Record<string, any>): string[] =>
  ['UpdateExpression', 'ConditionExpression', 'ProjectionExpression', 'KeyConditionExpression', 'FilterExpression'].flatMap((e) =>
    namesIn(i[e], i.ExpressionAttributeNames),
  );

function itemRequest(action: string, i: Record<string, any>): Authorised {
  const item = i.Key ?? i.Item ?? {};
  return {
    action,
    leadingKey: typeof item[TABLE_KEYS.partitionKey] === 'string' ? item[TABLE_KEYS.partitionKey] : undefined,
    attributes: [...new Set([...Object.keys(item), ...expressionNames(i)])],
    ...(i.ReturnValues ? { returnValues: i.ReturnValues } : {}),
  };
}

/** The partition a Query reads: the value its key condition gives the table's or index's partition key. */
function queryRequest(i: Record<string, any>): Authorised {
  const partitionKey = i.IndexName ? INDEXES.find((x) => x.name === i.IndexName)?.partitionKey : TABLE_KEYS.partitionKey;
  let leadingKey: string | undefined;
  for (const m of String(i.KeyConditionExpression ?? '').matchAll(/(#?\w+)\s*=\s*(:\w+)/g)) {
    const name = m[1]!.startsWith('#') ? i.ExpressionAttributeNames?.[m[1]!] : m[1];
    if (name === partitionKey) leadingKey = i.ExpressionAttributeValues?.[m[2]!];
  }
  return { action: 'Query', leadingKey, attributes: [], ...(i.IndexName ? { index: i.IndexName } : {}) };
}

const TRANSACT_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};

/** What IAM authorises for one SDK command (document client or low-level names alike). */
export function authorisedRequests({ command, input: i }: SentRequest): Authorised[] {
  const name = command.replace(/(Items?)?Command$/, '');
  switch (name) {
    case 'Get':
      return [itemRequest('GetItem', i)];
    case 'Put':
      return [itemRequest('PutItem', i)];
    case 'Update':
      return [itemRequest('UpdateItem', i)];
    case 'Delete':
      return [itemRequest('DeleteItem', i)];
    case 'Query':
      return [queryRequest(i)];
    case 'BatchGet':
      return Object.values(i.RequestItems ?? {}).flatMap((t: any) =>
        (t.Keys ?? []).map((Key: unknown) => itemRequest('BatchGetItem', { Key, ProjectionExpression: t.ProjectionExpression })),
      );
    case 'TransactWrite':
      return (i.TransactItems ?? []).flatMap((t: Record<string, any>) =>
        Object.entries(t).map(([kind, op]) => itemRequest(TRANSACT_ACTIONS[kind] ?? kind, op)),
      );
    case 'TransactGet':
      return (i.TransactItems ?? []).map((t: { Get: Record<string, any> }) => itemRequest('GetItem', t.Get));
    case 'Encrypt':
    case 'Decrypt':
      return [{ action: name, leadingKey: undefined, attributes: [], encryptionContext: i.EncryptionContext ?? {} }];
    default:
      // Scan, BatchWrite, table operations: no function is granted them.
      return [{ action: name, leadingKey: undefined, attributes: [] }];
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const glob = (pattern: string) => new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`);
const reaches = (key: string | undefined, patterns: readonly string[]) => key !== undefined && patterns.some((p) => glob(p).test(key));

function itemAllowed(r: Authorised, g: ItemGrant): boolean {
  return (
    g.actions.includes(r.action as never) &&
    reaches(r.leadingKey, g.reach.map(leadingKeyPattern)) &&
    (!g.attributes || r.attributes.every((a) => g.attributes!.includes(a))) &&
    (!g.returnValues || r.returnValues === undefined || g.returnValues.includes(r.returnValues as never))
  );
}

function allowed(r: Authorised, access: FunctionAccess): boolean {
  const context = r.encryptionContext ?? {};
  // As the IAM conditions of infra/aws/functions.ts: Encrypt binds every context key, Decrypt is per purpose.
  if (r.action === 'SendMessage') return access.queue.includes('SendMessage');
  if (r.action === 'GetSecretValue') return access.apiKeySecret === true;
  if (r.action === 'Encrypt') return access.kms.includes('Encrypt') && SEAL_CONTEXT_KEYS.every((k) => k in context);
  if (r.action === 'Decrypt') return access.kms.includes(`Decrypt:${context.purpose}` as never);
  if (r.action !== 'Query') return access.items.some((g) => itemAllowed(r, g));
  const q = access.query;
  return (
    // IAM knows the physical indexes only: a grant of one named index allows its physical index.
    (r.index === undefined ? q.table : physicalIndexes(q.indexes).includes(r.index as never)) &&
    reaches(r.leadingKey, q.reach.map(leadingKeyPattern)) &&
    (q.reach.includes('orgKeyLists') || !reaches(r.leadingKey, QUERY_EXCLUDED))
  );
}

/** Why IAM would refuse each part of the request the function sent (empty: it would allow it). */
export function refusals(fn: string, sent: SentRequest): string[] {
  const access = FUNCTION_ACCESS[fn as FunctionName];
  if (!access) return [`${fn} has no entry in FUNCTION_ACCESS`];
  return authorisedRequests(sent)
    .filter((r) => !allowed(r, access))
    .map(
      (r) =>
        `${fn}: ${r.action}${r.index ? ` on ${r.index}` : ''} of ${r.leadingKey ?? '(no partition)'}` +
        `${r.attributes.length ? ` naming ${r.attributes.join(',')}` : ''}${r.returnValues ? ` returning ${r.returnValues}` : ''}` +
        ` (${sent.command})`,
    );
}

/** What the checker saw in this process: requests judged per function, and what IAM would refuse. */
export const judged = { perFunction: new Map<string, number>(), refused: [] as string[] };
let installed = false;

/** Judges a request against the grants of the function whose code sends it, if any. */
function judge(sent: SentRequest): void {
  const fn = currentFunction();
  if (!fn) return;
  judged.perFunction.set(fn, (judged.perFunction.get(fn) ?? 0) + 1);
  judged.refused.push(...refusals(fn, sent));
}

/** Judges every request the process's DynamoDB client sends from inside a function, before it is sent. */
export function checkGrants(): void {
  if (installed) return;
  installed = true;
  watchDynamoCalls('checkGrants', (call, send) => {
    judge(call);
    return send();
  });
}

/** The stand-ins, each call judged as the SQS, KMS or Secrets Manager request it stands in for. */
export function judgedStandIns({ queue, sealer, signing }: StandIns): StandIns {
  return {
    signing: {
      read() {
        judge({ command: 'GetSecretValueCommand', input: {} });
        return signing.read();
      },
    },
    queue: {
      enqueue(message, delaySeconds, now) {
        judge({ command: 'SendMessageCommand', input: {} });
        return queue.enqueue(message, delaySeconds, now);
      },
    },
    sealer: {
      seal(plaintext, sealedFor) {
        judge({ command: 'EncryptCommand', input: { EncryptionContext: sealContext(sealedFor) } });
        return sealer.seal(plaintext, sealedFor);
      },
      open(sealed, sealedFor) {
        judge({ command: 'DecryptCommand', input: { EncryptionContext: sealContext(sealedFor) } });
        return sealer.open(sealed, sealedFor);
      },
    },
  };
}

/** Appends what this test file's functions sent to the run's record, which global-teardown.cjs checks for coverage. */
export function reportJudged(testFile: string): void {
  const dir = process.env.TEST_GRANTS_DIR;
  if (!dir) return;
  const line = JSON.stringify({ file: testFile, perFunction: Object.fromEntries(judged.perFunction) });
  appendFileSync(path.join(dir, `worker-${process.pid}.jsonl`), `${line}\n`);
}

export interface GrantReport {
  /** Requests judged in the run, all of them allowed (a refusal fails its test file). */
  requests: number;
  functions: number;
  /** Functions with table grants that sent nothing to judge, so nothing proves their grants suffice. */
  unjudged: string[];
}

/** After a whole run, what was judged; undefined when the run left some test file out. */
export function grantReport(dir: string, testFiles: readonly string[]): GrantReport | undefined {
  const lines = readdirSync(dir)
    .flatMap((f) => readFileSync(path.join(dir, f), 'utf8').split('\n'))
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { file: string; perFunction: Record<string, number> });
  const reported = new Set(lines.map((l) => l.file));
  if (!testFiles.every((f) => reported.has(f))) return undefined;
  const perFunction = new Map<string, number>();
  for (const l of lines) for (const [fn, n] of Object.entries(l.perFunction)) perFunction.set(fn, (perFunction.get(fn) ?? 0) + n);
  return {
    requests: [...perFunction.values()].reduce((a, b) => a + b, 0),
    functions: perFunction.size,
    unjudged: Object.entries(FUNCTION_ACCESS)
      .filter(([name, access]) => usesTable(access) && !perFunction.has(name))
      .map(([name]) => name),
  };
}
