// M — store versions (spec §1): stores of schema v1..v4 (the reference provider's SQLite shapes)
// migrate forward with their data; a newer schema_version is refused loudly
// (STORE_UNSUPPORTED_VERSION); an unreadable file is STORE_CORRUPT and is never overwritten.
//
// Building old stores needs raw SQLite (ctx.sqlite: a `sqlite` export of the provider module,
// node:sqlite, the sqlite3 shell or python3). Without one, those cases report `skip`.
import { randomUUID } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { assert, rejects, standardWrite } from '../lib.mjs'

const V1 = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entries (
  id TEXT PRIMARY KEY,
  track TEXT NOT NULL CHECK (track IN ('user','agent')),
  scope TEXT NOT NULL CHECK (scope IN ('user-global','workspace')),
  workspace_key TEXT NOT NULL DEFAULT '',
  text TEXT NOT NULL,
  source TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  session_id TEXT
);
CREATE INDEX entries_track_scope ON entries (track, scope);
CREATE TABLE audit (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  ts INTEGER NOT NULL,
  action TEXT NOT NULL,
  track TEXT, scope TEXT, entry_id TEXT, text TEXT, outcome TEXT, source TEXT, session_id TEXT
);
CREATE INDEX audit_ts ON audit (ts);
`
const V2 = `
CREATE TABLE proposals (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  track TEXT NOT NULL,
  scope TEXT NOT NULL,
  workspace_key TEXT NOT NULL DEFAULT '',
  text TEXT NOT NULL,
  source TEXT NOT NULL,
  session_id TEXT,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','approved','dismissed')),
  created_at INTEGER NOT NULL,
  decided_at INTEGER,
  UNIQUE (session_id, kind)
);
CREATE INDEX proposals_status ON proposals (status);
`
const V3 = `
ALTER TABLE entries ADD COLUMN agent_key TEXT NOT NULL DEFAULT '';
ALTER TABLE entries ADD COLUMN last_recalled INTEGER;
ALTER TABLE entries ADD COLUMN recall_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE proposals ADD COLUMN agent_key TEXT NOT NULL DEFAULT '';
`
const V4 = `
ALTER TABLE entries ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE entries ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
`

function schemaSql(version) {
  const steps = [V1, V2, V3, V4].slice(0, Math.min(version, 4)).join('\n')
  return `${steps}\nINSERT INTO meta (key, value) VALUES ('schema_version', '${version}');\n`
}

const q = (s) => `'${String(s).replaceAll("'", "''")}'`

/** Builds a store of `version` holding three entries and one audit row; returns the fixture. */
export async function buildStore(sqlite, file, version) {
  const t0 = 1_700_000_000_000
  const rows = [
    {
      id: randomUUID(),
      track: 'user',
      scope: 'user-global',
      ws: '',
      text: 'legacy user fact',
      source: 'dsh-memento',
      c: t0,
      u: t0 + 5,
      s: 'old-session',
    },
    {
      id: randomUUID(),
      track: 'agent',
      scope: 'workspace',
      ws: '/legacy/ws',
      text: 'legacy workspace fact',
      source: 'memory-tool',
      c: t0 + 10,
      u: t0 + 10,
      s: null,
    },
    {
      id: randomUUID(),
      track: 'agent',
      scope: 'user-global',
      ws: '',
      text: 'legacy 中文 fact 😀',
      source: 'claude',
      c: t0 + 20,
      u: t0 + 30,
      s: 'old-session',
    },
  ]
  let sql = schemaSql(version)
  for (const r of rows) {
    const cols = ['id', 'track', 'scope', 'workspace_key', 'text', 'source', 'created_at', 'updated_at', 'session_id']
    const vals = [q(r.id), q(r.track), q(r.scope), q(r.ws), q(r.text), q(r.source), r.c, r.u, r.s === null ? 'NULL' : q(r.s)]
    if (version >= 3) {
      cols.push('agent_key', 'last_recalled', 'recall_count')
      vals.push(q(r.track === 'agent' ? 'legacy-agent' : ''), r === rows[0] ? t0 + 100 : 'NULL', r === rows[0] ? 3 : 0)
    }
    if (version >= 4) {
      cols.push('tags', 'version')
      vals.push(q(r === rows[0] ? '["legacy","kept"]' : '[]'), r === rows[0] ? 2 : 1)
    }
    sql += `INSERT INTO entries (${cols.join(', ')}) VALUES (${vals.join(', ')});\n`
  }
  sql += `INSERT INTO audit (ts, action, track, scope, entry_id, text, outcome, source, session_id) VALUES (${t0}, 'add', 'user', 'user-global', ${q(rows[0].id)}, 'legacy user fact', 'allowed-once (via approval, writePolicy ask)', 'dsh-memento', 'old-session');\n`
  await sqlite.exec(file, sql)
  return rows
}

function migrationCase(version) {
  return {
    id: `M${version}`,
    title: `migration from schema v${version}: the store opens, keeps its entries and audit, accepts writes, and reopens`,
    async run({ makeProvider, dbPath, sqlite, skip }) {
      if (!sqlite) skip('no raw SQLite available (node:sqlite, sqlite3 shell, python3, or a `sqlite` export of the provider module)')
      const rows = await buildStore(sqlite, dbPath, version)
      const write = standardWrite()
      const p = await makeProvider({ dbPath })
      const list = p.listEntries()
      assert.equal(list.length, 3, 'every legacy entry is kept')
      const byId = new Map(list.map((e) => [e.id, e]))
      for (const r of rows) {
        const e = byId.get(r.id)
        assert.ok(e, `legacy entry ${r.text} is present with its id`)
        assert.equal(e.track, r.track)
        assert.equal(e.scope, r.scope)
        assert.equal(e.text, r.text)
        assert.equal(e.source, r.source)
        assert.equal(e.createdAt, r.c)
        assert.equal(e.updatedAt, r.u)
        assert.equal(e.sessionId, r.s)
        if (r.scope === 'workspace') assert.equal(e.workspaceKey, r.ws)
        assert.ok(Array.isArray(e.tags))
        assert.ok(Number.isInteger(e.version) && e.version >= 1)
        assert.ok(Number.isInteger(e.recallCount))
      }
      const first = byId.get(rows[0].id)
      if (version < 3) {
        for (const e of list) {
          assert.equal(e.agentKey, '', 'pre-v3 entries belong to the shared layer')
          assert.equal(e.recallCount, 0)
          assert.equal(e.lastRecalled, null)
        }
      } else {
        assert.equal(byId.get(rows[1].id).agentKey, 'legacy-agent')
        assert.equal(first.recallCount, 3)
        assert.equal(first.lastRecalled, 1_700_000_000_100)
      }
      if (version < 4) {
        for (const e of list) {
          assert.deepEqual(e.tags, [], 'pre-v4 entries have no tags')
          assert.equal(e.version, 1, 'pre-v4 entries start at version 1')
        }
      } else {
        assert.deepEqual(first.tags, ['legacy', 'kept'])
        assert.equal(first.version, 2)
      }
      const legacyAudit = p.auditList(100).find((r) => r.entryId === rows[0].id && r.action === 'add')
      assert.ok(legacyAudit, 'the legacy audit row is kept')
      assert.equal(legacyAudit.text, 'legacy user fact')
      assert.equal(p.budgets()[0].used, 'legacy user fact'.length, 'legacy entries count against the budget')

      const r = await p.replace({ track: 'user', scope: 'user-global', match: 'legacy user', text: 'legacy user fact, revised' }, write)
      assert.equal(r.entry.id, rows[0].id)
      assert.equal(r.entry.version, version < 4 ? 2 : 3)
      const added = await p.add({ track: 'agent', scope: 'user-global', text: 'post-migration fact', tags: ['new'] }, write)
      assert.deepEqual(added.entry.tags, ['new'])
      const after = p.listEntries()
      await p.close?.()

      const again = await makeProvider({ dbPath })
      assert.deepEqual(again.listEntries(), after, 'the migrated store reopens with the same entries')
      await again.close?.()
      const meta = await sqlite.get(dbPath, "SELECT value FROM meta WHERE key = 'schema_version'")
      assert.ok(meta && Number(meta.value) >= 4, `schema_version moved forward (got ${JSON.stringify(meta)})`)
    },
  }
}

export default [
  migrationCase(1),
  migrationCase(2),
  migrationCase(3),
  migrationCase(4),
  {
    id: 'M5',
    title: 'a newer schema_version (99) → STORE_UNSUPPORTED_VERSION {path}; the store is not touched',
    async run({ makeProvider, dbPath, sqlite, skip }) {
      if (!sqlite) skip('no raw SQLite available to build a v99 store')
      const rows = await buildStore(sqlite, dbPath, 4)
      await sqlite.exec(dbPath, "UPDATE meta SET value = '99' WHERE key = 'schema_version';")
      const err = await rejects(async () => {
        const p = await makeProvider({ dbPath })
        p.listEntries()
      }, 'STORE_UNSUPPORTED_VERSION')
      assert.equal(typeof err.details.path, 'string', 'details.path names the store')
      assert.equal(path.resolve(err.details.path), path.resolve(dbPath))
      const meta = await sqlite.get(dbPath, "SELECT value FROM meta WHERE key = 'schema_version'")
      assert.equal(meta?.value, '99', 'never downgraded')
      const count = await sqlite.get(dbPath, 'SELECT count(*) AS n FROM entries')
      assert.equal(Number(count?.n), rows.length, 'entries untouched')
    },
  },
  {
    id: 'M6',
    title: 'a non-SQLite file → STORE_CORRUPT {path}; the file bytes are unchanged',
    async run({ makeProvider, dbPath }) {
      const bytes = Buffer.from('this is not a SQLite database, it is a text file that happens to sit at the store path\n'.repeat(100))
      await writeFile(dbPath, bytes)
      const err = await rejects(async () => {
        const p = await makeProvider({ dbPath })
        p.listEntries()
      }, 'STORE_CORRUPT')
      assert.equal(typeof err.details.path, 'string')
      assert.equal(path.resolve(err.details.path), path.resolve(dbPath))
      const now = await readFile(dbPath)
      assert.ok(now.equals(bytes), 'the unreadable file is never overwritten')
    },
  },
  {
    id: 'M7',
    title: 'a file with a SQLite header but garbage pages → STORE_CORRUPT {path}; bytes unchanged',
    async run({ makeProvider, dbPath }) {
      const bytes = Buffer.alloc(8192, 0xa5)
      Buffer.from('SQLite format 3\0', 'latin1').copy(bytes, 0)
      await writeFile(dbPath, bytes)
      const err = await rejects(async () => {
        const p = await makeProvider({ dbPath })
        p.listEntries()
        await p.add({ track: 'user', scope: 'user-global', text: 'x' }, standardWrite())
      }, 'STORE_CORRUPT')
      assert.equal(path.resolve(err.details.path), path.resolve(dbPath))
      const now = await readFile(dbPath)
      assert.ok(now.equals(bytes), 'the unreadable file is never overwritten')
    },
  },
]
