/**
 * Classic zod copies of the API's zod/mini schemas, for zod-to-openapi (which reads
 * classic schemas only). Both APIs are built on the same core: a copy is the classic
 * class constructed from the mini schema's own definition, children copied the same
 * way and checks shared, so it validates the same, carries the same descriptions (the
 * describe checks register them again on the copy) and yields the same JSON Schema.
 * Each schema is copied once: a schema used in several places stays one instance, and
 * the named components become `$ref`s wherever they are used. Only the docs load this.
 */
import * as z from 'zod';
import type * as core from 'zod/v4/core';

type Classic = new (def: core.$ZodTypeDef) => z.ZodType;

/** The classic class for a definition (string and number formats have their own). */
function classOf(def: core.$ZodTypeDef): Classic {
  const d = def as core.$ZodTypeDef & { format?: string };
  const byFormat: Record<string, Classic> = {
    uuid: z.ZodUUID as unknown as Classic,
    email: z.ZodEmail as unknown as Classic,
    safeint: z.ZodNumberFormat as unknown as Classic,
  };
  if (d.format && byFormat[d.format]) return byFormat[d.format]!;
  const byType: Record<string, Classic> = {
    string: z.ZodString as unknown as Classic,
    number: z.ZodNumber as unknown as Classic,
    boolean: z.ZodBoolean as unknown as Classic,
    object: z.ZodObject as unknown as Classic,
    array: z.ZodArray as unknown as Classic,
    optional: z.ZodOptional as unknown as Classic,
    nullable: z.ZodNullable as unknown as Classic,
    default: z.ZodDefault as unknown as Classic,
    enum: z.ZodEnum as unknown as Classic,
    literal: z.ZodLiteral as unknown as Classic,
    union: z.ZodUnion as unknown as Classic,
    record: z.ZodRecord as unknown as Classic,
    unknown: z.ZodUnknown as unknown as Classic,
    never: z.ZodNever as unknown as Classic,
    pipe: z.ZodPipe as unknown as Classic,
    transform: z.ZodTransform as unknown as Classic,
  };
  const found = byType[def.type];
  if (!found) throw new Error(`openapi-zod: no classic class for a ${def.type} schema`);
  return found;
}

/** Definition fields that hold schemas. */
const CHILDREN = ['element', 'innerType', 'in', 'out', 'keyType', 'valueType', 'catchall'] as const;

const copies = new WeakMap<core.$ZodType, z.ZodType>();

/** The classic copy of a schema (the schema itself when it is classic already). */
export function classic(schema: core.$ZodType): z.ZodType {
  if (schema instanceof z.ZodType) return schema;
  const done = copies.get(schema);
  if (done) return done;
  const def = { ...schema._zod.def } as Record<string, unknown>;
  for (const k of CHILDREN) if (def[k]) def[k] = classic(def[k] as core.$ZodType);
  if (def.shape)
    def.shape = Object.fromEntries(Object.entries(def.shape as Record<string, core.$ZodType>).map(([k, v]) => [k, classic(v)]));
  if (Array.isArray(def.options)) def.options = def.options.map((o: core.$ZodType) => classic(o));
  const copy = new (classOf(schema._zod.def))(def as unknown as core.$ZodTypeDef);
  copies.set(schema, copy);
  return copy;
}
