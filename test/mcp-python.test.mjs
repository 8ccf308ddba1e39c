// `dsh-memento mcp` driven by a real MCP client that is not ours: the official Python SDK
// (PyPI `mcp`, installed by scripts/mcp-python.sh), running test/mcp/python_client.py.
// A missing venv fails the run (scripts/test-tools.sh makes it); only Windows skips without one.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { skip as noNative } from './support/provider.mjs'
import { BIN, childEnv, sandbox, tmpRoot } from './support/mcp.mjs'

const SCRIPT = fileURLToPath(new URL('./mcp/python_client.py', import.meta.url))
const tools =
  process.env.DSH_MEMENTO_TOOLS ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'dsh-memento-tools')
// A venv's interpreter: bin/python, or Scripts\python.exe on Windows.
const windows = process.platform === 'win32'
const PYTHON =
  process.env.MEMENTO_MCP_PYTHON ?? path.join(tools, 'mcp-python', ...(windows ? ['Scripts', 'python.exe'] : ['bin', 'python']))
const present = fs.existsSync(PYTHON)
if (!present && !windows) throw new Error(`the MCP Python SDK venv is missing (${PYTHON}): run scripts/test-tools.sh`)
// Under Wine (test/platforms/wine.sh) there is no Windows Python: scripts/mcp-python.sh makes a
// Linux venv, which node.exe cannot start.
const missing = `no Windows Python with the MCP SDK at ${PYTHON} (scripts/mcp-python.sh makes a Linux venv; set MEMENTO_MCP_PYTHON to a Windows python that has the \`mcp\` package)`
const skip = noNative || (present ? false : missing)

const { root, cleanup } = tmpRoot('memento-mcp-py-')
after(cleanup)

describe('the official MCP Python SDK as the client', { skip }, () => {
  it('lists, writes through its elicitation callback, is refused on decline, queries and reads the snapshot', async () => {
    const s = sandbox(root)
    const r = spawnSync(PYTHON, [SCRIPT, process.execPath, BIN, s.db, s.ws], {
      cwd: s.dir,
      env: childEnv(s.dir),
      encoding: 'utf8',
      timeout: 60_000,
    })
    assert.equal(r.status, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    assert.deepEqual(out.server.name, 'dsh-memento')
    assert.deepEqual(out.tools, ['memory', 'memory_recall'])
    assert.deepEqual(out.resources, ['memento://budgets', 'memento://snapshot'])

    assert.equal(out.accepted.isError, false)
    assert.equal(out.accepted.structured.entry.text, 'Prefers uv for Python')
    assert.match(out.asked[0], /^\[dsh-memento\] add user\/workspace\n.*tags \["python"\]\n│ Prefers uv for Python$/)

    assert.equal(out.declined.isError, true)
    assert.deepEqual([out.declined.structured.error.code, out.declined.structured.error.outcome], ['WRITE_DENIED', 'rejected'])
    assert.match(out.declined.text, /\[WRITE_DENIED\]/)

    assert.match(
      out.asked[2],
      /^\[dsh-memento\] replace user\/workspace\nfrom: .*\n│ Prefers uv for Python\nto: .*\n│ Prefers uv 0\.5 for Python\nchanges: text$/,
    )
    assert.equal(out.replaced.structured.previous.text, 'Prefers uv for Python')
    assert.deepEqual(
      out.query.structured.entries.map((e) => e.text),
      ['Prefers uv 0.5 for Python'],
    )
    assert.equal(out.recall.structured.memory.total, 1)

    const mod = await import('../index.mjs')
    const { snapshotLabels } = await import('../lib/snapshot.mjs')
    const p = new mod.MemoryProvider({ dbPath: s.db, gate: async () => 'rejected' })
    try {
      assert.equal(out.snapshot, p.snapshot({ workspaceKey: mod.workspaceKeyOf(s.ws), agentKey: '' }, snapshotLabels('en'), 8))
      assert.deepEqual(out.budgets, p.budgets({ workspaceKey: mod.workspaceKeyOf(s.ws) }))
      const rows = p.auditList(20).map((x) => [x.action, x.outcome])
      assert.deepEqual(rows.filter(([a]) => a !== 'recalled' && a !== 'snapshot').reverse(), [
        ['add', 'allowed-once (via mcp elicitation, client python-sdk-client 0.1, writePolicy ask)'],
        ['add-denied', 'rejected (via mcp elicitation, client python-sdk-client 0.1, writePolicy ask)'],
        ['replace', 'allowed-once (via mcp elicitation, client python-sdk-client 0.1, writePolicy ask)'],
      ])
    } finally {
      p.close()
    }
  })
})
