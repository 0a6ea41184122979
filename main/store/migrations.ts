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
  {
    version: 2,
    name: 'learning: feedback, judgements, samples, steps, checkpoints',
    sql: `
      -- Where each main turn stands in the learning loop: 'new' (not processed yet), 'done'
      -- (judged, samples built), 'skipped' (no signal). learn_epoch changes with every feedback
      -- change, so a judgement started on stale feedback is not committed.
      ALTER TABLE turns ADD COLUMN learn_state TEXT NOT NULL DEFAULT 'new' CHECK (learn_state IN ('new', 'done', 'skipped'));
      ALTER TABLE turns ADD COLUMN learn_epoch INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE turns ADD COLUMN learn_note TEXT;   -- why a turn was skipped (e.g. the judge could not read it)

      CREATE TABLE feedback (
        turn_id     TEXT PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
        rating      TEXT CHECK (rating IN ('up', 'down')),
        hint        TEXT,
        updated_at  INTEGER NOT NULL
      );

      CREATE TABLE judgements (
        id          INTEGER PRIMARY KEY,
        turn_id     TEXT NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
        kind        TEXT NOT NULL CHECK (kind IN ('prm', 'hint')),
        judge       TEXT NOT NULL,               -- which judge (base model, model folder, endpoint)
        votes       TEXT NOT NULL,               -- JSON [{raw, score, hint?}]
        score       INTEGER,                     -- prm: the majority
        hint        TEXT,                        -- hint: the selected hint
        created_at  INTEGER NOT NULL
      );
      CREATE INDEX judgements_by_turn ON judgements (turn_id, kind);

      CREATE TABLE samples (
        id                    INTEGER PRIMARY KEY,
        turn_id               TEXT NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
        kind                  TEXT NOT NULL CHECK (kind IN ('rl', 'opd', 'both')),
        reward                REAL,              -- r of the RL part; NULL without one
        reward_source         TEXT CHECK (reward_source IN ('feedback', 'prm', 'at_least_one')),
        hint                  TEXT,              -- the OPD hint; NULL without one
        hint_source           TEXT CHECK (hint_source IN ('feedback', 'judge')),
        teacher_logprobs      BLOB,              -- float32 per response token
        teacher_top_ids       BLOB,              -- int32 [response tokens, top_k] (reverse-KL option)
        teacher_top_logprobs  BLOB,              -- float32 [response tokens, top_k]
        top_k                 INTEGER,
        adapter_version       INTEGER NOT NULL,  -- the version that generated the turn
        status                TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'training', 'trained', 'dropped')),
        drop_reason           TEXT,
        step                  INTEGER,
        created_at            INTEGER NOT NULL
      );
      CREATE INDEX samples_by_status ON samples (status, id);
      CREATE INDEX samples_by_turn ON samples (turn_id);

      CREATE TABLE checkpoints (
        id               TEXT PRIMARY KEY,       -- step-000012
        step             INTEGER NOT NULL,
        adapter_version  INTEGER NOT NULL,
        parent_id        TEXT,                   -- the checkpoint training continued from
        created_at       INTEGER NOT NULL,
        metrics          TEXT NOT NULL,          -- JSON StepMetrics
        samples          TEXT NOT NULL,          -- JSON {rl, opd, both, total}
        lora             TEXT NOT NULL,          -- JSON LoRA configuration
        pinned           INTEGER NOT NULL DEFAULT 0
      );

      CREATE TABLE steps (
        step             INTEGER PRIMARY KEY,
        created_at       INTEGER NOT NULL,
        adapter_version  INTEGER,                -- NULL when skipped
        checkpoint_id    TEXT,
        skipped          INTEGER NOT NULL DEFAULT 0,
        skip_reason      TEXT,
        metrics          TEXT NOT NULL
      );

      CREATE TABLE adapter_versions (
        version        INTEGER PRIMARY KEY,
        checkpoint_id  TEXT,                     -- NULL: the base model
        reason         TEXT NOT NULL CHECK (reason IN ('base', 'step', 'rollback')),
        created_at     INTEGER NOT NULL
      );
      INSERT INTO adapter_versions (version, checkpoint_id, reason, created_at) VALUES (0, NULL, 'base', 0);

      CREATE TABLE trainer_state (
        id                  INTEGER PRIMARY KEY CHECK (id = 1),
        config              TEXT,                -- JSON TrainingConfig (NULL: defaults)
        paused              INTEGER NOT NULL DEFAULT 0,
        live_version        INTEGER NOT NULL DEFAULT 0,
        live_checkpoint_id  TEXT,                -- NULL: the base model
        last_step           INTEGER NOT NULL DEFAULT 0
      );
      INSERT INTO trainer_state (id) VALUES (1);
    `,
  },
  {
    version: 3,
    name: 'event log and session titles',
    sql: `
      -- The live event stream (GET /api/events), kept so a client that reconnects with
      -- Last-Event-ID gets what it missed, also across restarts. Pruned to the last 10,000 events
      -- or the last hour, whichever keeps more.
      CREATE TABLE events (
        id    INTEGER PRIMARY KEY,               -- the SSE id: increasing, never reused
        at    INTEGER NOT NULL,                  -- ms since epoch
        name  TEXT NOT NULL,                     -- turn.captured, train.step, ...
        data  TEXT NOT NULL                      -- JSON
      );
      CREATE INDEX events_by_time ON events (at);

      ALTER TABLE sessions ADD COLUMN title TEXT;  -- a name the user gave the conversation
    `,
  },
  {
    version: 4,
    name: 'step lineage',
    sql: `
      -- The step whose checkpoint this step trained from (NULL: the base model). Steps are never
      -- deleted, so what a live adapter learned can be traced even after retention removed the
      -- checkpoints in between.
      ALTER TABLE steps ADD COLUMN parent_step INTEGER;
      UPDATE steps SET parent_step = (
        SELECT p.step FROM checkpoints c JOIN checkpoints p ON p.id = c.parent_id WHERE c.id = steps.checkpoint_id
      );
    `,
  },
  {
    version: 5,
    name: 'competence gate',
    sql: `
      -- The competence gate's verdict on a checkpoint: JSON {accuracy, n, held_back, reason, seconds};
      -- NULL when it was not checked (the gate was off).
      ALTER TABLE checkpoints ADD COLUMN competence TEXT;
      -- Which prompts the verdict is on (competence set hash : prompts : max tokens); verdicts are
      -- compared only within one key.
      ALTER TABLE checkpoints ADD COLUMN competence_key TEXT;
      -- 1 while a saved checkpoint waits for the gate (not live yet); a restart checks it again.
      ALTER TABLE checkpoints ADD COLUMN gate_pending INTEGER NOT NULL DEFAULT 0;
      -- The accuracy a new checkpoint is compared with: the best of the base model and every
      -- checkpoint that went live, on the current key. JSON {key, accuracy, source}; NULL: not measured yet.
      ALTER TABLE trainer_state ADD COLUMN competence_reference TEXT;
    `,
  },
  {
    version: 6,
    name: 'teacher rollouts',
    sql: `
      -- A sample whose response is not its turn's: an answer the OPD teacher wrote itself
      -- (teacher_rollouts). int32 token ids and float32 log π_old of each, under the policy that
      -- was live when it was written; NULL: the sample trains on its turn's response.
      ALTER TABLE samples ADD COLUMN response_ids BLOB;
      ALTER TABLE samples ADD COLUMN response_logprobs BLOB;
    `,
  },
  {
    version: 7,
    name: 'policy rollouts',
    sql: `
      -- Who wrote a sample's own response: 'teacher' (teacher_rollouts) or 'policy'
      -- (policy_rollouts); NULL: the sample trains on its turn's response. Rollouts stored before
      -- this were all the teacher's.
      ALTER TABLE samples ADD COLUMN response_writer TEXT CHECK (response_writer IN ('teacher', 'policy'));
      UPDATE samples SET response_writer = 'teacher' WHERE response_ids IS NOT NULL;
    `,
  },
  {
    version: 8,
    name: 'rejected judge hints',
    sql: `
      -- 1: the user rejected the hint judge's hint for this turn; it trains on its rating alone.
      ALTER TABLE feedback ADD COLUMN judge_hint_rejected INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 9,
    name: 'checkpoint names and notes',
    sql: `
      -- What the user calls a checkpoint ("before the French lessons") and a note on it; NULL: none.
      ALTER TABLE checkpoints ADD COLUMN name TEXT;
      ALTER TABLE checkpoints ADD COLUMN note TEXT;
    `,
  },
];
