/**
 * A running total of credits used per user, kept by a trigger on the ledger so that every code path
 * that charges keeps it exact. Reading a balance is then one row instead of a sum over the whole
 * ledger, which grew with every paid call and slowed every response that reports `meta`.
 */
export const sql = `
CREATE TABLE credit_totals (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  used INTEGER NOT NULL DEFAULT 0
);
INSERT INTO credit_totals (user_id, used) SELECT user_id, sum(credits) FROM credit_ledger GROUP BY user_id;
CREATE TRIGGER credit_ledger_total AFTER INSERT ON credit_ledger BEGIN
  INSERT INTO credit_totals (user_id, used) VALUES (NEW.user_id, NEW.credits)
  ON CONFLICT (user_id) DO UPDATE SET used = used + NEW.credits;
END;
CREATE TRIGGER credit_ledger_total_delete AFTER DELETE ON credit_ledger BEGIN
  UPDATE credit_totals SET used = used - OLD.credits WHERE user_id = OLD.user_id;
END;
`;
