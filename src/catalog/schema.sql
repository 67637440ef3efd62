-- ctx catalog, layout 8 (PRAGMA user_version). Derived data except `boxes`: deleting
-- context.db forces a full rebuild.
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
-- One row per indexed file as of the last committed build.
CREATE TABLE IF NOT EXISTS files (
    path     TEXT PRIMARY KEY,
    size     INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    sha256   TEXT NOT NULL,
    chars    INTEGER NOT NULL,
    notes    TEXT             -- JSON array of what chunking noted, or NULL
);
-- One row per chunk. `gen` is the build generation that wrote the row: rows of a
-- generation above meta.generation belong to a build that died and are removed.
-- The text is bytes [off, off + len) of page `page`.
CREATE TABLE IF NOT EXISTS chunks (
    id         TEXT PRIMARY KEY,
    doc        TEXT NOT NULL,
    ordinal    INTEGER NOT NULL,
    gen        INTEGER NOT NULL,
    scope      TEXT NOT NULL,   -- docs | relay
    kind       TEXT NOT NULL,   -- markdown | code | text | json
    title_path TEXT NOT NULL,   -- JSON array
    title_hash INTEGER NOT NULL,-- hash of the normalized path, for stale-ID lookups
    token_est  INTEGER NOT NULL,
    b0         INTEGER NOT NULL,-- byte range in the source
    b1         INTEGER NOT NULL,
    l0         INTEGER NOT NULL,-- line range in the source
    l1         INTEGER NOT NULL,
    part       TEXT,            -- "i/n" for a part of a split block
    extra      TEXT,            -- JSON {symbol, lang} when the chunk has them
    page       INTEGER NOT NULL,
    off        INTEGER NOT NULL,
    len        INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_doc ON chunks (doc, ordinal);
-- The text of consecutive chunks of one document, LZ4-compressed (size-prefixed)
-- together: the catalog stays well below the size of the sources.
CREATE TABLE IF NOT EXISTS pages (
    id    INTEGER PRIMARY KEY,
    doc   TEXT NOT NULL,
    gen   INTEGER NOT NULL,
    scope TEXT NOT NULL,
    body  BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS pages_by_doc ON pages (doc, gen);
-- Covers the pack's question "which generation is each document at" without
-- reading the page rows (7 ms of a one-file rebuild of a 40 MB pack).
CREATE INDEX IF NOT EXISTS pages_by_scope ON pages (scope, doc, gen);
-- IDs that no longer exist, with where they were, so a stale ID can point to
-- the chunk now at the same document and heading path; `ordinal` (its place
-- in the document) tells apart chunks at one heading path (parts of a split
-- section, two sections headed alike).
CREATE TABLE IF NOT EXISTS retired (
    id         TEXT PRIMARY KEY,
    doc        TEXT NOT NULL,
    title_path TEXT NOT NULL,
    title_hash INTEGER NOT NULL,
    gen        INTEGER NOT NULL,
    ordinal    INTEGER
);
-- Boxed relay values (the value itself is a file under _ctx/relay/<session>/).
CREATE TABLE IF NOT EXISTS boxes (
    id         TEXT PRIMARY KEY,
    session    TEXT NOT NULL,
    tool       TEXT NOT NULL,
    created_ns INTEGER NOT NULL,
    bytes      INTEGER NOT NULL,
    chars      INTEGER NOT NULL,
    tokens     INTEGER NOT NULL,
    lines      INTEGER NOT NULL,
    sha256     TEXT NOT NULL,
    media      TEXT NOT NULL,
    file       TEXT NOT NULL    -- path relative to _ctx/relay/
);
CREATE INDEX IF NOT EXISTS boxes_by_created ON boxes (created_ns);
-- Where each document's chunks and index entries sit in the pack file last
-- written, the generation of those chunks, and the document's digest line: a
-- later build copies documents whose chunks are unchanged instead of reading
-- and serializing them again.
CREATE TABLE IF NOT EXISTS pack_spans (
    doc    TEXT PRIMARY KEY,
    gen    INTEGER NOT NULL,
    off    INTEGER NOT NULL,   -- chunk objects
    len    INTEGER NOT NULL,
    ioff   INTEGER NOT NULL,   -- index entries
    ilen   INTEGER NOT NULL,
    chunks INTEGER NOT NULL,   -- digest: chunk count, tokens, top headings
    tokens INTEGER NOT NULL,
    tops   TEXT NOT NULL       -- JSON array
);
-- Files the last build found but did not index (too large, binary, not UTF-8,
-- generated or minified, unreadable), with why. A file still at this size and
-- mtime is not read again, yet still named in warnings and in "no evidence".
CREATE TABLE IF NOT EXISTS skipped (
    path     TEXT PRIMARY KEY,
    size     INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    kind     TEXT NOT NULL,     -- a WarningKind: too_large, binary, not_utf8, generated, unreadable
    message  TEXT NOT NULL
);
