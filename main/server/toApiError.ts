import { z } from 'zod';
import { ApiError } from './apiError.js';
import { InferenceError, QueueFullError } from './inferenceEngine.js';

/** Any thrown value as the API error the client sees (unexpected ones are 500 with their message). */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof QueueFullError) {
    return new ApiError(429, err.message, 'rate_limit_error', 'server_busy', null, {
      'retry-after-ms': String(Math.ceil(err.retryAfterMs)),
      'retry-after': String(Math.ceil(err.retryAfterMs / 1000)),
    });
  }
  if (err instanceof InferenceError) {
    return new ApiError(err.status, err.message, err.status >= 500 ? 'server_error' : 'invalid_request_error', err.code);
  }
  if (err instanceof z.ZodError) return new ApiError(500, `internal error: a value did not match its schema: ${err.message}`);
  return new ApiError(500, `internal error: ${(err as Error)?.message ?? String(err)}`, 'server_error', 'internal_error');
}
