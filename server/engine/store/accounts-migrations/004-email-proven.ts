/**
 * When a user's address was proven by a code mailed to it (a code sign-up or sign-in). A password
 * sign-up is usable at once but proves nothing about the address, so what is granted by address (a
 * folder the owner shares, accounts.json `sharedFolders`) waits for the proof.
 */
export const sql = `
ALTER TABLE users ADD COLUMN email_proven_at TEXT;
`;
