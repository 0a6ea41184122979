/**
 * A recorded session's name as people read it: the title given to it (Chat's rename, Compare's
 * "Compare v4 vs v0 · A · …"), else its first message as Chat's list shows it; the id only when
 * neither exists (a client that never sent a user message). Ids stay secondary text.
 */
import type { SessionInfo } from '../api/contract.js';

export const UNATTACHED_SESSION = 'unknown';

export function sessionName(s: Pick<SessionInfo, 'id' | 'title' | 'preview'>): string {
  if (s.id === UNATTACHED_SESSION) return 'Requests without a session';
  return s.title || s.preview || s.id;
}
