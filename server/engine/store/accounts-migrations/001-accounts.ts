/**
 * The accounts database (DATA_DIR/accounts.db), first schema: what the index file held until its
 * migration 14 (users, keys, the credit ledger and its totals, one-time codes, sessions, history,
 * conversations, A2A tasks), in its latest shape. None of it can be rebuilt from the folders, so it
 * lives apart from the index, which can.
 */
export const sql = `
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT UNIQUE,
  display_name TEXT,
  plan TEXT NOT NULL,
  is_owner INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  password_hash TEXT,
  verified_at TEXT,
  profile TEXT,
  -- NULL: the plan's allowance. Set by configuration (the owner's balance) or by an operator.
  credit_limit INTEGER
);

-- kind: 'primary' (the user's main key), 'session' (minted at sign-in, expires with the session),
-- 'agent' (a short-lived agent credential minted from another key, which it depends on).
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL UNIQUE,
  key_hint TEXT NOT NULL,
  state TEXT NOT NULL,
  is_primary INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  disabled_at TEXT,
  kind TEXT NOT NULL DEFAULT 'primary',
  expires_at TEXT,
  parent_key_id TEXT
);
CREATE INDEX api_keys_user ON api_keys(user_id);
CREATE INDEX api_keys_parent ON api_keys(parent_key_id);

CREATE TABLE credit_ledger (
  id INTEGER PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  operation TEXT NOT NULL,
  credits INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX credit_ledger_user ON credit_ledger(user_id, created_at);

-- A running total per user, kept by triggers so that reading a balance is one row.
CREATE TABLE credit_totals (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  used INTEGER NOT NULL DEFAULT 0
);
CREATE TRIGGER credit_ledger_total AFTER INSERT ON credit_ledger BEGIN
  INSERT INTO credit_totals (user_id, used) VALUES (NEW.user_id, NEW.credits)
  ON CONFLICT (user_id) DO UPDATE SET used = used + NEW.credits;
END;
CREATE TRIGGER credit_ledger_total_delete AFTER DELETE ON credit_ledger BEGIN
  UPDATE credit_totals SET used = used - OLD.credits WHERE user_id = OLD.user_id;
END;

CREATE TABLE otp_codes (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose TEXT NOT NULL,
  code_hash TEXT NOT NULL,
  key_id TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  expires_at TEXT NOT NULL,
  consumed_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX otp_codes_email ON otp_codes(email, created_at);

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  key_id TEXT,
  expires_at TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);

CREATE TABLE conversations (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX conversations_user ON conversations(user_id, updated_at);

CREATE TABLE history (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  conversation_id TEXT REFERENCES conversations(id) ON DELETE SET NULL,
  seq INTEGER NOT NULL DEFAULT 0,
  category TEXT NOT NULL,
  operation TEXT NOT NULL,
  query TEXT,
  repo_ids TEXT NOT NULL DEFAULT '[]',
  summary TEXT,
  result TEXT,
  credits INTEGER NOT NULL DEFAULT 0,
  duration_ms INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE INDEX history_user_time ON history(user_id, created_at);
-- Most rows stand alone: only the rows of a conversation are indexed by it.
CREATE INDEX history_conversation ON history(conversation_id, seq) WHERE conversation_id IS NOT NULL;

-- A2A tasks, kept so that tasks/get answers after a restart; visible only to the user whose key
-- created them (NULL: created without a key).
CREATE TABLE a2a_tasks (
  id TEXT PRIMARY KEY,
  owner_user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  context_id TEXT NOT NULL,
  state TEXT NOT NULL,
  task_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX a2a_tasks_owner ON a2a_tasks(owner_user_id, updated_at);
CREATE INDEX a2a_tasks_context ON a2a_tasks(context_id);
`;

/** The tables above, parents first: the order to copy rows in (and the reverse, to drop them). */
export const TABLES: { name: string; columns: string[] }[] = [
  { name: 'users', columns: ['id', 'email', 'display_name', 'plan', 'is_owner', 'created_at', 'password_hash', 'verified_at', 'profile', 'credit_limit'] },
  { name: 'api_keys', columns: ['id', 'user_id', 'key_hash', 'key_hint', 'state', 'is_primary', 'created_at', 'last_used_at', 'disabled_at', 'kind', 'expires_at', 'parent_key_id'] },
  { name: 'credit_ledger', columns: ['id', 'user_id', 'operation', 'credits', 'created_at'] },
  { name: 'otp_codes', columns: ['id', 'email', 'user_id', 'purpose', 'code_hash', 'key_id', 'attempts', 'expires_at', 'consumed_at', 'created_at'] },
  { name: 'sessions', columns: ['id', 'user_id', 'token_hash', 'key_id', 'expires_at', 'created_at'] },
  { name: 'conversations', columns: ['id', 'user_id', 'title', 'created_at', 'updated_at'] },
  { name: 'history', columns: ['id', 'user_id', 'conversation_id', 'seq', 'category', 'operation', 'query', 'repo_ids', 'summary', 'result', 'credits', 'duration_ms', 'created_at'] },
  { name: 'a2a_tasks', columns: ['id', 'owner_user_id', 'context_id', 'state', 'task_json', 'created_at', 'updated_at'] },
];
