/**
 * A zod schema as TypeScript-like text for docs/api.md: fields, their types, `?` for optional
 * ones, defaults, ranges and the schema's own descriptions as comments.
 */
import { z } from 'zod';

type Json = Record<string, unknown>;

function bounds(s: Json): string {
  const parts: string[] = [];
  const max = s.maximum as number | undefined;
  if (s.minimum !== undefined && (s.minimum as number) > -Number.MAX_SAFE_INTEGER) parts.push(`≥ ${s.minimum}`);
  if (s.exclusiveMinimum !== undefined) parts.push(`> ${s.exclusiveMinimum}`);
  if (max !== undefined && max < Number.MAX_SAFE_INTEGER) parts.push(`≤ ${max}`);
  if (s.exclusiveMaximum !== undefined) parts.push(`< ${s.exclusiveMaximum}`);
  if (s.minLength !== undefined && (s.minLength as number) > 0) parts.push(`length ≥ ${s.minLength}`);
  if (s.maxLength !== undefined) parts.push(`length ≤ ${s.maxLength}`);
  if (s.minItems !== undefined && (s.minItems as number) > 0) parts.push(`≥ ${s.minItems} items`);
  if (s.maxItems !== undefined) parts.push(`≤ ${s.maxItems} items`);
  return parts.join(', ');
}

function typeOf(s: Json, indent: string): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const alts = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (alts) return [...new Set(alts.map((a) => typeOf(a, indent)))].join(' | ');
  if (s.type === 'array') {
    const items = (s.items as Json) ?? {};
    const union = Boolean(items.anyOf ?? items.oneOf) || Array.isArray(items.type) || (Array.isArray(items.enum) && items.enum.length > 1);
    const item = typeOf(items, indent);
    return union ? `Array<${item}>` : `${item}[]`;
  }
  if (s.type === 'object' || s.properties) return objectText(s, indent);
  if (Array.isArray(s.type)) return s.type.map((t) => typeOf({ ...s, type: t }, indent)).join(' | ');
  if (s.type === 'integer') return 'integer';
  if (typeof s.type === 'string') return s.type;
  return 'unknown';
}

function objectText(s: Json, indent: string): string {
  const props = (s.properties ?? {}) as Record<string, Json>;
  const required = new Set((s.required as string[] | undefined) ?? []);
  const keys = Object.keys(props);
  if (!keys.length) {
    const extra = s.additionalProperties as Json | boolean | undefined;
    return extra && typeof extra === 'object' ? `Record<string, ${typeOf(extra, indent)}>` : '{}';
  }
  const inner = indent + '  ';
  const lines = keys.map((k) => {
    const p = props[k];
    const notes = [p.description as string | undefined, bounds(p), p.default !== undefined ? `default ${JSON.stringify(p.default)}` : '']
      .filter(Boolean)
      .join('; ');
    const opt = required.has(k) ? '' : '?';
    return `${inner}${k}${opt}: ${typeOf(p, inner)};${notes ? ` // ${notes}` : ''}`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/** `io`: 'input' for what a client sends (defaults optional), 'output' for what it receives. */
export function typeText(schema: z.ZodType, io: 'input' | 'output'): string {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return typeOf(json, '');
}
