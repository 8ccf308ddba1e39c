-- v11: audit rows record the keys and tags of the entry (or proposal) they approve, so the
-- ledger accounts for every field of every entry; the chain's head is recorded with every
-- append. The entries the ledger does not yet account for in full are adopted (an `adopt` row
-- each): a store is trusted as it was when it was upgraded, and only then.
ALTER TABLE audit ADD COLUMN fields TEXT;
