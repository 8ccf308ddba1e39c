// The real bin/dsh-memento.mjs, spawned against real temporary stores.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { skip } from './support/provider.mjs'
import { workspaceKeyOf } from './support/keys.mjs'
import { BIN, cliSandbox } from './support/cli.mjs'

const FIX = fileURLToPath(new URL('./fixtures/adapters/', import.meta.url))
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'memento-cli-'))
after(() => fs.rmSync(tmp, { recursive: true, force: true }))

const schema = JSON.parse(fs.readFileSync(new URL('../schemas/dsh-memory-protocol-v1.schema.json', import.meta.url), 'utf8'))
const ajv = new Ajv2020({ strict: false })
addFormats(ajv)
ajv.addSchema(schema)
const validEnvelope = ajv.getSchema(`${schema.$id}#/$defs/exportEnvelope`)
const extensions = JSON.parse(fs.readFileSync(new URL('../schemas/dsh-memento-extensions-v1.schema.json', import.meta.url), 'utf8'))
const validManifest = ajv.addSchema(extensions).getSchema(`${extensions.$id}#/$defs/exportManifest`)

/** A fresh $DSH_HOME + workspace dir per test. */
const sandbox = () => cliSandbox(tmp)

describe('dsh-memento CLI', { skip }, () => {
  it('prints help, and exits 2 on unknown commands and options', () => {
    const { run } = sandbox()
    assert.match(run(['--help']).out, /^Usage: dsh-memento <command>/)
    assert.equal(run(['frobnicate']).code, 2)
    assert.equal(run(['list', '--bogus']).code, 2)
    assert.equal(run([]).code, 2)
    const usage = run(['proposals', 'frob'])
    assert.deepEqual(
      [usage.code, usage.err],
      [2, 'dsh-memento: proposals usage: dsh-memento proposals | proposals approve <id> | proposals dismiss <id>\n'],
    )
    assert.match(run(['add', '-y']).err, /^dsh-memento: add needs text: dsh-memento add \[--track user\|agent\]/)
    assert.equal(run(['query']).code, 2)
  })

  it('reads an absent store as empty without creating it ($DSH_HOME resolution)', () => {
    const { run, db } = sandbox()
    assert.equal(run(['list']).out, 'Memory is empty.\n')
    assert.deepEqual(run(['list', '--json']).json(), { entries: [], total: 0, truncated: false })
    assert.match(
      run(['budgets']).out,
      /- user\/user-global: 0\/2000\n- user\/workspace: 0\/2000\n- agent\/user-global: 0\/4000\n- agent\/workspace: 0\/4000/,
    )
    assert.equal(run(['budgets', '--json']).json().length, 4)
    assert.equal(run(['audit']).out, 'Audit is empty.\n')
    assert.equal(run(['audit', '--verify']).out, 'Audit chain verified: 0 rows, head (empty)\n')
    assert.equal(run(['add', '-y']).code, 2, 'a write without its text is refused before the store is opened')
    assert.equal(fs.existsSync(db), false)
    const blank = run(['add', '-y', '   '])
    assert.deepEqual(
      [blank.code, blank.err],
      [1, 'dsh-memento: INVALID_INPUT: entry text must be a non-empty string (it is only white space)\n'],
      "the provider's text rule, as on every surface",
    )
  })

  it('uses the budgets the plugin recorded in the store, unless --budgets says otherwise', async () => {
    const { run, db } = sandbox()
    const { MemoryProvider } = await import('../index.mjs')
    const budgets = { user: { userGlobal: 9000, workspace: 2000 }, agent: { userGlobal: 4000, workspace: 4000 } }
    // What the plugin does when it opens the store with raised budgets.
    new MemoryProvider({ dbPath: db, gate: async () => 'allowed-once', budgets, recordBudgets: true }).close()
    const long = 'x'.repeat(2500)
    assert.equal(
      run(['add', '-y', '--scope', 'user-global', long]).code,
      0,
      'a later CLI write is checked against the recorded 9000, not the default 2000',
    )
    assert.match(run(['budgets']).out, /- user\/user-global: 2500\/9000\n/)
    const flag = run(['add', '-y', '--scope', 'user-global', '--budgets', '{"user":{"userGlobal":3000}}', long])
    assert.deepEqual([flag.code, /BUDGET_EXCEEDED/.test(flag.err)], [1, true], '--budgets still wins for its run')
    assert.match(run(['budgets']).out, /- user\/user-global: 2500\/9000\n/, 'and a flag is not recorded')
  })

  it('refuses writes with no TTY and no --yes as WRITE_DENIED, and audits the refusal', () => {
    const { run, db } = sandbox()
    const r = run(['add', 'should not land'])
    assert.equal(r.code, 1)
    assert.match(r.err, /WRITE_DENIED: memory write not approved \(approval outcome: unavailable\)/)
    assert.match(r.err, /pass --yes/)
    assert.ok(fs.existsSync(db))
    assert.equal(run(['list', '--json']).json().total, 0)
    const [row] = run(['audit', '--json']).json()
    assert.equal(row.action, 'add-denied')
    assert.equal(row.outcome, 'unavailable (via cli no-tty, writePolicy ask)')
    assert.equal(row.text, 'should not land')
    const j = run(['add', '--json', 'x'])
    assert.equal(j.json().error.code, 'WRITE_DENIED')
  })

  it('add/query/list/replace/consolidate/remove with --yes, audited as cli --yes', () => {
    const { run, ws } = sandbox()
    let r = run(['add', '--yes', '--tags', 'style,tone', 'Prefers short answers'])
    assert.equal(r.code, 0, r.err)
    assert.equal(r.out, 'Added (user/workspace): Prefers short answers\nLayer usage: 21/2000\n')
    assert.equal(run(['add', '-y', '--track', 'agent', '--scope', 'user-global', 'Use pnpm, not npm']).code, 0)
    assert.equal(run(['add', '-y', '--track', 'agent', '--scope', 'user-global', '--agent', 'ops', 'Deploys go through staging']).code, 0)
    const list = run(['list', '--json']).json()
    assert.equal(list.total, 3)
    assert.deepEqual(Object.keys(list.entries[0]).slice(0, 6), ['id', 'track', 'scope', 'workspaceKey', 'agentKey', 'text'])
    assert.equal(list.entries[0].workspaceKey, workspaceKeyOf(ws))
    assert.deepEqual(list.entries[0].tags, ['style', 'tone'])
    assert.equal(list.entries[2].agentKey, 'ops')
    assert.match(
      run(['list']).out,
      /^Memory entries \(3\):\n- \[user\/workspace @.*\] Prefers short answers {2}\(tags: style, tone\)\n- \[agent\/user-global\] Use pnpm, not npm\n- \[agent\/user-global #ops\] Deploys go through staging\n$/,
    )
    assert.match(run(['query', 'PNPM']).out, /^Matches \(1\):\n- \[agent\/user-global\] Use pnpm, not npm/)
    assert.equal(run(['query', 'nothing-like-this']).out, 'No entry contains "nothing-like-this".\n')
    assert.equal(run(['query', '--json', 'pnpm']).json().total, 1)

    r = run(['replace', '-y', '--track', 'agent', '--scope', 'user-global', 'pnpm', 'Use pnpm 9, never npm or yarn'])
    assert.equal(r.code, 0, r.err)
    assert.match(r.out, /Replaced \(agent\/user-global\): Use pnpm, not npm\n {2}-> Use pnpm 9, never npm or yarn/)
    assert.equal(run(['add', '-y', '--track', 'agent', '--scope', 'user-global', 'Lint with eslint']).code, 0)
    r = run(['consolidate', '-y', '--track', 'agent', '--scope', 'user-global', 'pnpm 9', 'eslint', '=>', 'Tooling: pnpm 9 and eslint'])
    assert.equal(r.code, 0, r.err)
    assert.match(r.out, /removed 2, added 1\.\nNew entry: Tooling: pnpm 9 and eslint/)
    r = run(['remove', '-y', 'short answers'])
    assert.equal(r.code, 0, r.err)
    assert.match(r.out, /^Removed \(user\/workspace\): Prefers short answers/)
    r = run(['remove', '-y', 'no such entry'])
    assert.equal(r.code, 1)
    assert.match(r.err, /ENTRY_NOT_FOUND/)

    const audit = run(['audit', '--json']).json()
    const actions = audit.map((a) => a.action)
    for (const a of ['add', 'replace', 'consolidate-add', 'consolidate-remove', 'remove']) assert.ok(actions.includes(a), a)
    assert.ok(
      audit.filter((a) => !a.action.endsWith('-denied')).every((a) => a.outcome === 'allowed-once (via cli --yes, writePolicy ask)'),
    )
    assert.match(
      run(['audit']).out,
      /^Recent audit \(\d+ rows\):\n- #\d+ \d{4}-.*remove user\/workspace allowed-once \(via cli --yes, writePolicy ask\) \(cli\): Prefers short answers\n/,
    )
  })

  it('--db selects the store file explicitly', () => {
    const { run, dir, db } = sandbox()
    const other = path.join(dir, 'elsewhere', 'my.db')
    assert.equal(run(['add', '-y', '--db', other, 'in the other store']).code, 0)
    assert.ok(fs.existsSync(other))
    assert.equal(fs.existsSync(db), false)
    assert.equal(run(['list', '--db', other, '--json']).json().total, 1)
    assert.equal(run(['list', '--json']).json().total, 0)
  })

  it('--budgets raises layer limits for stores configured beyond the defaults', () => {
    const { run } = sandbox()
    const big = 'x'.repeat(2500)
    assert.match(run(['add', '-y', big]).err, /BUDGET_EXCEEDED/)
    assert.equal(run(['add', '-y', '--budgets', '{"user":{"workspace":3000}}', big]).code, 0)
  })

  it('export is a schema-valid envelope (with sessionId); import into a fresh store is lossless', () => {
    const a = sandbox()
    a.run(['add', '-y', '--tags', 'k1,k2', 'user fact'])
    a.run(['add', '-y', '--track', 'agent', '--scope', 'workspace', '--agent', 'ops', 'agent fact\nline two'])
    a.run(['add', '-y', '--track', 'agent', '--scope', 'user-global', '中文 fact 🚀'])
    const file = path.join(a.dir, 'export.json')
    const r = a.run(['export', '--out', file])
    assert.equal(r.code, 0, r.err)
    const env = JSON.parse(fs.readFileSync(file, 'utf8'))
    assert.ok(validEnvelope(env), JSON.stringify(validEnvelope.errors))
    assert.ok(env.entries.every((e) => typeof e.sessionId === 'string'))
    assert.deepEqual(a.run(['export']).json().entries.length, 3)

    const b = sandbox()
    const dry = b.run(['import', '--dry-run', file])
    assert.match(dry.out, /^Would import 3 entries from the export document \(dry run/)
    assert.equal(b.run(['list', '--json']).json().total, 0)
    const denied = b.run(['import', file])
    assert.equal(denied.code, 1)
    assert.equal(b.run(['list', '--json']).json().total, 0)
    const ok = b.run(['import', '-y', '--agent', 'someone-else', file])
    assert.equal(ok.code, 0, ok.err)
    assert.match(ok.out, /^Imported 3 entries from the export document \(one approval, one transaction; budgets checked\)/)
    const f = (e) => JSON.stringify([e.track, e.scope, e.workspaceKey, e.agentKey, e.text, e.source, e.tags])
    assert.deepEqual(b.run(['list', '--json']).json().entries.map(f).sort(), env.entries.map(f).sort())
    const again = b.run(['import', '-y', '--skip-existing', file])
    assert.match(again.out, /Imported 0 entries .* Skipped 3 already present/)
    const audit = b.run(['audit', '--json']).json()
    assert.equal(audit.filter((x) => x.action === 'seed').length, 1)
    assert.equal(audit.find((x) => x.action === 'seed').outcome, 'allowed-once (via cli --yes, writePolicy ask)')
  })

  it('an import names the entry the provider refuses, in a dry run too, and writes nothing', () => {
    const { run, dir } = sandbox()
    const file = path.join(dir, 'one-bad.json')
    const entries = [
      { track: 'user', scope: 'user-global', text: 'fine' },
      { track: 'user', scope: 'galaxy', text: 'x' },
    ]
    fs.writeFileSync(
      file,
      JSON.stringify({ plugin: 'dsh-memento', schema: 'memory-export-v1', exportedAt: '2026-01-01T00:00:00.000Z', budgets: [], entries }),
    )
    for (const args of [
      ['import', '-y', file],
      ['import', '--dry-run', file],
      ['import', '-y', '--skip-flagged', file],
    ]) {
      const r = run(args)
      assert.equal(r.code, 1, args.join(' '))
      assert.match(r.err, /INVALID_INPUT: import: entries\[1\]: invalid memory scope/, args.join(' '))
    }
    assert.equal(run(['list', '--json']).json().total, 0)
  })

  it('import reports bad JSON with a line (B13) and unreadable files separately', () => {
    const { run, dir } = sandbox()
    const bad = path.join(dir, 'bad.json')
    fs.writeFileSync(bad, '{\n  "plugin": "dsh-memento",\n  oops\n}\n')
    let r = run(['import', '-y', bad])
    assert.equal(r.code, 1)
    assert.match(r.err, /INVALID_INPUT: import: ".*bad.json" is not valid JSON \(line 3\)/)
    r = run(['import', '-y', path.join(dir, 'missing.json')])
    assert.match(r.err, /import: cannot read ".*missing.json"/)
    r = run(['import', '-y', '{"plugin":"other"}'])
    assert.match(r.err, /not a dsh-memento export document/)
  })

  it('exports more than 1000 entries as complete v1 envelopes and a manifest; importing the set is one approval, an incomplete set is refused', () => {
    const { run, dir } = sandbox()
    const entries = Array.from({ length: 1200 }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      track: 'agent',
      scope: i % 2 ? 'workspace' : 'user-global',
      workspaceKey: i % 2 ? '/w' : '',
      agentKey: '',
      text: `${i}`,
      source: 'bulk',
      tags: [],
      version: 1,
      createdAt: 1,
      updatedAt: 1,
      lastRecalled: null,
      recallCount: 0,
      sessionId: null,
    }))
    const budgets = [
      ['user', 'user-global'],
      ['user', 'workspace'],
      ['agent', 'user-global'],
      ['agent', 'workspace'],
    ].map(([track, scope]) => ({ track, scope, used: 0, limit: 4000 }))
    const whole = { plugin: 'dsh-memento', schema: 'memory-export-v1', exportedAt: '2026-11-01T00:00:00.000Z', budgets, entries }
    const src = path.join(dir, 'whole.json')
    fs.writeFileSync(src, JSON.stringify(whole))
    let r = run(['import', '-y', src])
    assert.equal(r.code, 0, r.err)
    assert.match(r.err, /1200 entries validated; asking for one approval/)
    assert.match(r.err, /1200 entries written in one transaction/)
    // stdout holds one document: 1200 entries do not fit, and the CLI says where they go
    r = run(['export'])
    assert.equal(r.code, 2)
    assert.equal(r.out, '')
    assert.match(r.err, /more than 1000 entries, the most one export document carries; .*dsh-memento export --out-dir <dir>/)
    const parts = path.join(dir, 'parts')
    r = run(['export', '--out-dir', parts])
    assert.equal(r.code, 0, r.err)
    assert.match(r.err, /exported 1200 entries into .* as 2 parts and a manifest/)
    const names = fs.readdirSync(parts).sort()
    assert.deepEqual(names, ['memory-export.manifest.json', 'memory-export.part-001-of-002.json', 'memory-export.part-002-of-002.json'])
    const docs = names.map((f) => JSON.parse(fs.readFileSync(path.join(parts, f), 'utf8')))
    for (const env of docs.slice(1)) assert.ok(validEnvelope(env), JSON.stringify(validEnvelope.errors))
    assert.deepEqual(
      docs.slice(1).map((d) => [Object.keys(d).includes('part'), d.entries.length, d.exportedAt]),
      [
        [false, 1000, docs[0].exportedAt],
        [false, 200, docs[0].exportedAt],
      ],
    )
    assert.ok(validManifest(docs[0]), JSON.stringify(validManifest.errors))
    // each part imports on its own; the directory (or its manifest) imports all of them at once
    assert.match(
      run(['import', '-y', '--db', path.join(dir, 'one.db'), path.join(parts, names[2])]).out,
      /Imported 200 entries from the export document/,
    )
    r = run(['import', '-y', '--db', path.join(dir, 'all.db'), parts])
    assert.equal(r.code, 0, r.err)
    assert.match(r.out, /Imported 1200 entries from 2 parts \(one approval, one transaction/)
    assert.match(
      run(['import', '-y', '--db', path.join(dir, 'm.db'), path.join(parts, names[0])]).out,
      /Imported 1200 entries from 2 parts/,
    )
    // a missing or altered part refuses the whole set, and nothing is written
    fs.renameSync(path.join(parts, names[2]), path.join(dir, 'aside.json'))
    r = run(['import', '-y', '--db', path.join(dir, 'none.db'), parts])
    assert.equal(r.code, 1)
    assert.match(
      r.err,
      /the export is incomplete: .* lists 2 parts and memory-export.part-002-of-002.json is missing; nothing was imported/,
    )
    assert.equal(run(['list', '--db', path.join(dir, 'none.db'), '--json']).json().total, 0)
    fs.writeFileSync(path.join(parts, names[2]), fs.readFileSync(path.join(dir, 'aside.json'), 'utf8').replace('"1199"', '"1199 edited"'))
    assert.match(run(['import', '-y', '--db', path.join(dir, 'none.db'), parts]).err, /sha256 differs/)
    // the export refuses to mix into a directory that already holds files
    assert.equal(run(['export', '--out-dir', parts]).code, 2)
    assert.equal(run(['export', '--out-dir', parts, '--force']).code, 0)
  })

  it('still imports an older export whose parts carry `part` numbers (a JSON array), and refuses an incomplete one', () => {
    const { run, dir } = sandbox()
    const env = (i, count) => ({
      plugin: 'dsh-memento',
      schema: 'memory-export-v1',
      exportedAt: '2026-11-01T00:00:00.000Z',
      budgets: [],
      entries: [{ track: 'user', scope: 'user-global', text: `old ${i}` }],
      part: { index: i, count },
    })
    const file = path.join(dir, 'old.json')
    fs.writeFileSync(file, JSON.stringify([env(2, 2), env(1, 2)]))
    const r = run(['import', '-y', file])
    assert.equal(r.code, 0, r.err)
    assert.deepEqual(
      run(['list', '--json'])
        .json()
        .entries.map((e) => e.text)
        .sort(),
      ['old 1', 'old 2'],
    )
    fs.writeFileSync(file, JSON.stringify(env(1, 2)))
    assert.match(run(['import', '-y', file]).err, /missing part 2 of 2/)
  })

  it('adapters: lists them, imports each real-shaped fixture, and fails loudly with a line', () => {
    const { run } = sandbox()
    assert.deepEqual(
      run(['adapters', '--json'])
        .json()
        .map((a) => a.id),
      ['claude-code-memory-md', 'hermes-memory-md', 'mem0', 'memory-standard'],
    )
    assert.match(run(['adapters']).out, /^Memory adapters \(4\):/)
    const imports = [
      ['mem0', path.join(FIX, 'mem0/get-all-results.json'), 3],
      ['hermes-memory-md', path.join(FIX, 'hermes'), 10], // MEMORY.md (3) + USER.md (3) + the dir's other files are ignored
      ['claude-code-memory-md', path.join(FIX, 'claude-code/AGENTS.md'), 5],
      ['memory-standard', path.join(FIX, 'memory-standard/root'), 3],
    ]
    let total = 0
    for (const [id, p, expected] of imports) {
      const r = run(['import', '-y', '--adapter', id, p])
      const want = id === 'hermes-memory-md' ? 6 : expected
      assert.equal(r.code, 0, `${id}: ${r.err}`)
      assert.match(r.out, new RegExp(`^Imported ${want} entries via adapter ${id}`))
      total += want
    }
    assert.match(run(['import', '-y', '--adapter', 'memory-standard', path.join(FIX, 'memory-standard/root')]).err, /dangling index entry/)
    const list = run(['list', '--json']).json()
    assert.equal(list.total, total + 3)
    assert.ok(list.entries.some((e) => e.source === 'hermes-memory-md' && e.track === 'user'))
    const bad = run(['import', '-y', '--adapter', 'mem0', path.join(FIX, 'mem0/malformed-item.json')])
    assert.equal(bad.code, 1)
    assert.match(bad.err, /ADAPTER_PAYLOAD: adapter "mem0": line 4: /)
    assert.match(run(['import', '-y', '--adapter', 'mem0', '--json', path.join(FIX, 'mem0/malformed-item.json')]).out, /"line": 4/)
    assert.match(run(['import', '-y', '--adapter', 'nope', path.join(FIX, 'mem0/messages.json')]).err, /ADAPTER_NOT_FOUND/)
    assert.equal(run(['list', '--json']).json().total, total + 3, 'nothing partial landed')
  })

  it('re-running an adapter import with --skip-existing adds nothing (resume-safe)', () => {
    const { run } = sandbox()
    const dir = path.join(FIX, 'hermes')
    assert.match(run(['import', '-y', '--adapter', 'hermes-memory-md', dir]).out, /^Imported 6 entries/)
    assert.match(
      run(['import', '-y', '--skip-existing', '--adapter', 'hermes-memory-md', dir]).out,
      /^Imported 0 entries .*Skipped 6 already present/,
    )
    const claude = path.join(FIX, 'claude-code/AGENTS.md')
    assert.match(run(['import', '-y', '--adapter', 'claude-code-memory-md', claude]).out, /^Imported 5 entries/)
    assert.match(run(['import', '-y', '--skip-existing', '--adapter', 'claude-code-memory-md', claude]).out, /Skipped 5 already present/)
    assert.equal(run(['list', '--json']).json().total, 11)
  })

  it('export --adapter writes real files that import back', () => {
    const a = sandbox()
    a.run(['add', '-y', '--track', 'agent', '--scope', 'user-global', '--tags', 'infra', 'Deploy region is us-east-1'])
    a.run(['add', '-y', '--track', 'user', '--scope', 'user-global', 'Prefers tabs'])
    const mm = path.join(a.dir, 'mm')
    let r = a.run(['export', '--adapter', 'memory-standard', '--out', mm])
    assert.equal(r.code, 0, r.err)
    assert.ok(fs.existsSync(path.join(mm, 'MEMORY.md')) && fs.existsSync(path.join(mm, 'memories', 'deploy-region-is-us-east-1.md')))
    assert.match(a.run(['export', '--adapter', 'memory-standard', '--out', mm]).err, /not empty; pass --force/)
    r = a.run(['export', '--adapter', 'claude-code-memory-md'])
    assert.match(r.out, /^# dsh-memento memory: user\/user-global\n\n- Prefers tabs\n/m)
    r = a.run(['export', '--adapter', 'mem0'])
    assert.equal(r.json().results.length, 2)
    assert.match(a.run(['export', '--adapter', 'hermes-memory-md']).err, /pass --out <dir>/)
    const b = sandbox()
    r = b.run(['import', '-y', '--adapter', 'memory-standard', mm])
    assert.equal(r.code, 0, r.err)
    const f = (e) => JSON.stringify([e.track, e.scope, e.text, e.tags, e.source])
    assert.deepEqual(b.run(['list', '--json']).json().entries.map(f).sort(), a.run(['list', '--json']).json().entries.map(f).sort())
  })

  it('audit --verify reports the hash chain', () => {
    const { run } = sandbox()
    run(['add', '-y', 'x'])
    const r = run(['audit', '--verify'])
    assert.equal(r.code, 0, r.err)
    assert.match(r.out, /^Audit chain verified: 1 rows, head \S+\n$/)
    assert.equal(run(['audit', '--verify', '--json']).json().ok, true)
  })

  it('audit --verify names the row edited on disk, and exits 1', () => {
    const { run, db } = sandbox()
    assert.equal(run(['add', 'tamper target QQQ-7']).code, 1, 'denied: no terminal, no --yes; the text is only in its audit row')
    assert.equal(run(['add', '-y', 'a later entry']).code, 0)
    const bytes = fs.readFileSync(db)
    const at = bytes.indexOf('QQQ-7')
    assert.ok(at >= 0 && bytes.indexOf('QQQ-7', at + 1) < 0, 'stored once')
    bytes[at + 4] = 0x38 // '7' -> '8': the row still parses, only its content changed
    fs.writeFileSync(db, bytes)
    const r = run(['audit', '--verify'])
    assert.equal(r.code, 1)
    assert.match(r.out, /^Audit chain BROKEN at row 1: .+ \(\d+ rows checked\)\n$/)
  })

  it('digest records proposals (never entries); approve and dismiss go through the gate', () => {
    const { run, dir } = sandbox()
    const notes = path.join(dir, 'notes.md')
    fs.writeFileSync(
      notes,
      'Meeting notes\nMEMO: staging deploys need a ticket\nremember: the CI cache key includes the lockfile\n记住：发布前跑完整测试\nnothing here\n',
    )
    let r = run(['digest', '--dry-run', notes])
    assert.match(r.out, /3 new candidate\(s\)/)
    r = run(['digest', notes])
    assert.equal(r.code, 0, r.err)
    assert.match(r.out, /3 proposal\(s\) recorded/)
    assert.match(run(['digest', notes]).out, /0 proposal\(s\) recorded, 0 proposed before, 3 skipped/)
    assert.equal(run(['list', '--json']).json().total, 0)
    const all = run(['proposals', '--json']).json()
    assert.equal(all.length, 3)
    const byText = (t) => all.find((p) => p.text === t)
    const props = [byText('staging deploys need a ticket'), byText('the CI cache key includes the lockfile'), byText('发布前跑完整测试')]
    assert.ok(props.every((p) => p && p.kind === 'digest' && p.status === 'pending' && p.source === 'digest'))
    assert.match(run(['proposals']).out, /^Pending proposals \(3\):/)
    assert.equal(run(['proposals', 'approve', props[0].id]).code, 1, 'no tty, no --yes')
    r = run(['proposals', 'approve', '-y', props[0].id])
    assert.equal(r.code, 0, r.err)
    assert.match(r.out, /^Proposal approved and written to memory \(agent\/workspace\): staging deploys need a ticket/)
    assert.equal(run(['proposals', 'dismiss', '-y', props[1].id]).out, `Proposal ${props[1].id} dismissed.\n`)
    const list = run(['list', '--json']).json()
    assert.deepEqual(
      list.entries.map((e) => [e.text, e.source]),
      [['staging deploys need a ticket', 'proposal']],
    )
    assert.match(run(['digest', notes]).out, /0 proposal\(s\) recorded/)
  })

  it('mirror writes a managed CLAUDE.md block and an mm root, one way', () => {
    const { run, dir, ws } = sandbox()
    run(['add', '-y', '--track', 'agent', '--scope', 'workspace', 'Run npm test before pushing'])
    // Not this session's: another workspace's entry, and another agent's.
    const elsewhere = path.join(dir, 'elsewhere')
    fs.mkdirSync(elsewhere)
    run(['add', '-y', '--track', 'agent', '--scope', 'workspace', '--workspace', elsewhere, 'Deploys from the elsewhere repo'])
    run(['add', '-y', '--track', 'agent', '--scope', 'workspace', '--agent', 'reviewer', 'Reviewer-only note'])
    const claude = path.join(ws, 'CLAUDE.md')
    fs.writeFileSync(claude, '# My project\n\nHand-written notes stay.\n')
    let r = run(['mirror', '--to', 'claude-md', '--file', claude, '--track', 'agent', '--scope', 'workspace'])
    assert.equal(r.code, 0, r.err)
    const text = fs.readFileSync(claude, 'utf8')
    assert.match(text, /^# My project\n\nHand-written notes stay\.\n\n<!-- dsh-memento:begin -->/)
    assert.match(text, /- Run npm test before pushing\n/)
    assert.doesNotMatch(text, /elsewhere repo|Reviewer-only/, 'only what a session here sees')
    r = run(['mirror', '--to', 'claude-md', '--file', claude, '--track', 'agent', '--scope', 'workspace'])
    assert.match(r.out, /\(unchanged\)/)
    const root = path.join(dir, 'mirror')
    r = run(['mirror', '--to', 'memory-standard', '--out', root])
    assert.equal(r.code, 0, r.err)
    assert.ok(fs.readFileSync(path.join(root, 'MEMORY.md'), 'utf8').includes('## run-npm-test-before-pushing'))
    fs.mkdirSync(path.join(dir, 'live'))
    fs.writeFileSync(path.join(dir, 'live', 'MEMORY.md'), '# MEMORY.md\n')
    assert.match(
      run(['mirror', '--to', 'memory-standard', '--out', path.join(dir, 'live')]).err,
      /refusing to overwrite a live memory root/,
    )
  })

  const hasScript = (() => {
    try {
      execFileSync('script', ['--version'], { stdio: 'ignore' })
      return true
    } catch {
      return false
    }
  })()
  it(
    'asks at a terminal, showing the full change, and audits "via cli prompt"',
    {
      skip:
        process.platform !== 'linux' && 'the pty comes from util-linux script(1): Windows has none, and BSD script takes other arguments',
    },
    () => {
      assert.ok(hasScript, 'util-linux script(1) for a pty (scripts/test-tools.sh installs it)')
      const { env, ws, run } = sandbox()
      const tty = (args, answer) =>
        spawnSync('script', ['-qec', [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' '), '/dev/null'], {
          cwd: ws,
          env,
          input: `${answer}\n`,
          encoding: 'utf8',
        })
      let r = tty(['add', 'asked at the terminal'], 'y')
      // The whole change: its layer, workspace, agent, source and tags, then its text, quoted.
      assert.match(
        r.stdout,
        /Approve this memory write\?\r?\n-+\r?\n\[dsh-memento\] add user\/workspace\r?\nnew: user\/workspace · workspace \S+ · every agent · source cli · no tags\r?\n│ asked at the terminal\r?\n-+/,
      )
      assert.match(r.stdout, /Added \(user\/workspace\): asked at the terminal/)
      r = tty(['add', 'declined at the terminal'], 'n')
      assert.match(r.stdout, /WRITE_DENIED: memory write not approved \(approval outcome: rejected\)/)
      const audit = run(['audit', '--json']).json()
      assert.equal(audit[0].outcome, 'rejected (via cli prompt, writePolicy ask)')
      assert.equal(audit[1].outcome, 'allowed-once (via cli prompt, writePolicy ask)')
      assert.deepEqual(
        run(['list', '--json'])
          .json()
          .entries.map((e) => e.text),
        ['asked at the terminal'],
      )
    },
  )
})

describe('dsh-memento export and mirror files are private and never written through a planted link', { skip }, () => {
  const posix = process.platform !== 'win32'
  const mode = (p) => fs.statSync(p).mode & 0o777
  /** A symlink at `p` to `target`; false where the OS will not make a working one (Windows without the privilege; Wine's may not resolve). */
  const NO_LINK = "Windows here makes no working symlink (no privilege, or Wine's does not resolve)"
  const plant = (target, p) => {
    try {
      fs.symlinkSync(target, p, fs.statSync(target).isDirectory() ? 'dir' : 'file')
    } catch (e) {
      if (posix) throw e
      return false
    }
    return posix || (fs.existsSync(p) && fs.lstatSync(p).isSymbolicLink())
  }
  /** A store with two entries, and a file standing in for ~/.bashrc. */
  const setup = () => {
    const box = sandbox()
    box.run(['add', '-y', '--track', 'agent', '--scope', 'workspace', 'Run npm test before pushing'])
    box.run(['add', '-y', '--track', 'agent', '--scope', 'workspace', 'Deploys need a ticket'])
    const victim = path.join(box.dir, 'bashrc')
    fs.writeFileSync(victim, 'export PATH=/usr/bin\n')
    return { ...box, victim }
  }

  it('export --out-dir --force replaces a symlink planted at a part path (its target untouched); without --force the directory is refused', (t) => {
    const { run, dir, victim } = setup()
    const out = path.join(dir, 'out')
    fs.mkdirSync(out)
    const part = path.join(out, 'memory-export.part-001-of-002.json')
    if (!plant(victim, part)) return t.skip(NO_LINK)
    let r = run(['export', '--out-dir', out, '--part-size', '1'])
    assert.equal(r.code, 2)
    assert.match(r.err, /not empty; pass --force/)
    r = run(['export', '--out-dir', out, '--part-size', '1', '--force'])
    assert.equal(r.code, 0, r.err)
    assert.equal(fs.readFileSync(victim, 'utf8'), 'export PATH=/usr/bin\n')
    assert.ok(fs.lstatSync(part).isFile())
    assert.equal(JSON.parse(fs.readFileSync(part, 'utf8')).entries.length, 1)
  })

  it('export --out FILE (also --adapter) never writes through a link or over a file: refused without --force, the link replaced with it', (t) => {
    const { run, dir, victim } = setup()
    for (const args of [['export'], ['export', '--adapter', 'claude-code-memory-md']]) {
      const file = path.join(dir, `${args.length}.out`)
      if (!plant(victim, file)) return t.skip(NO_LINK)
      let r = run([...args, '--out', file])
      assert.equal(r.code, 1)
      assert.match(r.err, /INVALID_INPUT: .*\.out already exists; pass --force to replace it/)
      r = run([...args, '--out', file, '--force'])
      assert.equal(r.code, 0, r.err)
      assert.equal(fs.readFileSync(victim, 'utf8'), 'export PATH=/usr/bin\n')
      assert.ok(fs.lstatSync(file).isFile())
      assert.match(fs.readFileSync(file, 'utf8'), /Deploys need a ticket/)
    }
  })

  it(
    'export files are 0600 and the directories it creates 0700 (store, parts, adapter files, mirror)',
    { skip: !posix && 'no POSIX modes on Windows' },
    () => {
      const { run, dir, ws } = setup()
      const file = path.join(dir, 'backup.json')
      assert.equal(run(['export', '--out', file]).code, 0)
      const parts = path.join(dir, 'new', 'parts')
      assert.equal(run(['export', '--out-dir', parts, '--part-size', '1']).code, 0)
      const mm = path.join(dir, 'mm')
      assert.equal(run(['export', '--adapter', 'memory-standard', '--out', mm]).code, 0)
      const root = path.join(dir, 'mirror')
      assert.equal(run(['mirror', '--to', 'memory-standard', '--out', root]).code, 0)
      const files = [file, ...[parts, mm, root].flatMap((d) => fs.readdirSync(d, { recursive: true }).map((n) => path.join(d, n)))]
      assert.deepEqual(
        files
          .filter((p) => fs.statSync(p).isFile())
          .map((p) => [p, mode(p).toString(8)])
          .filter(([, m]) => m !== '600'),
        [],
      )
      assert.deepEqual(
        [path.join(dir, 'new'), parts, mm, path.join(mm, 'memories'), root, path.join(root, 'memories')].map((p) => mode(p).toString(8)),
        Array(6).fill('700'),
      )
      // the user's own CLAUDE.md is edited in place: its mode is kept
      const claude = path.join(ws, 'CLAUDE.md')
      fs.writeFileSync(claude, '# Project\n', { mode: 0o664 })
      fs.chmodSync(claude, 0o664)
      assert.equal(run(['mirror', '--to', 'claude-md', '--file', claude]).code, 0)
      assert.equal(mode(claude).toString(8), '664')
    },
  )

  it('the mirror (and an adapter export) never follow a link in the root: a symlinked memories/ is refused, a planted note link is replaced', (t) => {
    const { run, dir, victim } = setup()
    const root = path.join(dir, 'mirror')
    assert.equal(run(['mirror', '--to', 'memory-standard', '--out', root]).code, 0)
    const note = path.join(root, 'memories', 'deploys-need-a-ticket.md')
    fs.rmSync(note)
    if (!plant(victim, note)) return t.skip(NO_LINK)
    let r = run(['mirror', '--to', 'memory-standard', '--out', root])
    assert.equal(r.code, 0, r.err)
    assert.equal(fs.readFileSync(victim, 'utf8'), 'export PATH=/usr/bin\n')
    assert.ok(fs.lstatSync(note).isFile())
    // memories/ itself a link to another directory: refused, naming it; nothing lands there
    const elsewhere = path.join(dir, 'elsewhere')
    fs.mkdirSync(elsewhere)
    fs.rmSync(path.join(root, 'memories'), { recursive: true })
    if (!plant(elsewhere, path.join(root, 'memories'))) return t.skip(NO_LINK)
    r = run(['mirror', '--to', 'memory-standard', '--out', root])
    assert.equal(r.code, 1)
    assert.match(r.err, /INVALID_INPUT: .*memories is a symbolic link, and dsh-memento never writes through one: remove it/)
    const mm = path.join(dir, 'mm')
    fs.mkdirSync(mm)
    if (!plant(elsewhere, path.join(mm, 'memories'))) return t.skip(NO_LINK)
    r = run(['export', '--adapter', 'memory-standard', '--out', mm, '--force'])
    assert.equal(r.code, 1)
    assert.match(r.err, /memories is a symbolic link/)
    assert.deepEqual(fs.readdirSync(elsewhere), [])
  })
})
