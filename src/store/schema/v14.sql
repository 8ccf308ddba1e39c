-- v14: the search index merges a level of its b-tree segments as soon as it holds four. Each
-- write of an entry adds a small segment; FTS5's own incremental merging runs only every 64 pages
-- written, so single writes left up to 15 one-page segments at the lowest level, and every search
-- reads each segment for each trigram of its needle. Merging four small segments costs a write
-- little; a rare merge of large ones takes one write longer. Idempotent: a v14 store that lost
-- its version row reads as v12 by its shape, and runs this step again.
INSERT INTO entries_fts (entries_fts, rank) VALUES ('crisismerge', 4);
