/** The named schemas of the document (`#/components/schemas`), each with its example. */
import { zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type * as z from 'zod/mini';
import * as s from '../../contract/schemas.js';
import { exampleOf } from './openapi-examples.js';
import { classic } from './openapi-zod.js';

const COMPONENT_SCHEMAS: Record<string, z.core.$ZodType> = {
  Deployment: s.Deployment,
  Operation: s.Operation,
  Environment: s.Environment,
  ApiKeyInfo: s.ApiKeyInfo,
  Accepted: s.Accepted,
  Pagination: s.Pagination,
  ListLinks: s.ListLinks,
  Error: s.ErrorBody,
  CreateDeploymentBody: s.CreateDeploymentBody,
  CreateAppUserBody: s.CreateAppUserBody,
  AppUserAccepted: s.AppUserAccepted,
  Actor: s.Actor,
  Event: s.Event,
  Webhook: s.Webhook,
  CreatedWebhook: s.CreatedWebhook,
  WebhookDelivery: s.WebhookDelivery,
  CreateWebhookBody: s.CreateWebhookBody,
};

/**
 * Names the existing schema instances, so every place they are used becomes a $ref.
 * (`registry.register` would name a copy, and `extendZodWithOpenApi` cannot reach
 * instances created before it ran.)
 */
export function nameComponentSchemas(): void {
  for (const [name, schema] of Object.entries(COMPONENT_SCHEMAS)) {
    const copy = classic(schema);
    if (!zodToOpenAPIRegistry.has(copy)) zodToOpenAPIRegistry.add(copy, { _internal: { refId: name } });
  }
}

/** Generator definitions for the named schemas, so the ones only named by hand-written $refs (Error) are emitted too. */
export function componentSchemaDefinitions() {
  return Object.values(COMPONENT_SCHEMAS).map((schema) => ({ type: 'schema' as const, schema: classic(schema) }));
}

/** Adds each named schema's example to the generated `components.schemas`. */
export function addComponentSchemaExamples(generated: Record<string, unknown> | undefined): void {
  for (const [name, schema] of Object.entries(COMPONENT_SCHEMAS)) {
    const example = exampleOf(schema);
    const target = generated?.[name] as Record<string, unknown> | undefined;
    if (target && example !== undefined) target.examples = [example];
  }
}
