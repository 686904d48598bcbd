/**
 * Accounts, second part: sign-up and sign-in (passwords, one-time codes, sessions), key kinds with
 * expiry (agent credentials, sign-in keys), per-user credit limits, and the query history with
 * its conversations.
 */
export const sql = `
ALTER TABLE users ADD COLUMN password_hash TEXT;
ALTER TABLE users ADD COLUMN verified_at TEXT;
ALTER TABLE users ADD COLUMN profile TEXT;
-- NULL: the plan's allowance. Set by configuration (the owner's balance) or by an operator.
ALTER TABLE users ADD COLUMN credit_limit INTEGER;

-- kind: 'primary' (the user's main key), 'session' (minted at sign-in, expires with the session),
-- 'agent' (a short-lived agent credential minted from another key, which it depends on).
ALTER TABLE api_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'primary';
ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
ALTER TABLE api_keys ADD COLUMN parent_key_id TEXT;
CREATE INDEX api_keys_parent ON api_keys(parent_key_id);

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
CREATE INDEX history_conversation ON history(conversation_id, seq);
`;
