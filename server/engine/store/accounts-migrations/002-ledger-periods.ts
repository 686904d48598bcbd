/**
 * The ledger stops growing with every call. A charge now adds to its user's row for that operation
 * and UTC minute (`period`, `calls`), so a client polling a listing thousands of times a minute adds
 * one row a minute, not one per call; rows older than the statistics window are later merged into
 * one row per day (`compactLedger`). The balance (`credit_totals`) stays exact: the update trigger
 * adds what an update adds. Rows written before this migration keep `period` NULL (one call each).
 */
export const sql = `
ALTER TABLE credit_ledger ADD COLUMN calls INTEGER NOT NULL DEFAULT 1;
-- 'YYYY-MM-DDTHH:MM' for a minute's charges, 'YYYY-MM-DD' for a compacted day; NULL for a row of one call.
ALTER TABLE credit_ledger ADD COLUMN period TEXT;
CREATE UNIQUE INDEX credit_ledger_period ON credit_ledger(user_id, operation, period) WHERE period IS NOT NULL;
CREATE TRIGGER credit_ledger_total_update AFTER UPDATE OF credits ON credit_ledger BEGIN
  UPDATE credit_totals SET used = used + NEW.credits - OLD.credits WHERE user_id = NEW.user_id;
END;
`;
