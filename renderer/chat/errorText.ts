/** The message of a thrown value, for showing next to what failed. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
