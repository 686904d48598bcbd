/**
 * A2A tasks, kept so that tasks/get answers after a restart. The task itself is stored as the A2A
 * JSON it is served as (it is only ever read whole); the owner column makes a task visible only to
 * the user whose key created it (NULL: created without a key, visible only to callers without one).
 */
export const sql = `
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
