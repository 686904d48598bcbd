/**
 * A model's trained_chunks and created_at without its data: both columns come after `data` (megabytes),
 * so reading them from the table walks every overflow page of the model (254–292 ms on payload's 15 MB
 * model at load 28, on the thread that answers, at the first derived step after every start). This index
 * holds them beside the id; `SqliteVectorsStore.models` reads them from it (`INDEXED BY`): 0.2–0.4 ms.
 */
export const sql = `
CREATE INDEX embedding_models_tail ON embedding_models (id, trained_chunks, created_at);
`;
