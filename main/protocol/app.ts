/**
 * What the app needs to know about the running core: health, the served model, settings and the
 * API key. Pure zod schemas and inferred types: the UI imports this module.
 */
import { z } from 'zod';

export const HealthSchema = z.object({
  status: z.enum(['ok', 'shutting_down']),
  model: z.string(),
  running: z.number().int().min(0),
  queued: z.number().int().min(0),
});
export type Health = z.infer<typeof HealthSchema>;

/** The tfjs backends the engine can run on (see main/engine/backends/backend.ts for what each needs). */
export const BACKENDS = ['native', 'wasm', 'cpu', 'webgpu', 'tensorflow'] as const;

export const InfoSchema = z.object({
  /** ClawLoop's version. */
  version: z.string(),
  model: z.object({
    name: z.string(),
    dir: z.string(),
    architecture: z.string(),
    parameters: z.number().int().min(0),
    context_length: z.number().int().min(1),
    backend: z.string(),
    /** What the engine said about its backend at start (which one, how it computes, and why native is not used where it is not). */
    backend_notes: z.array(z.string()),
  }),
  memory: z.object({ rss_bytes: z.number().int().min(0), heap_used_bytes: z.number().int().min(0) }),
  data_dir: z.string(),
  /** The OpenAI base URL clients use, e.g. http://127.0.0.1:30000/v1. */
  base_url: z.string(),
  served_model_name: z.string(),
  api_key_set: z.boolean(),
  /** The provider entry to merge into ~/.openclaw/openclaw.json (`clawloop openclaw` merges it). */
  openclaw_provider: z.record(z.string(), z.unknown()),
  /** Why OpenClaw cannot use the served model as it is (a context window under its minimum), or null. */
  openclaw_note: z.string().nullable(),
  started_at: z.number().int(),
});
export type Info = z.infer<typeof InfoSchema>;

/** Settings that take effect when ClawLoop starts next (the model and backend are loaded at start). */
export const SettingsSchema = z.object({
  /** The model folder served (null: the bundled model). */
  model_dir: z.string().nullable(),
  backend: z.enum(BACKENDS).nullable(),
  data_dir: z.string(),
  /** The stored settings differ from what runs now: restart ClawLoop to apply them. */
  restart_required: z.boolean(),
  /** The model folder and backend running now. */
  running: z.object({ model_dir: z.string(), backend: z.string() }),
});
export type Settings = z.infer<typeof SettingsSchema>;

export const SettingsPatchSchema = z
  .object({
    model_dir: z
      .string()
      .min(1)
      .nullable()
      .optional()
      .describe('a Hugging Face model folder (config.json, *.safetensors, tokenizer.json); null: the bundled model'),
    backend: z.enum(BACKENDS).nullable().optional().describe('native, wasm, cpu, webgpu or tensorflow; null: the default'),
  })
  .strict();
export type SettingsPatch = z.infer<typeof SettingsPatchSchema>;

/**
 * A key every client can send in an `Authorization` header: visible ASCII only, no spaces (a key
 * with a leading space or a non-ASCII letter would be stored and then match no request).
 */
const ApiKeyString = z
  .string()
  .min(8, 'the key needs at least 8 characters')
  .max(200, 'the key may have at most 200 characters')
  .regex(/^[\x21-\x7e]+$/, 'the key may hold only visible ASCII characters (no spaces, no accents): an HTTP header cannot carry others');

/** Why `key` could not be an API key (the same rule as the settings route), or null when it can. */
export function apiKeyProblem(key: string): string | null {
  const r = ApiKeyString.safeParse(key);
  return r.success ? null : r.error.issues[0].message;
}

export const ApiKeyRequestSchema = z.union([
  z
    .object({ api_key: ApiKeyString.nullable().describe('the new key (8 to 200 visible ASCII characters), or null to turn it off') })
    .strict(),
  z.object({ regenerate: z.literal(true).describe('make a new random key') }).strict(),
]);
export type ApiKeyRequest = z.infer<typeof ApiKeyRequestSchema>;

/** POST /api/sign-in: the key typed into the app, exchanged for its sign-in cookie. */
export const SignInRequestSchema = z.object({ api_key: z.string().min(1).max(200).describe('the API key') }).strict();
/**
 * Signed in: the answer sets an HttpOnly cookie holding a session token, and carries the session's
 * proof, which the page keeps in its origin's storage and sends as `x-clawloop-proof` with every
 * request (the cookie alone opens nothing: other ports of the host receive it too). No proof when
 * the server has no key.
 */
export const SignInResponseSchema = z.object({
  signed_in: z.literal(true),
  session_proof: z.string().nullable().describe('send as the x-clawloop-proof header with the cookie; null: no key, nothing to send'),
});

/** Signed out: the browser's session ended (a request with a bearer key has none to end). */
export const SignOutResponseSchema = z.object({ signed_in: z.literal(false) });

/**
 * The key, answered only to the caller who just set it (it is never readable otherwise). Changing
 * the key ends every browser session; the caller's browser gets a new one (cookie and proof).
 */
export const ApiKeyResponseSchema = z.object({
  api_key: z.string().nullable(),
  session_proof: z.string().nullable().describe("the caller's new session proof (see POST /api/sign-in); null without a key"),
});
