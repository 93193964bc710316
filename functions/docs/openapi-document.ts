/**
 * The OpenAPI 3.1 document, generated from the route table and the zod schemas: every
 * path, parameter, body, success and error response, header and scope is derived from
 * `routes.ts`, `contract/schemas.ts` and the error catalogue `contract/errors.ts`; what the
 * `openapi-*` modules write by hand is prose, examples and the `webhooks` the service
 * sends (`openapi-webhooks.ts`). Built once per process
 * (`openApiDocument()`).
 */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { API_PREFIX, type Route, type RouteId, routeList, routes } from '../../contract/routes.js';
import { addErrorCodeSchemas } from './openapi-errors.js';
import { addIntegerFormats } from './openapi-formats.js';
import { registerHeaders } from './openapi-headers.js';
import { apiInfo, TAGS } from './openapi-info.js';
import { operationOf } from './openapi-operations.js';
import { completeParameters, registerRequestHeaders } from './openapi-parameters.js';
import { addComponentSchemaExamples, componentSchemaDefinitions, nameComponentSchemas } from './openapi-schemas.js';
import { API_KEY_SCHEME, SECURITY_SCHEME } from './openapi-security.js';
import { registerDeliveryHeaders, webhooksSection } from './openapi-webhooks.js';

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

/**
 * Paths carry the full /api/v1 prefix, so the host root is the server: "Try it out" on the
 * docs page calls the same host that served it, whichever stage that is. It is public
 * (`x-internal: false`): the API is for the organizations' own programs.
 */
const SERVER = {
  url: '/',
  description: 'The host that served this document: the local stack (npm start), a staging or the production stage.',
  'x-internal': false,
};

const routeEntries = () => Object.entries(routes) as [RouteId, Route][];

function build(): OpenApiDocument {
  nameComponentSchemas();
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', SECURITY_SCHEME, { ...API_KEY_SCHEME });
  registerHeaders(registry);
  registerRequestHeaders(registry);
  registerDeliveryHeaders(registry);
  for (const [id, route] of routeEntries()) registry.registerPath(operationOf(id, route));

  const doc = new OpenApiGeneratorV31([...registry.definitions, ...componentSchemaDefinitions()]).generateDocument({
    openapi: '3.1.0',
    info: apiInfo(),
    servers: [SERVER],
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: TAGS,
  });

  for (const [id, route] of routeEntries()) {
    const op = doc.paths?.[API_PREFIX + route.path]?.[route.method.toLowerCase() as 'get'] as { parameters?: unknown[] } | undefined;
    if (!op) throw new Error(`OpenAPI generation lost route ${id}`);
    op.parameters = completeParameters(route, op.parameters);
  }
  addComponentSchemaExamples(doc.components?.schemas);
  addErrorCodeSchemas(doc.components?.schemas, routeList);
  // What the service sends to webhook URLs (written by hand: they reference the named schemas).
  doc.webhooks = webhooksSection();
  addIntegerFormats(doc);
  return doc;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

let built: { doc: OpenApiDocument; json: string } | undefined;

/** The document (built on first use, then shared by the whole process). */
export function openApiDocument(): OpenApiDocument {
  built ??= (() => {
    const doc = deepFreeze(build());
    return { doc, json: JSON.stringify(doc) };
  })();
  return built.doc;
}

/** The document serialised, as served at GET /api/v1/openapi.json. */
export function openApiJson(): string {
  openApiDocument();
  return built!.json;
}
