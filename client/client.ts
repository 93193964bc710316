/**
 * A typed client for the Deployment Management API. Request and response types come
 * from the route table and the zod schemas the service itself uses, so they cannot
 * drift; one method per route, named like the route. Uses the global fetch.
 */

import { type JsonRouteId, responseOf, type responses } from '../contract/responses.js';
import { type RouteBody, type RouteData, type RouteParams, type RouteQuery, routeTarget } from '../contract/route-io.js';
import { API_PREFIX, type Route, type RouteId, routes } from '../contract/routes.js';
import type * as s from '../contract/schemas.js';
import { type DeprecationNotice, deprecationNoticeOf, warnOncePerProcess } from './deprecation.js';
import { ErrorResponse, type ErrorResponseCode, NetworkError } from './errors.js';

export const DEFAULT_BASE_URL = `http://localhost:3000${API_PREFIX}`;

type Routes = typeof routes;

/** `data` of a route's success response (unknown for the routes that answer no JSON envelope). */
export type DataOf<K extends RouteId> = RouteData<K extends JsonRouteId ? (typeof responses)[K] : undefined>;
/** A route's path parameters. */
export type ParamsOf<K extends RouteId> = RouteParams<Routes[K]>;
/** A route's query parameters (numbers or strings; the API parses them). */
export type QueryOf<K extends RouteId> = RouteQuery<Routes[K]>;
/** A route's JSON body. */
export type BodyOf<K extends RouteId> = RouteBody<Routes[K]>;

export type Deployment = s.Deployment;
export type Operation = s.Operation;
export type OperationLogLine = s.OperationLogLine;
export type Environment = s.Environment;
export type ApiKeyInfo = s.ApiKeyInfo;
export type Accepted = s.Accepted;
export type Event = s.Event;
export type Webhook = s.Webhook;
/** A webhook as created: with its signing secret, which no other answer shows. */
export type CreatedWebhook = DataOf<'createWebhook'>;
export type WebhookDelivery = s.WebhookDelivery;
export type Revision = s.Revision;
/** A dry run's answer: the record as it would be, and what would change. */
export type DryRun = Extract<DataOf<'updateDeployment'>, { changes: unknown }>;
/** One changed leaf of a configuration, as a dry run and a deployment.update operation show it. */
export type ConfigChange = DryRun['changes'][number];
export type Pagination = s.Pagination;
export type ListPage<T> = { items: T[]; pagination: s.Pagination; links: s.ListLinks };

export interface ClientOptions {
  /** Ends with /api/v1. Default http://localhost:3000/api/v1. */
  baseUrl?: string;
  apiKey?: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Per-request time limit (ms); a request that takes longer fails with NetworkError. Default 30 s. */
  requestTimeoutMs?: number;
  /** Check each success body against the route's schema (off by default, so new fields or values do not break old clients). */
  validateResponses?: boolean;
  userAgent?: string;
  /**
   * Called for every answer that says the request used a deprecated feature (errors
   * included). Default: one `process.emitWarning` (a DeprecationWarning) per feature per process.
   */
  onDeprecation?: (notice: DeprecationNotice) => void;
}

export interface RequestOptions {
  /** For POSTs: makes a retry safe (the API replays the first response for 24 hours). */
  idempotencyKey?: string;
  requestId?: string;
  signal?: AbortSignal;
}

/** For a PATCH or a rollback (decision 42). */
export interface UpdateOptions extends RequestOptions {
  /** The revision the change is meant for (sent as `If-Match: "<n>"`), or `*`: another revision is 412 PRECONDITION_FAILED. */
  ifMatch?: number | '*';
  /** Answer what would change, and change nothing. */
  dryRun?: boolean;
}

/**
 * What a PATCH or a rollback answered: `accepted` (202: a deployment.update operation
 * was started), `unchanged` (200: the configuration already is that, nothing written)
 * or `dry_run` (200 with `?dry_run=true`: the record as it would be and what would change).
 */
/** What a hibernate or a wake did: started an operation (202), or nothing, the deployment being in that state (200). */
export type HibernationResult = { outcome: 'accepted'; accepted: Accepted } | { outcome: 'unchanged'; deployment: Deployment };

export type UpdateResult =
  | { outcome: 'accepted'; accepted: Accepted }
  | { outcome: 'unchanged'; deployment: Deployment }
  | { outcome: 'dry_run'; deployment: Deployment; changes: ConfigChange[] };

export interface CallInput<K extends RouteId> extends RequestOptions {
  /** Sent as `If-Match`: a revision as its ETag (`"<n>"`), or `*`. */
  ifMatch?: number | '*';
  params?: ParamsOf<K>;
  query?: QueryOf<K>;
  body?: BodyOf<K>;
}

/** A success, with what the headers add. */
export interface ApiResponse<T> {
  status: number;
  data: T;
  requestId: string | undefined;
  headers: Headers;
}

/** Retry-After in whole seconds, when the answer has one. */
export function retryAfterOf(headers: Headers): number | undefined {
  const raw = headers.get('retry-after');
  if (raw === null || !/^\d+$/.test(raw.trim())) return undefined;
  return Number(raw);
}

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The base URL, without trailing slashes. Every request carries the API key, so it must
 * be https; plain http is accepted only for this machine (the local stack), where
 * nothing crosses a network.
 */
export function checkedBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError(`baseUrl is not an absolute URL: ${raw}`);
  }
  const loopback = LOOPBACK_HOSTS.test(url.hostname) || url.hostname.endsWith('.localhost');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new TypeError(
      `baseUrl must be https (plain http only on this machine: localhost, 127.x.x.x, [::1]), got ${url.protocol}//${url.host}`,
    );
  if (url.username || url.password) throw new TypeError('baseUrl must not carry a user or password');
  return raw.replace(/\/+$/, '');
}

export class DeploymentsClient {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly fetchImpl: typeof fetch;
  private readonly requestTimeoutMs: number;
  private readonly validateResponses: boolean;
  private readonly userAgent: string | undefined;
  private readonly onDeprecation: (notice: DeprecationNotice) => void;

  constructor(options: ClientOptions = {}) {
    this.baseUrl = checkedBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
    this.apiKey = options.apiKey;
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.validateResponses = options.validateResponses ?? false;
    this.userAgent = options.userAgent;
    this.onDeprecation = options.onDeprecation ?? warnOncePerProcess;
  }

  /** The URL of a route, with its path parameters and query filled in. */
  urlOf<K extends RouteId>(id: K, params?: ParamsOf<K>, query?: QueryOf<K>): string {
    // The base URL ends with the API prefix; route paths are below it.
    return `${this.baseUrl}${routeTarget(id, routes[id].path, params, query)}`;
  }

  /** Sends one request for a route; resolves with the success, throws ErrorResponse or NetworkError. */
  async call<K extends RouteId>(id: K, input: CallInput<K> = {}): Promise<ApiResponse<DataOf<K>>> {
    const route: Route = routes[id];
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (route.access !== 'public') {
      if (!this.apiKey) throw new TypeError(`${id} needs an API key (ClientOptions.apiKey)`);
      headers['X-API-Key'] = this.apiKey;
    }
    if (this.userAgent) headers['User-Agent'] = this.userAgent;
    if (input.requestId) headers['X-Request-Id'] = input.requestId;
    if (input.idempotencyKey !== undefined) headers['Idempotency-Key'] = input.idempotencyKey;
    if (input.ifMatch !== undefined) headers['If-Match'] = input.ifMatch === '*' ? '*' : `"${input.ifMatch}"`;
    let body: string | undefined;
    if (route.body) {
      body = JSON.stringify(input.body ?? {});
      // The route's own media type first: a PATCH is a JSON merge patch.
      headers['Content-Type'] = route.bodyMediaTypes?.[0] ?? 'application/json';
    }
    const url = this.urlOf(id, input.params, input.query);
    const timeout = AbortSignal.timeout(this.requestTimeoutMs);
    const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
    let res: Response;
    let text: string;
    try {
      // A redirect would carry X-API-Key wherever it points: it is reported, never followed.
      res = await this.fetchImpl(url, { method: route.method, headers, body, signal, redirect: 'manual' });
      text = await res.text();
    } catch (e) {
      if (input.signal?.aborted) throw input.signal.reason ?? e;
      const why = timeout.aborted
        ? `no answer within ${this.requestTimeoutMs} ms`
        : ((e as { cause?: { message?: string } }).cause?.message ?? (e as Error).message);
      throw new NetworkError(`${route.method} ${url} failed: ${why}`, why, { cause: e });
    }
    const requestId = res.headers.get('x-request-id') ?? undefined;
    const notice = deprecationNoticeOf(res.headers, `${route.method} ${route.path}`, url);
    if (notice) this.onDeprecation(notice);
    if ((res.status >= 300 && res.status < 400) || res.type === 'opaqueredirect') {
      throw new ErrorResponse({
        status: res.status,
        code: 'UNEXPECTED_RESPONSE',
        message: `${route.method} ${url} answered with a redirect${res.headers.get('location') ? ` to ${res.headers.get('location')}` : ''}; the client does not follow redirects, which would send the API key on`,
        requestId,
      });
    }
    const isJson = /^application\/json\b/i.test(res.headers.get('content-type') ?? '');
    let json: unknown;
    if (isJson) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    if (!res.ok) throw this.errorFrom(res, json, text, requestId);
    const schemas = responseOf(id);
    if (schemas === undefined) {
      // Not enveloped: the OpenAPI document (JSON) or the docs page and assets (text).
      return { status: res.status, data: (isJson ? json : text) as DataOf<K>, requestId, headers: res.headers };
    }
    const envelope = json as { data?: unknown } | undefined;
    if (!envelope || typeof envelope !== 'object' || !('data' in envelope)) {
      throw new ErrorResponse({
        status: res.status,
        code: 'UNEXPECTED_RESPONSE',
        message: `${route.method} ${url}: the answer is not the {"data": ...} envelope`,
        requestId,
      });
    }
    let data = envelope.data;
    if (this.validateResponses) {
      const schema = schemas.or && res.status === route.success.or?.status ? schemas.or.data : schemas.data;
      const parsed = schema.safeParse(data);
      if (!parsed.success) {
        throw new ErrorResponse({
          status: res.status,
          code: 'UNEXPECTED_RESPONSE',
          message: `${route.method} ${url}: the answer does not match the schema: ${parsed.error.message}`,
          requestId,
        });
      }
      data = parsed.data;
    }
    return { status: res.status, data: data as DataOf<K>, requestId, headers: res.headers };
  }

  private errorFrom(res: Response, json: unknown, text: string, requestId: string | undefined): ErrorResponse {
    const retryAfter = retryAfterOf(res.headers);
    const e = (json as { error?: Record<string, unknown> } | undefined)?.error;
    if (e && typeof e.code === 'string' && typeof e.message === 'string') {
      return new ErrorResponse({
        status: res.status,
        // As sent: a newer service may answer with a code this client does not know yet.
        code: e.code as ErrorResponseCode,
        message: e.message,
        requestId: typeof e.request_id === 'string' ? e.request_id : requestId,
        operationId: typeof e.operation_id === 'string' ? e.operation_id : undefined,
        retryAfter,
        details: Array.isArray(e.details) ? (e.details as { field: string; issue: string }[]) : undefined,
      });
    }
    const snippet = text.trim().slice(0, 200);
    return new ErrorResponse({
      status: res.status,
      code: 'UNEXPECTED_RESPONSE',
      message: `HTTP ${res.status}${snippet ? `: ${snippet}` : ''}`,
      requestId,
      retryAfter,
    });
  }

  private async data<K extends RouteId>(id: K, input?: CallInput<K>): Promise<DataOf<K>> {
    return (await this.call(id, input)).data;
  }

  /** A PATCH or a rollback, its answer told apart by status and shape. */
  private async update<K extends 'updateDeployment' | 'rollbackDeployment'>(
    id: K,
    deploymentId: string,
    body: BodyOf<K>,
    { ifMatch, dryRun, ...opts }: UpdateOptions,
  ): Promise<UpdateResult> {
    const query = (dryRun ? { dry_run: 'true' } : undefined) as QueryOf<K>;
    const res = await this.call(id, { ...opts, ifMatch, params: { deployment_id: deploymentId } as ParamsOf<K>, query, body });
    const data = res.data as Accepted | Deployment | DryRun;
    if (res.status === 202) return { outcome: 'accepted', accepted: data as Accepted };
    if ('changes' in data) return { outcome: 'dry_run', deployment: data.deployment, changes: data.changes };
    return { outcome: 'unchanged', deployment: data as Deployment };
  }

  // ---- one method per route ------------------------------------------------------

  listEnvironments(query?: QueryOf<'listEnvironments'>, opts?: RequestOptions) {
    return this.data('listEnvironments', { ...opts, query });
  }
  getEnvironment(environmentId: string, opts?: RequestOptions) {
    return this.data('getEnvironment', { ...opts, params: { environment_id: environmentId } });
  }
  getKey(opts?: RequestOptions) {
    return this.data('getKey', opts);
  }
  createDeployment(body: BodyOf<'createDeployment'>, opts?: RequestOptions) {
    return this.data('createDeployment', { ...opts, body });
  }
  listDeployments(query?: QueryOf<'listDeployments'>, opts?: RequestOptions) {
    return this.data('listDeployments', { ...opts, query });
  }
  getDeployment(deploymentId: string, opts?: RequestOptions) {
    return this.data('getDeployment', { ...opts, params: { deployment_id: deploymentId } });
  }
  deleteDeployment(deploymentId: string, opts?: RequestOptions) {
    return this.data('deleteDeployment', { ...opts, params: { deployment_id: deploymentId } });
  }
  /**
   * Changes the configuration with a JSON merge patch (in `config.env`, `"NAME": null`
   * removes NAME; decision 42). Resolves with what the API did: see UpdateResult.
   */
  updateDeployment(deploymentId: string, patch: BodyOf<'updateDeployment'>, opts: UpdateOptions = {}): Promise<UpdateResult> {
    return this.update('updateDeployment', deploymentId, patch, opts);
  }
  /** The deployment's rolled-up health, when it was last checked, and its components (decision 48). */
  getDeploymentHealth(deploymentId: string, opts?: RequestOptions) {
    return this.data('getDeploymentHealth', { ...opts, params: { deployment_id: deploymentId } });
  }
  /** Metrics over [start, end) in periods (defaults: the last hour, all five metrics; decision 49). */
  getDeploymentMetrics(deploymentId: string, query?: QueryOf<'getDeploymentMetrics'>, opts?: RequestOptions) {
    return this.data('getDeploymentMetrics', { ...opts, params: { deployment_id: deploymentId }, query });
  }
  /** The deployment's configuration revisions, newest first (decision 43). */
  listRevisions(deploymentId: string, query?: QueryOf<'listRevisions'>, opts?: RequestOptions) {
    return this.data('listRevisions', { ...opts, params: { deployment_id: deploymentId }, query });
  }
  getRevision(deploymentId: string, revision: number, opts?: RequestOptions) {
    return this.data('getRevision', { ...opts, params: { deployment_id: deploymentId, revision: String(revision) } });
  }
  /** Restores revision n's configuration (secret values included), as an update does (decision 43). */
  rollbackDeployment(deploymentId: string, revision: number, opts: UpdateOptions = {}): Promise<UpdateResult> {
    return this.update('rollbackDeployment', deploymentId, { revision }, opts);
  }
  /**
   * Decision 50: hibernates the deployment (202, an operation to wait for), or answers it as it
   * is when it already is hibernated (200). `until`: the manual hold's end, at most 7 days ahead.
   */
  hibernateDeployment(deploymentId: string, body: BodyOf<'hibernateDeployment'> = {}, opts?: RequestOptions): Promise<HibernationResult> {
    return this.hibernation('hibernateDeployment', deploymentId, body, opts);
  }
  /** Decision 50: wakes the deployment, as hibernateDeployment hibernates it. */
  wakeDeployment(deploymentId: string, body: BodyOf<'wakeDeployment'> = {}, opts?: RequestOptions): Promise<HibernationResult> {
    return this.hibernation('wakeDeployment', deploymentId, body, opts);
  }
  private async hibernation(
    id: 'hibernateDeployment' | 'wakeDeployment',
    deploymentId: string,
    body: BodyOf<'hibernateDeployment'>,
    opts?: RequestOptions,
  ): Promise<HibernationResult> {
    const res = await this.call(id, { ...opts, params: { deployment_id: deploymentId }, body });
    return res.status === 202
      ? { outcome: 'accepted', accepted: res.data as Accepted }
      : { outcome: 'unchanged', deployment: res.data as Deployment };
  }
  createDagSync(deploymentId: string, opts?: RequestOptions) {
    return this.data('createDagSync', { ...opts, params: { deployment_id: deploymentId }, body: {} });
  }
  /**
   * Decision 51: provisions an app user; `password` (12-128 characters) is optional. The answer's
   * `initial_password` is the password (the one given, or 24 letters and digits the service made):
   * shown only in this answer (and a replay of it with the same Idempotency-Key and API key).
   */
  createAppUser(deploymentId: string, body: BodyOf<'createAppUser'>, opts?: RequestOptions) {
    return this.data('createAppUser', { ...opts, params: { deployment_id: deploymentId }, body });
  }
  listOperations(query?: QueryOf<'listOperations'>, opts?: RequestOptions) {
    return this.data('listOperations', { ...opts, query });
  }
  /** The organization's events, newest first (filters: type, resource_id; decision 37). */
  listEvents(query?: QueryOf<'listEvents'>, opts?: RequestOptions) {
    return this.data('listEvents', { ...opts, query });
  }
  /** One page of the operation's log, oldest first; `followOperationLogs` (client/logs.ts) follows it (decision 45). */
  listOperationLogs(operationId: string, query?: QueryOf<'listOperationLogs'>, opts?: RequestOptions) {
    return this.data('listOperationLogs', { ...opts, params: { operation_id: operationId }, query });
  }
  getOperation(operationId: string, opts?: RequestOptions) {
    return this.data('getOperation', { ...opts, params: { operation_id: operationId } });
  }
  /** The operation once it is terminal or has left `phase`, else after `timeout` seconds (1-20; decision 36). */
  waitOperation(operationId: string, query: { phase?: string; timeout?: number } = {}, opts?: RequestOptions) {
    return this.data('waitOperation', { ...opts, params: { operation_id: operationId }, query });
  }
  cancelOperation(operationId: string, opts?: RequestOptions) {
    return this.data('cancelOperation', { ...opts, params: { operation_id: operationId }, body: {} });
  }
  /** A webhook for the organization's events (201); keep `secret`, it is not shown again (decision 38). */
  createWebhook(body: BodyOf<'createWebhook'>, opts?: RequestOptions) {
    return this.data('createWebhook', { ...opts, body });
  }
  listWebhooks(query?: QueryOf<'listWebhooks'>, opts?: RequestOptions) {
    return this.data('listWebhooks', { ...opts, query });
  }
  getWebhook(webhookId: string, opts?: RequestOptions) {
    return this.data('getWebhook', { ...opts, params: { webhook_id: webhookId } });
  }
  deleteWebhook(webhookId: string, opts?: RequestOptions) {
    return this.data('deleteWebhook', { ...opts, params: { webhook_id: webhookId } });
  }
  /** The webhook's delivery attempts, newest first. */
  listWebhookDeliveries(webhookId: string, query?: QueryOf<'listWebhookDeliveries'>, opts?: RequestOptions) {
    return this.data('listWebhookDeliveries', { ...opts, params: { webhook_id: webhookId }, query });
  }
  /** The OpenAPI document. */
  async getOpenApi(opts?: RequestOptions): Promise<Record<string, unknown>> {
    return (await this.data('getOpenApi', opts)) as Record<string, unknown>;
  }
  /** The HTML of the docs page. */
  async getDocs(opts?: RequestOptions): Promise<string> {
    return (await this.data('getDocs', opts)) as string;
  }
  async getDocsAsset(asset: string, opts?: RequestOptions): Promise<string> {
    return (await this.data('getDocsAsset', { ...opts, params: { asset } })) as string;
  }
}

/** Compile-time proof that every route has a method of the same name. */
export type EveryRouteHasAMethod = { [K in RouteId]: DeploymentsClient[K] extends (...args: never[]) => Promise<unknown> ? true : never };
