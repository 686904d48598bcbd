/**
 * The account side of the team server on PostgreSQL, in one first schema: what SQLite keeps in
 * DATA_DIR/accounts.db after its accounts migrations 1–4 (users, keys, the credit ledger with its
 * per-minute rows and totals, one-time codes, sessions, GitHub tokens, history, conversations, A2A
 * tasks), with PostgreSQL's types and constraints.
 *
 * - Times are `timestamptz`; PgDb returns them as the same ISO text the SQLite stores return.
 * - Tables whose SQLite listings break ties by `rowid` (history, one-time codes) have an identity
 *   column `ord` for the same order; the stores never return it.
 * - `credit_totals` is kept by row triggers on the ledger, as on SQLite: every insert, upsert,
 *   update and delete adjusts the user's one totals row, and the row lock that UPDATE takes
 *   serialises concurrent charges from any number of nodes. Every user gets a totals row when it is
 *   created, so a balance check can lock it (`SELECT … FOR UPDATE`, PgAccountsStore.creditsUsed in
 *   a transaction) before its first charge.
 * - One owner at most: two nodes starting at once cannot both create one.
 */
export const sql = `
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT UNIQUE,
  display_name TEXT,
  plan TEXT NOT NULL,
  is_owner INTEGER NOT NULL DEFAULT 0 CHECK (is_owner IN (0, 1)),
  created_at TIMESTAMPTZ NOT NULL,
  password_hash TEXT,
  verified_at TIMESTAMPTZ,
  profile TEXT,
  -- NULL: the plan's allowance. Set by configuration (the owner's balance) or by an operator.
  credit_limit BIGINT CHECK (credit_limit >= 0),
  -- Set when a code mailed to the address was entered.
  email_proven_at TIMESTAMPTZ
);
CREATE UNIQUE INDEX users_one_owner ON users (is_owner) WHERE is_owner = 1;

-- kind: 'primary' (the user's main key), 'session' (minted at sign-in, expires with the session),
-- 'agent' (a short-lived agent credential minted from another key, which it depends on).
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL UNIQUE,
  key_hint TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('agent_pending', 'active', 'disabled')),
  is_primary INTEGER NOT NULL DEFAULT 1 CHECK (is_primary IN (0, 1)),
  created_at TIMESTAMPTZ NOT NULL,
  last_used_at TIMESTAMPTZ,
  disabled_at TIMESTAMPTZ,
  kind TEXT NOT NULL DEFAULT 'primary' CHECK (kind IN ('primary', 'session', 'agent')),
  expires_at TIMESTAMPTZ,
  parent_key_id TEXT
);
CREATE INDEX api_keys_user ON api_keys (user_id, created_at);
CREATE INDEX api_keys_parent ON api_keys (parent_key_id) WHERE parent_key_id IS NOT NULL;
CREATE INDEX api_keys_expiring ON api_keys (expires_at) WHERE kind IN ('agent', 'session');

-- One row per user, operation and UTC minute (period 'YYYY-MM-DDTHH:MM'), merged into one per day
-- ('YYYY-MM-DD') past the statistics window; NULL: a row of one call (copied from an old SQLite ledger).
CREATE TABLE credit_ledger (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  operation TEXT NOT NULL,
  credits BIGINT NOT NULL CHECK (credits >= 0),
  created_at TIMESTAMPTZ NOT NULL,
  calls INTEGER NOT NULL DEFAULT 1 CHECK (calls >= 0),
  period TEXT CHECK (period ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2})?$'),
  -- NULLs are distinct: rows without a period never conflict, as with SQLite's partial index.
  CONSTRAINT credit_ledger_period UNIQUE (user_id, operation, period)
);
CREATE INDEX credit_ledger_user ON credit_ledger (user_id, created_at);
CREATE INDEX credit_ledger_time ON credit_ledger (created_at);

-- The credits each user has used: one row, so reading (and locking) a balance is one row.
CREATE TABLE credit_totals (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  used BIGINT NOT NULL DEFAULT 0
);

CREATE FUNCTION loupe_user_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO credit_totals (user_id, used) VALUES (NEW.id, 0) ON CONFLICT (user_id) DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER users_totals AFTER INSERT ON users FOR EACH ROW EXECUTE FUNCTION loupe_user_totals();

CREATE FUNCTION loupe_ledger_total() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO credit_totals (user_id, used) VALUES (NEW.user_id, NEW.credits)
    ON CONFLICT (user_id) DO UPDATE SET used = credit_totals.used + EXCLUDED.used;
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE credit_totals SET used = used + NEW.credits - OLD.credits WHERE user_id = NEW.user_id;
  ELSE
    UPDATE credit_totals SET used = used - OLD.credits WHERE user_id = OLD.user_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER credit_ledger_total AFTER INSERT OR DELETE OR UPDATE OF credits ON credit_ledger
  FOR EACH ROW EXECUTE FUNCTION loupe_ledger_total();

CREATE TABLE otp_codes (
  ord BIGINT GENERATED ALWAYS AS IDENTITY,
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose TEXT NOT NULL CHECK (purpose IN ('signup', 'signin')),
  code_hash TEXT NOT NULL,
  key_id TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  expires_at TIMESTAMPTZ NOT NULL,
  consumed_at TIMESTAMPTZ,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX otp_codes_email ON otp_codes (email, created_at DESC, ord DESC);
CREATE INDEX otp_codes_created ON otp_codes (created_at);

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  key_id TEXT,
  expires_at TIMESTAMPTZ NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

-- Sealed with the server's key (accounts/github-tokens.ts); only the last four characters readable.
CREATE TABLE github_tokens (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  sealed TEXT NOT NULL,
  hint TEXT NOT NULL,
  login TEXT,
  linked_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE conversations (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX conversations_user ON conversations (user_id, updated_at);

CREATE TABLE history (
  ord BIGINT GENERATED ALWAYS AS IDENTITY,
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  conversation_id TEXT REFERENCES conversations(id) ON DELETE SET NULL,
  seq INTEGER NOT NULL DEFAULT 0,
  category TEXT NOT NULL,
  operation TEXT NOT NULL,
  query TEXT,
  -- A JSON array, kept as the text the engine wrote (it is read whole).
  repo_ids TEXT NOT NULL DEFAULT '[]',
  summary TEXT,
  result TEXT,
  credits INTEGER NOT NULL DEFAULT 0,
  duration_ms INTEGER NOT NULL DEFAULT 0,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX history_user_time ON history (user_id, created_at DESC, ord DESC);
CREATE INDEX history_time ON history (created_at);
-- Most rows stand alone: only the rows of a conversation are indexed by it.
CREATE INDEX history_conversation ON history (conversation_id, seq) WHERE conversation_id IS NOT NULL;

-- A2A tasks, kept so that tasks/get answers after a restart (and on any node); visible only to the
-- user whose key created them (NULL: created without a key).
CREATE TABLE a2a_tasks (
  id TEXT PRIMARY KEY,
  owner_user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  context_id TEXT NOT NULL,
  state TEXT NOT NULL,
  -- The task as the A2A JSON it is served as, kept as text (it is only ever read whole).
  task_json TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX a2a_tasks_owner ON a2a_tasks (owner_user_id, updated_at);
CREATE INDEX a2a_tasks_context ON a2a_tasks (context_id);
CREATE INDEX a2a_tasks_state ON a2a_tasks (state);
CREATE INDEX a2a_tasks_updated ON a2a_tasks (updated_at);
`;
