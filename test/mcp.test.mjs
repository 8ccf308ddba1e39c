// `dsh-memento mcp`, driven by the official TypeScript SDK's Client over stdio:
// the real bin, real SQLite stores in temporary directories, the CLI as another process.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { ErrorCode, McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { skip } from './support/provider.mjs'
import { BIN, CLIENT, childEnv, cli, connect, memory, sandbox, tmpRoot } from './support/mcp.mjs'
import { waitFor } from './support/wait.mjs'

const { root, cleanup } = tmpRoot('memento-mcp-')
after(cleanup)

const mod = skip ? null : await import('../index.mjs')
const { strings } = await import('../lib/strings.mjs')
const { snapshotLabels } = await import('../lib/snapshot.mjs')
const { memoryParameters } = await import('../lib/tools.mjs')
const S = strings('en')

/** A provider on the same store, for the test's own reads (it never writes). */
function reader(db) {
  return new mod.MemoryProvider({ dbPath: db, gate: async () => 'rejected' })
}
const rows = (db, n = 50) => {
  const p = reader(db)
  try {
    return p.auditList(n)
  } finally {
    p.close()
  }
}
const entries = (db) => {
  const p = reader(db)
  try {
    return p.listEntries()
  } finally {
    p.close()
  }
}
const label = (outcome, why) =>
  `${outcome} (via mcp elicitation, client ${CLIENT.name} ${CLIENT.version}, writePolicy ask${why ? `; ${why}` : ''})`
const accept = async () => ({ action: 'accept', content: {} })

describe('dsh-memento mcp', { skip }, () => {
  it("lists the memory tools, with dsh's arguments and save/skip guidance, and the resources", async () => {
    const s = sandbox(root)
    const { client } = await connect({ ...s, args: ['--workspace', s.ws] })
    try {
      const { tools } = await client.listTools()
      assert.deepEqual(
        tools.map((t) => t.name),
        ['memory', 'memory_recall'],
      )
      const [mem, recall] = tools
      assert.ok(mem.description.startsWith(S.toolDescription), 'the dsh tool description, guidance included')
      assert.match(mem.description, /SAVE: .*\nSKIP: /)
      assert.ok(mem.description.endsWith(S.mcp.toolNote))
      assert.deepEqual(mem.inputSchema, memoryParameters('en'))
      assert.equal(mem.outputSchema.type, 'object')
      assert.deepEqual(Object.keys(recall.inputSchema.properties), ['query', 'memoryLimit'])
      const { resources } = await client.listResources()
      assert.deepEqual(
        resources.map((r) => [r.uri, r.mimeType]),
        [
          ['memento://snapshot', 'text/plain'],
          ['memento://budgets', 'application/json'],
        ],
      )
      assert.deepEqual(client.getServerCapabilities().resources, { subscribe: true })
    } finally {
      await client.close()
    }
  })

  it('asks for an add through elicitation with the whole change, and lands it only on accept', async () => {
    const s = sandbox(root)
    const { client, asked } = await connect({ ...s, args: ['--workspace', s.ws], elicit: accept })
    try {
      const r = await memory(client, {
        action: 'add',
        text: 'Prefers pnpm over npm',
        tags: ['build', 'js'],
        track: 'user',
        scope: 'workspace',
      })
      assert.equal(r.isError, undefined)
      assert.equal(r.structuredContent.ok, true)
      assert.equal(r.structuredContent.entry.text, 'Prefers pnpm over npm')
      assert.match(r.content[0].text, /^memory entry added \(user\/workspace\): Prefers pnpm over npm\nbudget: 21\/2000 chars used$/)
      assert.equal(asked.length, 1)
      assert.match(asked[0], /^\[dsh-memento\] add user\/workspace\n/)
      assert.ok(asked[0].includes('│ Prefers pnpm over npm'))
      assert.ok(asked[0].includes('tags ["build", "js"]'), asked[0])
      assert.ok(asked[0].includes(`workspace ${mod.workspaceKeyOf(s.ws)}`), 'the keys it lands under')
      const [e] = entries(s.db)
      assert.deepEqual(
        [e.text, e.tags, e.source, e.workspaceKey, e.agentKey],
        ['Prefers pnpm over npm', ['build', 'js'], 'mcp', mod.workspaceKeyOf(s.ws), ''],
      )
      const add = rows(s.db).find((x) => x.action === 'add')
      assert.equal(add.outcome, label('allowed-once'))
      assert.equal(add.entryId, e.id)
      assert.match(add.sessionId, /^mcp:/)
    } finally {
      await client.close()
    }
  })

  it('lands nothing when the person declines or cancels, and audits each refusal', async () => {
    const s = sandbox(root)
    const answers = [{ action: 'decline' }, { action: 'cancel' }]
    const { client, asked } = await connect({ ...s, elicit: async () => answers.shift() })
    try {
      const declined = await memory(client, { action: 'add', text: 'Declined fact' })
      assert.equal(declined.isError, true)
      assert.deepEqual(declined.structuredContent.error, {
        code: 'WRITE_DENIED',
        message: 'memory write not approved (approval outcome: rejected); nothing was written',
        outcome: 'rejected',
      })
      assert.ok(declined.content[0].text.endsWith(`[WRITE_DENIED] ${S.mcp.advice.rejected}`))
      const cancelled = await memory(client, { action: 'add', scope: 'user-global', text: 'Cancelled fact' })
      assert.equal(cancelled.structuredContent.error.outcome, 'cancelled')
      assert.equal(asked.length, 2)
      assert.deepEqual(entries(s.db), [])
      assert.deepEqual(
        rows(s.db).map((x) => [x.action, x.text, x.outcome]),
        [
          ['add-denied', 'Cancelled fact', label('cancelled')],
          ['add-denied', 'Declined fact', label('rejected')],
        ],
      )
    } finally {
      await client.close()
    }
  })

  it('refuses every write from a client without elicitation, and says how to write instead', async () => {
    const s = sandbox(root)
    const { client } = await connect({ ...s })
    try {
      const r = await memory(client, { action: 'add', text: 'No dialog to ask in' })
      assert.equal(r.isError, true)
      assert.deepEqual([r.structuredContent.error.code, r.structuredContent.error.outcome], ['WRITE_DENIED', 'unavailable'])
      assert.match(r.content[0].text, /dsh-memento add/)
      assert.match(r.content[0].text, /inside dsh/)
      assert.deepEqual(entries(s.db), [])
      assert.deepEqual(
        rows(s.db).map((x) => [x.action, x.outcome]),
        [['add-denied', label('unavailable', S.mcp.failure.noElicitation)]],
      )
      // reads need no approval
      assert.equal((await memory(client, { action: 'query', text: 'x' })).structuredContent.ok, true)
    } finally {
      await client.close()
    }
  })

  it('shows from and to for a replace, and every target for a consolidate', async () => {
    const s = sandbox(root)
    const { client, asked } = await connect({ ...s, args: ['--workspace', s.ws], elicit: accept })
    try {
      await memory(client, { action: 'add', text: 'Tests run with npm test', tags: ['ci'] })
      await memory(client, { action: 'add', text: 'Lint runs with eslint' })
      const r = await memory(client, { action: 'replace', match: 'npm test', text: 'Tests run with pnpm test', tags: ['ci', 'pnpm'] })
      assert.equal(r.structuredContent.ok, true)
      assert.equal(r.structuredContent.previous.text, 'Tests run with npm test')
      const shown = asked[2]
      assert.match(
        shown,
        /^\[dsh-memento\] replace user\/workspace\nfrom: .*tags \["ci"\]\n│ Tests run with npm test\nto: .*tags \["ci", "pnpm"\]\n│ Tests run with pnpm test\nchanges: text, tags$/,
      )
      const c = await memory(client, { action: 'consolidate', matches: ['pnpm test', 'eslint'], text: 'pnpm test, then eslint' })
      assert.equal(c.structuredContent.removed.length, 2)
      assert.ok(
        asked[3].includes('Tests run with pnpm test') &&
          asked[3].includes('Lint runs with eslint') &&
          asked[3].includes('pnpm test, then eslint'),
        asked[3],
      )
      assert.deepEqual(
        entries(s.db).map((e) => e.text),
        ['pnpm test, then eslint'],
      )
    } finally {
      await client.close()
    }
  })

  it("sees what the CLI wrote while it runs, and the snapshot resource is the provider's snapshot", async () => {
    const s = sandbox(root)
    const { client } = await connect({ ...s, args: ['--workspace', s.ws, '--agent', 'reviewer'] })
    try {
      assert.equal((await memory(client, { action: 'query', text: 'bun' })).structuredContent.total, 0)
      assert.equal(cli(s.dir, s.db, ['add', '--yes', '--workspace', s.ws, 'Uses bun for scripts']).code, 0)
      assert.equal(
        cli(s.dir, s.db, ['add', '--yes', '--workspace', s.ws, '--agent', 'reviewer', '--track', 'agent', 'Reviewer checks bun lockfile'])
          .code,
        0,
      )
      assert.equal(
        cli(s.dir, s.db, ['add', '--yes', '--workspace', s.ws, '--agent', 'other', '--track', 'agent', 'Another agent: bun only']).code,
        0,
      )
      const q = await memory(client, { action: 'query', text: 'bun' })
      assert.deepEqual(
        q.structuredContent.entries.map((e) => e.text).sort(),
        ['Reviewer checks bun lockfile', 'Uses bun for scripts'],
        'its agent and the shared layer, not another agent',
      )
      const recall = await client.callTool({ name: 'memory_recall', arguments: { query: 'bun' } })
      assert.equal(recall.structuredContent.memory.total, 2)
      assert.equal(recall.structuredContent.history, undefined)
      assert.doesNotMatch(recall.content[0].text, /history/)

      const {
        contents: [snap],
      } = await client.readResource({ uri: 'memento://snapshot' })
      const p = reader(s.db)
      try {
        const keys = { workspaceKey: mod.workspaceKeyOf(s.ws), agentKey: mod.agentKeyOf('reviewer') }
        assert.equal(snap.text, p.snapshot(keys, snapshotLabels('en'), 8))
        assert.match(snap.text, /Reviewer checks bun lockfile/)
        const recorded = p.auditList(5).filter((x) => x.action === 'snapshot')
        assert.equal(recorded.length, 1, 'reading it records a snapshot row')
        assert.equal(recorded[0].text, snap.text)
        const {
          contents: [b],
        } = await client.readResource({ uri: 'memento://budgets' })
        assert.deepEqual(JSON.parse(b.text), p.budgets({ workspaceKey: keys.workspaceKey }))
      } finally {
        p.close()
      }
      await client.readResource({ uri: 'memento://snapshot' })
      assert.equal(rows(s.db).filter((x) => x.action === 'snapshot').length, 1, 'the same text is recorded once')
      await assert.rejects(
        client.readResource({ uri: 'memento://nope' }),
        (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams,
      )
    } finally {
      await client.close()
    }
  })

  it('history and undo: the versions of what the server sees, and an undo asked through elicitation with the whole inverse change', async () => {
    const s = sandbox(root)
    const answers = []
    const { client, asked } = await connect({ ...s, args: ['--workspace', s.ws], elicit: async () => answers.shift() ?? accept() })
    try {
      await memory(client, { action: 'add', text: 'Prefers tabs' })
      await memory(client, { action: 'replace', match: 'tabs', text: 'Prefers spaces, width 2' })
      const h = await memory(client, { action: 'history', match: 'spaces' })
      assert.equal(h.isError, undefined, h.content[0].text)
      assert.deepEqual(
        h.structuredContent.history.versions.map((v) => [v.version, v.seq, v.action, v.text, v.source]),
        [
          [1, 1, 'add', 'Prefers tabs', 'mcp'],
          [2, 2, 'replace', 'Prefers spaces, width 2', 'mcp'],
        ],
      )
      assert.match(
        h.content[0].text,
        /^memory history of entry \S+ \(user\/workspace\): 2 versions, oldest first\n- v1 \(change #1, add\): Prefers tabs\n/,
      )
      const seen = asked.length
      // An entry changed since: refused before the person is asked.
      const changed = await memory(client, { action: 'undo', seq: 1 })
      assert.equal(changed.isError, true)
      assert.deepEqual(
        [changed.structuredContent.error.code, changed.structuredContent.error.reason, changed.structuredContent.error.reverts],
        ['ENTRY_NOT_FOUND', 'changed', 1],
      )
      assert.equal(asked.length, seen)
      // Declined: nothing changes.
      answers.push({ action: 'decline' })
      const declined = await memory(client, { action: 'undo', seq: 2 })
      assert.equal(declined.structuredContent.error.code, 'WRITE_DENIED')
      assert.equal(rows(s.db)[0].action, 'revert-denied')
      const u = await memory(client, { action: 'undo', seq: 2 })
      assert.equal(u.isError, undefined, u.content[0].text)
      assert.deepEqual(
        [u.structuredContent.reverted, u.structuredContent.changes.map((c) => [c.action, c.entry.text])],
        [2, [['replace', 'Prefers tabs']]],
      )
      assert.match(
        asked.at(-1),
        /^\[dsh-memento\] revert of change #2 \(undo the replace\)\nfrom: user\/workspace · workspace \S+ · every agent · source mcp · no tags\n│ Prefers spaces, width 2\nto: [^\n]*\n│ Prefers tabs$/,
      )
      assert.deepEqual(
        entries(s.db).map((e) => e.text),
        ['Prefers tabs'],
      )
      assert.equal(rows(s.db)[0].outcome, label('allowed-once'))
      // The snapshot resource is recorded with the keys of the set it shows.
      await client.readResource({ uri: 'memento://snapshot' })
      const p = reader(s.db)
      try {
        const [recorded] = p.sessions().sessions
        assert.deepEqual([recorded.workspaceKey, recorded.agentKey], [mod.workspaceKeyOf(s.ws), ''])
        assert.match(recorded.sessionId, /^mcp:.*:snapshot:/)
        assert.equal(p.auditVerify().ok, true)
      } finally {
        p.close()
      }
    } finally {
      await client.close()
    }
  })

  it("uses the client's first root as its workspace when no --workspace is given", async () => {
    const s = sandbox(root)
    const other = path.join(s.dir, 'root-b')
    fs.mkdirSync(other)
    const { client } = await connect({ ...s, elicit: accept, roots: [s.ws, other] })
    try {
      await memory(client, { action: 'add', text: 'Workspace from the client root' })
      assert.equal(entries(s.db)[0].workspaceKey, mod.workspaceKeyOf(s.ws))
    } finally {
      await client.close()
    }
  })

  it("uses the client's first file: root when roots of other schemes come first", async () => {
    const s = sandbox(root)
    const { client } = await connect({
      ...s,
      cwd: s.dir,
      elicit: accept,
      roots: ['https://example.com/repo', 'vscode-vfs://github/org/repo', s.ws],
    })
    try {
      await memory(client, { action: 'add', text: 'Workspace from the first file root' })
      assert.equal(entries(s.db)[0].workspaceKey, mod.workspaceKeyOf(s.ws))
      assert.notEqual(mod.workspaceKeyOf(s.ws), mod.workspaceKeyOf(s.dir), "not the server's own cwd")
    } finally {
      await client.close()
    }
  })

  it("keeps a client's whole name in the audit label, cut between code points", async () => {
    const s = sandbox(root)
    const name = `${'x'.repeat(79)}😀tail`
    const { client } = await connect({ ...s, args: ['--workspace', s.ws], elicit: accept, info: { name, version: '1.0' } })
    try {
      await memory(client, { action: 'add', text: 'Labelled by a long client name' })
    } finally {
      await client.close()
    }
    const decline = await connect({
      ...s,
      args: ['--workspace', s.ws],
      elicit: async () => ({ action: 'decline' }),
      info: { name, version: '1.0' },
    })
    try {
      await memory(decline.client, { action: 'add', text: 'Declined by a long client name' })
    } finally {
      await decline.client.close()
    }
    const labels = rows(s.db)
      .filter((x) => x.action === 'add' || x.action === 'add-denied')
      .map((x) => x.outcome)
    assert.deepEqual(labels.sort(), [
      `allowed-once (via mcp elicitation, client ${'x'.repeat(79)} 1.0, writePolicy ask)`,
      `rejected (via mcp elicitation, client ${'x'.repeat(79)} 1.0, writePolicy ask)`,
    ])
  })

  it('notifies a subscribed client when another process changes what a resource shows', async () => {
    const s = sandbox(root)
    const { client } = await connect({ ...s, args: ['--workspace', s.ws] })
    const updated = []
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri)
    })
    try {
      await client.subscribeResource({ uri: 'memento://snapshot' })
      await client.subscribeResource({ uri: 'memento://budgets' })
      await client.readResource({ uri: 'memento://snapshot' }) // its own audit row changes nothing shown
      await new Promise((r) => setTimeout(r, 1500))
      assert.deepEqual(updated, [])
      assert.equal(cli(s.dir, s.db, ['add', '--yes', '--workspace', s.ws, 'Written by another process']).code, 0)
      await waitFor(() => updated.length >= 2, 'resources/updated', 10_000)
      assert.deepEqual(updated.sort(), ['memento://budgets', 'memento://snapshot'])
      const {
        contents: [snap],
      } = await client.readResource({ uri: 'memento://snapshot' })
      assert.match(snap.text, /Written by another process/)
      await client.unsubscribeResource({ uri: 'memento://budgets' })
      await client.unsubscribeResource({ uri: 'memento://snapshot' })
    } finally {
      await client.close()
    }
  })

  it('settles a write as denied when the pending elicitation is cancelled, or the client goes away', async () => {
    const s = sandbox(root)
    let shown
    const { client } = await connect({
      ...s,
      elicit: () => {
        shown?.()
        return new Promise(() => {})
      },
    })
    const ac = new AbortController()
    const asked = new Promise((r) => {
      shown = r
    })
    const call = memory(client, { action: 'add', text: 'Abandoned by the client' }, { signal: ac.signal })
    await asked
    ac.abort('the user pressed Escape')
    await assert.rejects(call)
    const denied = await waitFor(() => rows(s.db).find((x) => x.action === 'add-denied'), 'add-denied', 10_000)
    assert.equal(denied.outcome, label('cancelled', S.mcp.failure.aborted))

    const second = new Promise((r) => {
      shown = r
    })
    const closing = memory(client, { action: 'add', text: 'Pending when the client left' }).catch((e) => e)
    await second
    await client.close()
    assert.ok((await closing) instanceof Error)
    const left = await waitFor(
      () => rows(s.db).find((x) => x.action === 'add-denied' && x.text === 'Pending when the client left'),
      'the second add-denied',
      10_000,
    )
    assert.equal(left.outcome, label('cancelled', S.mcp.failure.closed))
    assert.deepEqual(entries(s.db), [])
  })

  it("answers malformed arguments with the protocol's error, and keeps serving", async () => {
    const s = sandbox(root)
    const { client } = await connect({ ...s, elicit: accept })
    try {
      const bad = [
        { action: 'add', text: 5 },
        { text: 'no action' },
        { action: 'frobnicate' },
        { action: 'add', tags: 'not-an-array', text: 'x' },
      ]
      for (const args of bad) {
        const r = await memory(client, args)
        assert.equal(r.isError, true, JSON.stringify(args))
        assert.equal(r.structuredContent.error.code, 'INVALID_INPUT')
        assert.match(r.content[0].text, /\[INVALID_INPUT\]$/)
      }
      const tags = await memory(client, { action: 'add', text: 'seventeen tags', tags: Array.from({ length: 17 }, (_, i) => `t${i}`) })
      assert.equal(tags.structuredContent.error.code, 'INVALID_INPUT', "the provider's own validation")
      const missing = await memory(client, { action: 'replace', match: 'nothing like this', text: 'x' })
      assert.equal(missing.structuredContent.error.code, 'ENTRY_NOT_FOUND')
      const recall = await client.callTool({ name: 'memory_recall', arguments: { query: 7 } })
      assert.deepEqual([recall.isError, recall.structuredContent.error.code], [true, 'INVALID_INPUT'])
      await assert.rejects(
        client.callTool({ name: 'forget_everything', arguments: {} }),
        (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams,
      )
      assert.equal((await client.listTools()).tools.length, 2, 'still serving')
      assert.deepEqual(entries(s.db), [])
    } finally {
      await client.close()
    }
  })

  it('refuses every write under --write-policy off without asking', async () => {
    const s = sandbox(root)
    const { client, asked } = await connect({ ...s, args: ['--write-policy', 'off'], elicit: accept })
    try {
      const r = await memory(client, { action: 'add', text: 'Refused by policy' })
      assert.deepEqual([r.isError, r.structuredContent.error.code], [true, 'WRITE_DENIED'])
      assert.ok(r.content[0].text.endsWith(S.mcp.advice.off))
      assert.deepEqual(asked, [])
      assert.equal(rows(s.db)[0].outcome, `rejected (via mcp --write-policy off, client ${CLIENT.name} ${CLIENT.version}, writePolicy off)`)
    } finally {
      await client.close()
    }
  })

  it('exits 0 when its stdin closes', async () => {
    const s = sandbox(root)
    const child = spawn(process.execPath, [BIN, 'mcp', '--db', s.db], { cwd: s.dir, env: childEnv(s.dir), stdio: ['pipe', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    }
    child.stdin.write(`${JSON.stringify(init)}\nnot json at all\n`)
    await waitFor(() => out.includes('"id":1'), 'the initialize answer', 10_000)
    child.stdin.end()
    const code = await new Promise((r) => child.on('exit', (c, sig) => r(sig ?? c)))
    assert.equal(code, 0)
    assert.equal(JSON.parse(out.trim().split('\n')[0]).result.serverInfo.name, 'dsh-memento')
  })

  it('refuses a write policy that would approve by itself, and positional arguments', () => {
    const s = sandbox(root)
    const auto = cli(s.dir, s.db, ['mcp', '--write-policy', 'auto'])
    assert.deepEqual([auto.code, auto.err], [2, 'dsh-memento: --write-policy must be ask or off, got "auto"\n'])
    assert.equal(cli(s.dir, s.db, ['mcp', 'extra']).code, 2)
    assert.equal(fs.existsSync(s.db), false)
  })

  it('prints the setup snippet of each client', () => {
    const s = sandbox(root)
    const print = (client, ...more) => cli(s.dir, s.db, ['mcp', '--print-config', client, ...more])
    const claude = print('claude-code')
    assert.match(claude.out, /^claude mcp add memento -- npx -y dsh-memento mcp --db \S+\n$/)
    assert.match(claude.err, /^Claude Code: run this once/)
    const codex = print('codex').out
    assert.match(codex, /^\[mcp_servers\.memento\]\ncommand = "npx"\nargs = \["-y", "dsh-memento", "mcp", "--db", ".+"\]$/m)
    const cursor = JSON.parse(print('cursor', '--agent', 'cursor').out)
    assert.deepEqual(cursor.mcpServers.memento.args.slice(0, 3), ['-y', 'dsh-memento', 'mcp'])
    assert.deepEqual(cursor.mcpServers.memento.args.slice(-2), ['--agent', 'cursor'])
    const dsh = print('dsh').out
    assert.match(dsh, /name: '@deepseek-ai\/dsh-mcp-client'/)
    assert.match(dsh, /no elicitation/)
    const bad = print('vscode')
    assert.deepEqual(
      [bad.code, bad.err],
      [2, 'dsh-memento: --print-config needs a client: claude-code, codex, cursor or dsh, got "vscode"\n'],
    )
    assert.equal(fs.existsSync(s.db), false, 'printing opens no store')
  })
})

describe('the MCP SDK stays out of the plugin', { skip }, () => {
  // A resolve hook that refuses the SDK: a module graph that reaches it fails to import.
  const hook = path.join(root, 'no-mcp-sdk.mjs')
  fs.writeFileSync(
    hook,
    `import { register } from 'node:module'
register('data:text/javascript,' + encodeURIComponent(\`export async function resolve(s, c, next) {
  if (s.startsWith('@modelcontextprotocol/')) throw new Error('loaded ' + s)
  return next(s, c)
}\`))
`,
  )
  const importUnderHook = (specifiers) => {
    const code = `for (const s of ${JSON.stringify(specifiers)}) await import(s)`
    return spawnSync(process.execPath, ['--import', pathToFileURL(hook).href, '--input-type=module', '-e', code], { encoding: 'utf8' })
  }

  it('importing index.mjs, the shared modules of lib/ and every module under lib/plugin and lib/panel loads no part of it', () => {
    const modules = (dir) =>
      fs
        .readdirSync(new URL(dir, import.meta.url))
        .filter((f) => f.endsWith('.mjs'))
        .map((f) => new URL(`${dir}${f}`, import.meta.url).href)
    const r = importUnderHook([
      new URL('../index.mjs', import.meta.url).href,
      ...modules('../lib/'),
      ...modules('../lib/plugin/'),
      ...modules('../lib/panel/'),
    ])
    assert.equal(r.status, 0, r.stderr)
  })

  it('the hook does catch a module graph that reaches it', () => {
    const r = importUnderHook([new URL('../lib/mcp/server.mjs', import.meta.url).href])
    assert.notEqual(r.status, 0)
    assert.match(r.stderr, /loaded @modelcontextprotocol\/sdk\//)
  })
})
