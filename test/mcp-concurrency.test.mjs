// Many servers, one store: two `dsh-memento mcp` processes (agents a and b)
// and the CLI write to one SQLite file at the same time; no write is lost and the audit chain
// verifies.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { after, describe, it } from 'node:test'
import { skip } from './support/provider.mjs'
import { BIN, CLIENT, childEnv, cli, connect, memory, sandbox, tmpRoot } from './support/mcp.mjs'

const N = 20
const { root, cleanup } = tmpRoot('memento-mcp-conc-')
after(cleanup)

const pause = (ms) => new Promise((r) => setTimeout(r, ms))

/** The CLI's adds `from, from + step, …`: one process after another (each approved with --yes). */
async function cliAdds(dir, db, ws, from, step) {
  for (let i = from; i < N; i += step) {
    const code = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'add', '--yes', '--db', db, '--workspace', ws, '--track', 'agent', `cli fact ${i}`], {
        cwd: dir,
        env: childEnv(dir),
        stdio: 'ignore',
      })
      child.on('error', reject)
      child.on('exit', resolve)
    })
    assert.equal(code, 0, `cli add ${i}`)
  }
}

describe('several MCP servers and the CLI on one store', { skip }, () => {
  it(`lose no update when each writes ${N} entries at once, and the chain verifies`, async () => {
    const s = sandbox(root)
    const accept = async () => ({ action: 'accept', content: {} })
    const servers = await Promise.all(
      ['a', 'b'].map((agent) =>
        connect({ ...s, args: ['--workspace', s.ws, '--agent', agent], elicit: accept, info: { ...CLIENT, name: `client-${agent}` } }),
      ),
    )
    try {
      // Paced in bursts of two, so that the servers' writes spread over the CLI's.
      const mcpAdds = servers.map(async ({ client }, k) => {
        const results = []
        for (let i = 0; i < N; i += 2) {
          results.push(
            ...(await Promise.all(
              [i, i + 1].map((j) => memory(client, { action: 'add', track: 'agent', text: `agent ${'ab'[k]} fact ${j}` })),
            )),
          )
          await pause(150)
        }
        return results
      })
      const [a, b] = await Promise.all([...mcpAdds, cliAdds(s.dir, s.db, s.ws, 0, 2), cliAdds(s.dir, s.db, s.ws, 1, 2)])
      for (const r of [...a, ...b]) assert.equal(r.structuredContent.ok, true, JSON.stringify(r.structuredContent))
    } finally {
      await Promise.all(servers.map(({ client }) => client.close()))
    }
    const mod = await import('../index.mjs')
    const p = new mod.MemoryProvider({ dbPath: s.db, gate: async () => 'rejected' })
    try {
      const texts = p
        .listEntries()
        .map((e) => `${e.agentKey}:${e.text}`)
        .sort()
      const want = [...Array.from({ length: N }, (_, i) => [`a:agent a fact ${i}`, `b:agent b fact ${i}`, `:cli fact ${i}`])].flat().sort()
      assert.deepEqual(texts, want)
      const verify = p.auditVerify()
      assert.equal(verify.ok, true, JSON.stringify(verify))
      const adds = p.auditList(1000).filter((r) => r.action === 'add')
      assert.equal(adds.length, 3 * N)
      assert.equal(
        adds.filter((r) => r.outcome === `allowed-once (via mcp elicitation, client client-a ${CLIENT.version}, writePolicy ask)`).length,
        N,
      )
      assert.equal(
        adds.filter((r) => r.outcome === `allowed-once (via mcp elicitation, client client-b ${CLIENT.version}, writePolicy ask)`).length,
        N,
      )
      assert.equal(
        p.budgets({ workspaceKey: mod.workspaceKeyOf(s.ws) }).find((u) => u.track === 'agent' && u.scope === 'workspace').used,
        want.reduce((n, t) => n + t.slice(t.indexOf(':') + 1).length, 0),
      )
    } finally {
      p.close()
    }
    const audit = cli(s.dir, s.db, ['audit', '--verify'])
    assert.equal(audit.code, 0, audit.err)
    assert.match(audit.out, /^Audit chain verified: /)
  })
})
