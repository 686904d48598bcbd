/**
 * Most history rows stand alone (no conversation). Indexing only the rows of a conversation keeps
 * every paid call from writing one more index page at commit; thread and sequence lookups
 * (`conversation_id = ?`) use the partial index all the same.
 */
export const sql = `
DROP INDEX history_conversation;
CREATE INDEX history_conversation ON history(conversation_id, seq) WHERE conversation_id IS NOT NULL;
`;
