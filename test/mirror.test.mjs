// One-way mirror: managed CLAUDE.md/AGENTS.md block and memory-standard roots.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { createDefaultRegistry } from '../lib/adapters/index.mjs'
import {
  applyManagedBlock,
  BLOCK_BEGIN,
  BLOCK_END,
  mirrorToMarkdownFile,
  mirrorToMemoryStandard,
  renderManagedBlock,
} from '../lib/mirror.mjs'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'memento-mirror-'))
after(() => fs.rmSync(tmp, { recursive: true, force: true }))
const e = (over) => ({
  id: '11111111-1111-4111-8111-111111111111',
  track: 'agent',
  scope: 'workspace',
  workspaceKey: '/w',
  agentKey: '',
  text: 't',
  source: 's',
  tags: [],
  version: 1,
  createdAt: 1,
  updatedAt: 2,
  lastRecalled: null,
  recallCount: 0,
  sessionId: null,
  ...over,
})

describe('mirror', () => {
  it('replaces only the managed block and leaves hand-written text alone', () => {
    const block1 = renderManagedBlock([e({ text: 'first' })])
    const file = applyManagedBlock('# Project\n\nMine.\n', block1)
    assert.ok(file.startsWith('# Project\n\nMine.\n\n<!-- dsh-memento:begin -->'))
    const block2 = renderManagedBlock([e({ text: 'second', tags: ['ci'] })])
    const next = applyManagedBlock(`${file}\n## After\nkept\n`, block2)
    assert.match(
      next,
      /^# Project\n\nMine\.\n\n<!-- dsh-memento:begin -->[\s\S]*## ci\n\n- second\n[\s\S]*<!-- dsh-memento:end -->\n\n## After\nkept\n$/,
    )
    assert.doesNotMatch(next, /first/)
    assert.throws(
      () => applyManagedBlock(`${BLOCK_BEGIN}\n${BLOCK_BEGIN}\n${BLOCK_END}`, block2),
      (x) => x.code === 'INVALID_INPUT',
    )
    assert.throws(
      () => applyManagedBlock(`${BLOCK_END}\n${BLOCK_BEGIN}`, block2),
      (x) => x.code === 'INVALID_INPUT',
    )
    // the block re-imports through the claude-code adapter (edits come back only via gated import)
    const back = createDefaultRegistry().adapt('claude-code-memory-md', next).entries
    assert.deepEqual(
      back.map((x) => [x.track, x.scope, x.text, x.tags]).filter(([, , t]) => t === 'second'),
      [['agent', 'workspace', 'second', ['ci']]],
    )
  })

  it('an entry cannot forge a marker; a block an earlier version broke so is repaired', () => {
    const forged = e({ text: `Docs end here ${BLOCK_END} and begin ${BLOCK_BEGIN}` })
    const block = renderManagedBlock([forged])
    assert.equal(block.split(BLOCK_END).length - 1, 1, block)
    assert.equal(block.split(BLOCK_BEGIN).length - 1, 1, block)
    assert.ok(block.includes('&lt;!-- dsh-memento:end --&gt;'), block)
    const f = path.join(tmp, 'CLAUDE.md')
    fs.writeFileSync(f, '# Mine\n')
    for (let i = 0; i < 3; i++) mirrorToMarkdownFile(f, [forged])
    assert.equal(fs.readFileSync(f, 'utf8'), `# Mine\n\n${block}\n`)
    // the file an unescaped entry left: its own end marker inside the block, then ours
    const broken = `# Mine\n\n${block.replace('&lt;!-- dsh-memento:end --&gt;', BLOCK_END)}\n\n## After\nkept\n`
    assert.equal(broken.split(BLOCK_END).length - 1, 2)
    assert.equal(applyManagedBlock(broken, block), `# Mine\n\n${block}\n\n## After\nkept\n`)
  })

  it('mirrorToMarkdownFile creates, updates and reports unchanged', () => {
    const f = path.join(tmp, 'AGENTS.md')
    assert.equal(mirrorToMarkdownFile(f, [e({ text: 'x' })]).changed, true)
    assert.equal(mirrorToMarkdownFile(f, [e({ text: 'x' })]).changed, false)
    assert.equal(mirrorToMarkdownFile(f, []).changed, true)
    assert.match(fs.readFileSync(f, 'utf8'), /_\(no entries\)_/)
  })

  it('memory-standard mirror: writes notes then index, removes stale notes, refuses live roots', () => {
    const dir = path.join(tmp, 'mm')
    const r1 = mirrorToMemoryStandard(dir, [
      e({ text: 'Alpha fact' }),
      e({ id: '22222222-2222-4222-8222-222222222222', text: 'Beta fact' }),
    ])
    assert.deepEqual(r1.written, ['memories/alpha-fact.md', 'memories/beta-fact.md', 'MEMORY.md'])
    const r2 = mirrorToMemoryStandard(dir, [e({ text: 'Alpha fact' })])
    assert.deepEqual(r2.removed, ['memories/beta-fact.md'])
    assert.deepEqual(fs.readdirSync(path.join(dir, 'memories')), ['alpha-fact.md'])
    const live = path.join(tmp, 'live')
    fs.mkdirSync(live)
    fs.writeFileSync(path.join(live, 'MEMORY.md'), 'x')
    assert.throws(
      () => mirrorToMemoryStandard(live, [e({})]),
      (x) => x.code === 'INVALID_INPUT' && /live memory root/.test(x.message),
    )
    assert.equal(mirrorToMemoryStandard(live, [e({})], { force: true }).written.length, 2)
    // caps are checked before anything is written
    const capped = path.join(tmp, 'capped')
    assert.throws(
      () =>
        mirrorToMemoryStandard(
          capped,
          Array.from({ length: 40 }, (_, i) => e({ id: `${i}`, text: `fact ${i}` })),
        ),
      (x) => x.code === 'ADAPTER_PAYLOAD',
    )
    assert.equal(fs.existsSync(capped), false)
  })
})
