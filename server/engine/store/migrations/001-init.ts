/** The first schema: accounts core, repositories, files, symbols, import edges, chunks and full-text search. */
export const sql = `
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT UNIQUE,
  display_name TEXT,
  plan TEXT NOT NULL,
  is_owner INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL UNIQUE,
  key_hint TEXT NOT NULL,
  state TEXT NOT NULL,
  is_primary INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  disabled_at TEXT
);
CREATE INDEX api_keys_user ON api_keys(user_id);

CREATE TABLE credit_ledger (
  id INTEGER PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  operation TEXT NOT NULL,
  credits INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX credit_ledger_user ON credit_ledger(user_id, created_at);

CREATE TABLE repos (
  id TEXT PRIMARY KEY,
  url TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  root_path TEXT NOT NULL,
  source TEXT NOT NULL,
  branch TEXT,
  visibility TEXT NOT NULL DEFAULT 'private',
  state TEXT NOT NULL DEFAULT 'queued',
  updating INTEGER NOT NULL DEFAULT 0,
  active INTEGER NOT NULL DEFAULT 1,
  error TEXT,
  files_total INTEGER NOT NULL DEFAULT 0,
  files_done INTEGER NOT NULL DEFAULT 0,
  head_commit TEXT,
  created_at TEXT NOT NULL,
  last_updated TEXT
);

CREATE TABLE user_repos (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  repo_id TEXT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, repo_id)
);

CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  uid TEXT NOT NULL UNIQUE,
  repo_id TEXT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  name TEXT NOT NULL,
  language TEXT,
  size INTEGER NOT NULL,
  lines INTEGER NOT NULL,
  hash TEXT NOT NULL,
  mtime_ms INTEGER NOT NULL,
  description TEXT,
  indexed_at TEXT NOT NULL,
  UNIQUE (repo_id, path)
);

CREATE TABLE symbols (
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  parent TEXT,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  exported INTEGER NOT NULL DEFAULT 0,
  signature TEXT,
  doc TEXT
);
CREATE INDEX symbols_file ON symbols(file_id);
CREATE INDEX symbols_name ON symbols(name);

CREATE TABLE imports (
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  specifier TEXT NOT NULL,
  kind TEXT NOT NULL,
  type_only INTEGER NOT NULL DEFAULT 0,
  target_path TEXT,
  package TEXT,
  names TEXT,
  line INTEGER NOT NULL
);
CREATE INDEX imports_file ON imports(file_id);
CREATE INDEX imports_target ON imports(target_path);
CREATE INDEX imports_package ON imports(package);

CREATE TABLE chunks (
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  symbols TEXT,
  content TEXT NOT NULL
);
CREATE INDEX chunks_file ON chunks(file_id, seq);

-- Contentless: the text lives in chunks; rowid = chunks.id. Bodies carry identifier sub-words.
CREATE VIRTUAL TABLE chunks_fts USING fts5(
  path, symbols, body,
  content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2'
);
`;
