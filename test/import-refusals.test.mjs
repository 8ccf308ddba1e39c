// What an import says when the provider refuses it, on both surfaces: over budget (how far, which
// sections, the ways forward; a memory-standard note by its topic) and credentials (every flagged
// entry with its line, kind and a redacted excerpt; --skip-flagged imports the rest in one seed).
// Fixtures are written here: a 21 KB CLAUDE.md, a memory-standard root with one long note, and a
// CLAUDE.md with credentials among ordinary lines.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import Ajv2020 from 'ajv/dist/2020.js'
import { explainImportError } from '../lib/commands/explain.mjs'
import { memoryError } from '../lib/errors.mjs'
import { strings } from '../lib/strings.mjs'
import { makeAgent, mockCtx } from './support/cordis.mjs'
import { provider as native, skip } from './support/provider.mjs'
import { cliSandbox } from './support/cli.mjs'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'memento-refusals-'))
const ctxs = []
after(() => {
  for (const c of ctxs) c.dispose()
  fs.rmSync(tmp, { recursive: true, force: true })
})
let n = 0
// what these errors add to the protocol's details is described by our extension schema
const schemaOf = (name) => JSON.parse(fs.readFileSync(new URL(`../schemas/${name}`, import.meta.url), 'utf8'))
const extensions = schemaOf('dsh-memento-extensions-v1.schema.json')
const validError = new Ajv2020({ strict: false })
  .addSchema(schemaOf('dsh-memory-protocol-v1.schema.json'))
  .addSchema(extensions)
  .getSchema(`${extensions.$id}#/$defs/error`)
const assertValidError = (error) => assert.ok(validError(error), JSON.stringify(validError.errors))

/** A CLAUDE.md of about 21 KB: four sections of very different sizes. */
function bigClaudeMd() {
  const bullets = (topic, k, len) =>
    Array.from(
      { length: k },
      (_, i) => `- ${topic} rule ${i + 1}: ${'keep the build reproducible and the logs readable '.repeat(8).slice(0, len)}`,
    ).join('\n')
  return [
    '# Project guide',
    '',
    '## Architecture',
    '',
    bullets('architecture', 50, 280),
    '',
    '## Testing',
    '',
    bullets('testing', 30, 220),
    '',
    '## Style',
    '',
    bullets('style', 10, 150),
    '',
    '## Deploy',
    '',
    bullets('deploy', 4, 100),
    '',
  ].join('\n')
}

const SECRETS_MD = [
  '# Ops notes',
  '',
  '## Services',
  '',
  '- The API runs on port 8080 behind nginx',
  '- Staging database password: Tr0ub4dor&3x',
  '- Telegram bot token: TELEGRAM_BOT_TOKEN in .env',
  '- Old bot token: 845120...HFXI (revoked in May)',
  '',
  '## Keys',
  '',
  '- Use sk-proj-4f9Qm2Lx8Vb1Nc7Tz3Rw6Yh0Kd5Js2Pa for the OpenAI sandbox',
  '- Rotate keys every 90 days',
  '',
].join('\n')

function sandbox() {
  const { dir, run } = cliSandbox(tmp, `c${++n}-`)
  const list = () => run(['list', '--json']).json().entries
  return { dir, run, list }
}

describe('an import over budget says how far, where, and what to do', { skip }, () => {
  it('CLI: a 21 KB CLAUDE.md into an empty store names the layer, the overshoot, the largest sections and the flags', () => {
    const { dir, run, list } = sandbox()
    const file = path.join(dir, 'CLAUDE.md')
    fs.writeFileSync(file, bigClaudeMd())
    assert.ok(fs.statSync(file).size > 20_000)
    const r = run(['import', '-y', '--adapter', 'claude-code-memory-md', file])
    assert.equal(r.code, 1)
    const msg = r.err
    assert.doesNotMatch(msg, /consolidate or remove entries/)
    const head =
      /BUDGET_EXCEEDED: import: this import needs (\d+) chars in agent\/workspace, which has 4000 of its 4000 free: (\d+) chars over\. Nothing was written\./.exec(
        msg,
      )
    assert.ok(head, msg)
    assert.equal(Number(head[2]), Number(head[1]) - 4000)
    // sections biggest first, with their lines in the source and their sizes
    const sections = [...msg.matchAll(/^ {2}- (.+?) \(CLAUDE\.md lines (\d+)-(\d+)\): (\d+) chars in (\d+) entries/gm)].map((m) => [
      m[1],
      Number(m[5]),
    ])
    assert.deepEqual(
      sections.map(([s]) => s),
      ['Project guide › Architecture', 'Project guide › Testing', 'Project guide › Style', 'Project guide › Deploy'],
    )
    assert.deepEqual(
      sections.map(([, k]) => k),
      [50, 30, 10, 4],
    )
    assert.match(msg, /--budgets '\{"agent":\{"workspace":\d+\}\}'/)
    assert.match(msg, /--track user\|agent --scope user-global\|workspace/)
    assert.match(msg, /--dry-run/)
    assert.equal(list().length, 0, 'nothing written')
    // the dry run shows each layer's total, the number the budget is compared with
    const dry = run(['import', '--dry-run', '--adapter', 'claude-code-memory-md', file])
    assert.match(dry.out, new RegExp(`^ {2}agent/workspace: ${head[1]} chars in 94 entries$`, 'm'))
    // and the suggested budget is enough
    const budget = /--budgets '(\{[^']+\})'/.exec(msg)[1]
    const ok = run(['import', '-y', '--adapter', 'claude-code-memory-md', '--budgets', budget, file])
    assert.equal(ok.code, 0, ok.err)
    assert.equal(list().length, 94)
  })

  it('CLI: a memory-standard note larger than its layer is named by its topic', () => {
    const { dir, run } = sandbox()
    const root = path.join(dir, 'mm')
    fs.mkdirSync(path.join(root, 'memories'), { recursive: true })
    fs.writeFileSync(
      path.join(root, 'MEMORY.md'),
      '# MEMORY.md\n\n## editor-prefs\n- **summary:** Editor settings\n- **file:** memories/editor-prefs.md\n\n## deploy-runbook\n- **summary:** How releases go out\n- **file:** memories/deploy-runbook.md\n',
    )
    fs.writeFileSync(path.join(root, 'memories', 'editor-prefs.md'), 'Uses vim keybindings everywhere.\n')
    fs.writeFileSync(path.join(root, 'memories', 'deploy-runbook.md'), `${'Step: tag, build, sign, upload, announce. '.repeat(110)}\n`)
    const r = run(['import', '-y', '--adapter', 'memory-standard', root])
    assert.equal(r.code, 1)
    assert.match(r.err, /chars in agent\/user-global, which has 4000 of its 4000 free/)
    assert.match(r.err, /^ {2}- deploy-runbook \(MEMORY\.md line 7\): \d+ chars in 1 entry, more than the layer's whole budget$/m)
    assert.match(r.err, /^ {2}- editor-prefs \(MEMORY\.md line 3\): \d+ chars in 1 entry$/m)
  })
  it('CLI: names the layers the whole import fits in, and --json carries the sections', () => {
    const { dir, run } = sandbox()
    const file = path.join(dir, 'AGENTS.md')
    fs.writeFileSync(file, `# Notes\n\n${Array.from({ length: 12 }, (_, i) => `- note ${i}: ${'x'.repeat(230)}`).join('\n')}\n`)
    const r = run(['import', '-y', '--json', '--track', 'user', '--adapter', 'claude-code-memory-md', file])
    assert.equal(r.code, 1)
    assert.match(
      r.err,
      /--track user\|agent --scope user-global\|workspace \(room for it: agent\/user-global 4000, agent\/workspace 4000 chars free\)/,
    )
    const { error } = JSON.parse(r.out)
    assert.equal(error.code, 'BUDGET_EXCEEDED')
    assertValidError(error)
    assert.deepEqual(
      { ...error.details, sections: undefined },
      { track: 'user', scope: 'workspace', used: 0, limit: 2000, needed: error.details.needed, sections: undefined },
    )
    assert.deepEqual(error.details.sections, [{ section: 'Notes', chars: error.details.needed, entries: 12, fromLine: 3, toLine: 14 }])
  })
})

describe('the budget explanation of a large import', () => {
  it('names a section of 300,000 entries with its lines (taking their range overflowed the stack)', () => {
    const t = strings('en').cmd
    const inputs = Array.from({ length: 300_000 }, () => ({ track: 'agent', scope: 'workspace', text: 'x', tags: ['Big'] }))
    const origins = inputs.map((_, i) => ({ file: 'CLAUDE.md', line: i + 1 }))
    const refused = memoryError('BUDGET_EXCEEDED', 'over budget', {
      track: 'agent',
      scope: 'workspace',
      used: 0,
      limit: 4000,
      needed: 300_000,
    })
    const provider = { budgets: () => [{ track: 'agent', scope: 'workspace', used: 0, limit: 4000 }] }
    const e = explainImportError(refused, { inputs, origins, provider, keys: { workspaceKey: '/w' }, t, own: t['/memory'] })
    assert.deepEqual(e.details.sections, [{ section: 'Big', chars: 300_000, entries: 300_000, fromLine: 1, toLine: 300_000 }])
  })
})

describe('an import with credentials names every one and can leave them out', { skip }, () => {
  it('CLI: names each flagged entry (line, kind, redacted excerpt); env-var names and redacted values are not flagged; --skip-flagged imports the rest in one seed', () => {
    const { dir, run, list } = sandbox()
    const file = path.join(dir, 'CLAUDE.md')
    fs.writeFileSync(file, SECRETS_MD)
    const r = run(['import', '-y', '--adapter', 'claude-code-memory-md', file])
    assert.equal(r.code, 1)
    assert.match(
      r.err,
      /INVALID_INPUT: import: 2 of 6 entries look like they contain credentials; memory is injected into every future prompt, so nothing was written:/,
    )
    assert.match(
      r.err,
      /^ {2}- CLAUDE\.md line 6 \(Ops notes › Services\): a password or token assignment: "Staging database password: <redacted>"$/m,
    )
    assert.match(r.err, /^ {2}- CLAUDE\.md line 12 \(Ops notes › Keys\): an OpenAI API key: "Use <redacted> for the OpenAI sandbox"$/m)
    assert.doesNotMatch(r.err, /Tr0ub4dor|4f9Qm2Lx/, 'the refusal does not repeat the credentials')
    assert.doesNotMatch(r.err, /TELEGRAM_BOT_TOKEN|HFXI/, 'a variable name and a redacted value are not flagged')
    assert.match(r.err, /Import the other 4 without them: add --skip-flagged/)
    assert.equal(list().length, 0)
    const { error } = JSON.parse(run(['import', '-y', '--json', '--adapter', 'claude-code-memory-md', file]).out)
    assertValidError(error)
    assert.deepEqual(
      error.details.flagged.map((f) => [f.index, f.field, f.where]),
      [
        [1, 'text', 'CLAUDE.md line 6'],
        [4, 'text', 'CLAUDE.md line 12'],
      ],
    )
    const skipped = run(['import', '-y', '--skip-flagged', '--adapter', 'claude-code-memory-md', file])
    assert.equal(skipped.code, 0, skipped.err)
    assert.match(skipped.err, /left out 2 entries that look like credentials:\n {2}- CLAUDE\.md line 6 .*\n {2}- CLAUDE\.md line 12 /)
    assert.match(
      skipped.out,
      /^Imported 4 entries via adapter claude-code-memory-md \(one approval, one transaction; budgets checked\)\. Left out 2 flagged as credentials\./,
    )
    const texts = list().map((e) => e.text)
    assert.equal(texts.length, 4)
    assert.ok(texts.some((t) => t.includes('TELEGRAM_BOT_TOKEN')))
    assert.ok(!texts.some((t) => /Tr0ub4dor|sk-proj/.test(t)))
    const audit = JSON.parse(run(['audit', '--json']).out)
    assert.deepEqual(
      audit.map((x) => x.action),
      ['add', 'add', 'add', 'add', 'seed'],
      'one seed of the four, audited per entry',
    )
  })
})

describe('the native screen an import asks', { skip }, () => {
  it('names each flagged entry once, by the first field a write screens (text, source, tags), with the credential redacted', async () => {
    const { native: addon } = await import('../lib/native.mjs')
    const entry = (text, extra = {}) => ({ track: 'user', scope: 'workspace', text, ...extra })
    const flagged = addon.screenEntries([
      entry('Rotate keys every 90 days', { source: 'CLAUDE.md', tags: ['Keys'] }),
      entry('ok', { source: 'password=Tr0ub4dor&3x' }),
      entry('ok', { tags: ['Keys', 'AKIAIOSFODNN7EXAMPLE1'] }),
      entry('intro\n- Staging database password: Tr0ub4dor&3x and sk-proj-4f9Qm2Lx8Vb1Nc7Tz3Rw6Yh0Kd5Js2Pa\nend', {
        tags: ['AKIAIOSFODNN7EXAMPLE1'],
      }),
    ])
    assert.deepEqual(flagged, [
      { index: 1, kind: 'a password or token assignment', field: 'source', excerpt: 'password=<redacted>' },
      { index: 2, kind: 'an AWS access key id', field: 'tags', excerpt: '<redacted>' },
      {
        index: 3,
        kind: 'a password or token assignment',
        field: 'text',
        excerpt: '- Staging database password: <redacted> and <redacted>',
      },
    ])
    assert.throws(
      () => addon.screenEntries([entry('ok'), { track: 'user' }]),
      (e) => e.code === 'INVALID_INPUT' && /^entry 1: /.test(e.message),
    )
  })
})

describe('/memory import explains the same refusals (en and zh)', { skip }, () => {
  const apply = native.apply
  function setup(config = {}) {
    const ctx = mockCtx()
    apply(ctx, { dbPath: path.join(tmp, `p${++n}.db`), ...config })
    ctxs.push(ctx)
    return { ctx, memory: ctx.get('memory') }
  }
  const cmd = async (ctx, line) => (await ctx.commands.execute(makeAgent({ cwd: '/ws/a' }), line)).result

  it('over budget: the config key to raise, the layer flags and --dry-run', async () => {
    const { ctx } = setup()
    const file = path.join(tmp, `big${n}.md`)
    fs.writeFileSync(file, bigClaudeMd())
    const r = await cmd(ctx, `/memory import --adapter=claude-code-memory-md ${file}`)
    assert.equal(r.kind, 'error')
    assert.match(r.text, /^memory BUDGET_EXCEEDED: import: this import needs \d+ chars in agent\/workspace/)
    assert.match(r.text, /raise budgets\.agent\.workspace to at least \d+ in the dsh-memento plugin config/)
    assert.match(r.text, /--track=user\|agent --scope=user-global\|workspace/)
    assert.match(r.text, /\/memory import --dry-run <path>/)
    const dry = await cmd(ctx, `/memory import --dry-run --adapter=claude-code-memory-md ${file}`)
    assert.equal(dry.kind, 'success', dry.text)
    assert.match(dry.text, /^Would import 94 entries via adapter claude-code-memory-md \(dry run; nothing was written\):/)
  })

  it('zh: credentials named, then --skip-flagged imports the rest', async () => {
    const { ctx, memory } = setup({ language: 'zh' })
    const file = path.join(tmp, `secrets${n}.md`)
    fs.writeFileSync(file, SECRETS_MD)
    const r = await cmd(ctx, `/memory import --adapter=claude-code-memory-md ${file}`)
    assert.equal(r.kind, 'error')
    assert.match(r.text, /import：6 条中有 2 条看起来包含凭据/)
    assert.match(
      r.text,
      /secrets\d+\.md 第 6 行（Ops notes › Services）：a password or token assignment："Staging database password: <redacted>"/,
    )
    assert.match(r.text, /不含这些条目导入其余 4 条：\/memory import --skip-flagged <路径>/)
    const ok = await cmd(ctx, `/memory import --skip-flagged --adapter=claude-code-memory-md ${file}`)
    assert.equal(ok.kind, 'success', ok.text)
    assert.match(ok.text, /已略过 2 条疑似凭据的条目/)
    assert.match(ok.text, /警告：已略过 2 条看起来包含凭据的条目：/)
    assert.equal(memory.listEntries().length, 4)
  })

  it('export of more than 1000 entries: /memory says where the parts go instead of printing a document no importer takes', async () => {
    const dbPath = path.join(tmp, `big${++n}.db`)
    const big = { userGlobal: 100_000, workspace: 100_000 }
    const p = new native.MemoryProvider({ dbPath, gate: async () => 'allowed-once', budgets: { user: big, agent: big } })
    await p.seed(
      Array.from({ length: 1001 }, (_, i) => ({ track: 'agent', scope: 'user-global', text: `fact ${i}` })),
      { agent: { session: { id: 's', header: {} } } },
    )
    p.close()
    const ctx = mockCtx()
    apply(ctx, { dbPath, budgets: { user: big, agent: big } })
    ctxs.push(ctx)
    const r = await cmd(ctx, '/memory export')
    assert.equal(r.kind, 'error')
    assert.equal(
      r.text,
      'the store holds more than 1000 entries, the most one export document carries; write them into a directory as parts with a manifest: dsh-memento export --out-dir <dir> (in a terminal; /memory import <dir> restores every part in one approval)',
    )
  })
})
