/** Raised when a backend cannot be loaded; the message says what to install. */
export class BackendUnavailableError extends Error {
  override name = 'BackendUnavailableError';
}
