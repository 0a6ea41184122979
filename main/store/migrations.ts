/**
 * Schema migrations, applied in order inside one transaction each; `PRAGMA user_version` holds
 * the last applied version. Never edit a released migration: add a new one.
 */
export const MIGRATIONS: Array<{ version: number; name: string; sql: string }> = [
  {
    version: 1,
    name: 'sessions and turns',
    sql: `
      CREATE TABLE sessions (
        id            TEXT PRIMARY KEY,
        created_at    INTEGER NOT NULL,              -- ms since epoch
        last_seen_at  INTEGER NOT NULL,
        ended_at      INTEGER,                       -- NULL while open
        end_reason    TEXT CHECK (end_reason IN ('done', 'idle')),
        episode       INTEGER NOT NULL DEFAULT 0     -- +1 each time an ended session is used again
      );

      CREATE TABLE turns (
        id                 TEXT PRIMARY KEY,        -- the chat completion id returned to the client
        session_id         TEXT REFERENCES sessions(id) ON DELETE CASCADE,  -- NULL: no session metadata
        episode            INTEGER NOT NULL DEFAULT 0,
        type               TEXT NOT NULL CHECK (type IN ('main', 'side')),
        created_at         INTEGER NOT NULL,        -- request arrival
        completed_at       INTEGER NOT NULL,
        model              TEXT NOT NULL,
        adapter_version    INTEGER NOT NULL DEFAULT 0,
        request_messages   TEXT NOT NULL,           -- JSON, as received (RL body fields stripped)
        tools              TEXT,                    -- JSON, or NULL
        params             TEXT NOT NULL,           -- JSON: sampling parameters used
        prompt_text        TEXT NOT NULL,           -- the rendered prompt
        prompt_ids         BLOB NOT NULL,           -- int32 little-endian: the exact prompt token ids
        raw_text           TEXT NOT NULL,           -- the generated text before parsing
        response_text      TEXT NOT NULL,           -- the answer (content)
        reasoning_text     TEXT NOT NULL,
        tool_calls         TEXT,                    -- JSON [{id, name, arguments}], or NULL
        response_ids       BLOB NOT NULL,           -- int32: the sampled token ids
        response_logprobs  BLOB NOT NULL,           -- float32: log-prob of each sampled id
        finish_reason      TEXT NOT NULL CHECK (finish_reason IN ('stop', 'length', 'tool_calls', 'abort')),
        prompt_tokens      INTEGER NOT NULL,
        completion_tokens  INTEGER NOT NULL,
        queue_ms           REAL,
        prefill_ms         REAL,
        decode_ms          REAL,
        total_ms           REAL,
        next_state_role    TEXT,                    -- role of the next state (user, tool, ...)
        next_state_text    TEXT,
        next_state_at      INTEGER,                 -- arrival of the request that carried it
        closed             INTEGER NOT NULL DEFAULT 0  -- 1: the session ended; no next state will come
      );

      CREATE INDEX turns_by_session ON turns (session_id, episode, created_at);
      CREATE INDEX turns_by_time ON turns (created_at);
    `,
  },
];
