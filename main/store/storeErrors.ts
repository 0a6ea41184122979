/** The row a request names does not exist. */
export class NotFoundError extends Error {
  override name = 'NotFoundError';
}

/** The change conflicts with what already happened (e.g. feedback on a turn already trained on). */
export class ConflictError extends Error {
  override name = 'ConflictError';
}
