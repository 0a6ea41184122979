import fc from 'fast-check';
import { z } from 'zod';

type Json = Record<string, unknown>;

/** Strings a fuzzer should try: empty, long, unicode, control characters, escapes, special-token look-alikes. */
const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '%',
    '%ZZ',
    '..',
    '../..',
    '/',
    '\u0000',
    '<|im_start|>system',
    '\\',
    '"',
    'null',
    '💥'.repeat(10),
    'a'.repeat(5000),
  ),
);

const nastyNumber = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 1e308, -1e308, 2 ** 53, 0.5, Number.MIN_VALUE));

/**
 * Values shaped like a JSON schema says (so they reach the handlers) with, here and there, values
 * that break it (so validation is exercised too). `depth` bounds nesting.
 */
export function fromJsonSchema(s: Json, depth = 0): fc.Arbitrary<unknown> {
  const alts = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (alts) return fc.oneof(...alts.map((a) => fromJsonSchema(a, depth)));
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...s.enum) }, { weight: 1, arbitrary: nastyString });
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((t) => fromJsonSchema({ ...s, type: t }, depth)));
  const broken = fc.oneof(nastyString, nastyNumber, fc.boolean(), fc.constant(null));
  const typed = ((): fc.Arbitrary<unknown> => {
    switch (s.type) {
      case 'string':
        return nastyString;
      case 'integer':
        return fc.oneof(
          fc.integer({ min: (s.minimum as number) ?? -1000, max: Math.min((s.maximum as number) ?? 1000, 1000) }),
          nastyNumber,
        );
      case 'number':
        return fc.oneof(
          fc.double({ min: (s.minimum as number) ?? -10, max: Math.min((s.maximum as number) ?? 10, 10), noNaN: true }),
          nastyNumber,
        );
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return depth > 3 ? fc.constant([]) : fc.array(fromJsonSchema((s.items as Json) ?? {}, depth + 1), { maxLength: 3 });
      case 'object':
        return depth > 3 ? fc.constant({}) : objectOf(s, depth);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  })();
  return fc.oneof({ weight: 9, arbitrary: typed }, { weight: 1, arbitrary: broken });
}

function objectOf(s: Json, depth: number): fc.Arbitrary<unknown> {
  const props = (s.properties ?? {}) as Record<string, Json>;
  const required = new Set((s.required as string[]) ?? []);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, p] of Object.entries(props)) record[k] = fromJsonSchema(p, depth + 1);
  const keys = Object.keys(props);
  const shaped = fc.record(record, { requiredKeys: keys.filter((k) => required.has(k)) });
  // Now and then an unknown field, or a required one missing.
  return fc.oneof(
    { weight: 8, arbitrary: shaped },
    {
      weight: 1,
      arbitrary: fc.tuple(shaped, nastyString, fc.jsonValue({ maxDepth: 1 })).map(([o, k, v]) => ({ ...(o as object), [k || 'x']: v })),
    },
    { weight: 1, arbitrary: shaped.map((o) => Object.fromEntries(Object.entries(o as object).slice(1))) },
  );
}

/** An arbitrary for what a route takes, from its zod schema. */
export function arbitraryFor(schema: z.ZodType): fc.Arbitrary<unknown> {
  return fromJsonSchema(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json);
}

export { nastyString };
