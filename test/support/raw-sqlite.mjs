// Raw SQL on a store file, as an attacker with the file would run it: a system SQLite when it
// can open our schema (its FTS5 index needs SQLite >= 3.43), else the crate's own bundled
// SQLite through `cargo run --example sql` (the build `npm run test:rust` leaves). `null` when
// neither is here; a test then calls `noSqlite`, which fails the run except on Windows.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { detectSqlite } from '../../conformance/lib.mjs'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PROBE = "CREATE VIRTUAL TABLE t USING fts5(x, content = '', contentless_delete = 1);"

/** `{exec(file, sql)}` or null. */
export async function rawSqlite() {
  const system = await detectSqlite()
  const probe = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'memento-sql-')), 'probe.db')
  try {
    if (system) {
      await system.exec(probe, PROBE)
      return system
    }
  } catch {
    // too old for the store's schema
  } finally {
    fs.rmSync(path.dirname(probe), { recursive: true, force: true })
  }
  const cargo = (args, input) =>
    spawnSync('cargo', ['run', '--quiet', '--no-default-features', '--example', 'sql', '--', ...args], {
      cwd: ROOT,
      input,
      encoding: 'utf8',
    })
  if (spawnSync('cargo', ['--version']).status !== 0) return null
  return {
    name: 'cargo run --example sql',
    exec(file, sql) {
      const r = cargo([file], sql)
      if (r.status !== 0) throw new Error(`sql failed: ${r.stderr}`)
    },
  }
}

/**
 * A test found no raw SQLite: on Windows (the Wine runner, whose node.exe starts no Linux program)
 * it skips; anywhere else the run fails, since a sqlite3 shell, python3 or cargo is missing.
 */
export function noSqlite(t, reason) {
  if (process.platform !== 'win32') throw new Error(`${reason}: scripts/test-tools.sh installs the sqlite3 shell`)
  return t.skip(reason)
}
