import type { ApiErrorBody } from '../protocol/openai.js';

/** An error answered in OpenAI's envelope `{"error": {"message", "type", "code", "param"}}`. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly type: string = status === 401 ? 'authentication_error' : status >= 500 ? 'server_error' : 'invalid_request_error',
    readonly code: string | null = null,
    readonly param: string | null = null,
    /** Extra response headers (e.g. retry-after-ms). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): ApiErrorBody {
    return { error: { message: this.message, type: this.type, code: this.code, param: this.param } };
  }
}
