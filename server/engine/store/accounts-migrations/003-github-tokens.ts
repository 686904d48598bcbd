/**
 * A GitHub token each user may link (PUT /v2/keys/github-token) for their private repositories.
 * Stored encrypted (AES-256-GCM, the key in DATA_DIR/token-key, not in this file): a copy of
 * accounts.db alone does not hold a usable token. Only the last four characters stay readable.
 */
export const sql = `
CREATE TABLE github_tokens (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  sealed TEXT NOT NULL,
  hint TEXT NOT NULL,
  login TEXT,
  linked_at TEXT NOT NULL
);
`;
