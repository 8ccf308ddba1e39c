// A credential is refused wherever it hides: in the text, and in a tag, on every write path
// (add, seed, replace, consolidate, and an import, which is one seed). Nothing lands, nothing is
// asked, and the error says why.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { NATIVE_BUILT, NATIVE_SKIP } from './support/faults/common.mjs'

const skip = NATIVE_SKIP
const { MemoryProvider } = NATIVE_BUILT ? await import('../index.mjs') : {}
const { importEntries, readEnvelopes, buildExport } = await import('../lib/envelope.mjs')
const write = { agent: { session: { id: 'secret-tags' } } }
const UG = { track: 'user', scope: 'user-global' }
const AWS_KEY_ID = 'AKIAQ3EGRT5NWZ7LX2PB'

const paths = {
  add: (p) => p.add({ ...UG, text: 'plain', tags: [AWS_KEY_ID] }, write),
  seed: (p) => p.seed([{ ...UG, text: 'plain', tags: ['ok', AWS_KEY_ID] }], write),
  replace: (p) => p.replace({ ...UG, match: 'base fact', text: 'base fact, revised', tags: [AWS_KEY_ID] }, write),
  consolidate: (p) => p.consolidate({ ...UG, matches: ['base fact'], text: 'merged', tags: [AWS_KEY_ID] }, write),
  import: (p) => {
    const doc = buildExport({
      entries: [
        {
          ...UG,
          id: crypto.randomUUID(),
          text: 'imported',
          tags: [AWS_KEY_ID],
          source: 'x',
          workspaceKey: '',
          agentKey: '',
          version: 1,
          createdAt: 1,
          updatedAt: 1,
          lastRecalled: null,
          recallCount: 0,
          sessionId: null,
        },
      ],
      budgets: p.budgets(),
    })
    return importEntries(p, readEnvelopes(doc).inputs, write)
  },
}

for (const [name, run] of Object.entries(paths)) {
  test(`${name}: an AWS key id in a tag is refused before asking, and nothing lands`, { skip }, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memento-secret-tags-'))
    const asked = []
    const p = new MemoryProvider({ dbPath: path.join(dir, 'memory.db'), gate: (payload) => (asked.push(payload), 'allowed-once') })
    t.after(() => {
      p.close()
      fs.rmSync(dir, { recursive: true, force: true })
    })
    await p.add({ ...UG, text: 'base fact' }, write)
    asked.length = 0
    const e = await Promise.resolve()
      .then(() => run(p))
      .then(
        () => assert.fail(`${name} accepted a credential in a tag`),
        (e) => e,
      )
    assert.equal(e.code, 'INVALID_INPUT', e.message)
    assert.equal(e.details.reason, 'secret')
    assert.match(e.message, /looks like it contains .*no place for credentials/)
    assert.deepEqual(asked, [], 'the approver was never asked')
    assert.deepEqual(
      p.listEntries().map((x) => [x.text, x.tags]),
      [['base fact', []]],
    )
  })
}
