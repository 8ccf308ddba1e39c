// claude-code-memory-md on the shapes real CLAUDE.md / AGENTS.md files take: link
// bullets, lead-ins, mid-file titles, indented code, blockquotes, @imports, symlinked files,
// the user memory's real path, export order and full heading names, encodings.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { createDefaultRegistry } from '../lib/adapters/index.mjs'
import { skip } from './support/provider.mjs'
import { cliSandbox } from './support/cli.mjs'

const ID = 'claude-code-memory-md'
const registry = createDefaultRegistry()
const FIX = fileURLToPath(new URL('./fixtures/adapters/claude-code/', import.meta.url))
const read = (name) => fs.readFileSync(path.join(FIX, name), 'utf8')
const adapt = (payload, options) => registry.adapt(ID, payload, options)
const texts = (r) => r.entries.map((e) => e.text)
const follow = { followImports: true, readFile: (p) => fs.readFileSync(p), realpath: (p) => fs.realpathSync(p) }
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'memento-claude-'))
after(() => fs.rmSync(tmp, { recursive: true, force: true }))

describe('claude-code import: what real files contain', () => {
  it('markdown-link bullets are content outside an auto-memory MEMORY.md', () => {
    const r = adapt(read('links.md'), { file: path.join(FIX, 'links.md') })
    assert.deepEqual(texts(r), [
      '[Install guide](./docs/install.md) - deploy in 5 minutes',
      '[Config reference](docs/config.md): every option with its default',
      '[Changelog](CHANGELOG.md)',
      '[Upgrade notes](https://example.org/orbit/upgrade.md) — read before a major bump',
    ])
    assert.deepEqual(r.entries[0].tags, ['Orbit docs helper', 'Where to look'])
    assert.deepEqual(r.warnings, [])
  })

  it('in an auto-memory MEMORY.md (a memory/ directory) link bullets are index links, followed on request', () => {
    const file = path.join(FIX, 'memory/MEMORY.md')
    const r = adapt(read('memory/MEMORY.md'), { file })
    assert.deepEqual(texts(r), ['Release branches are cut every second Tuesday.'])
    assert.match(r.warnings[0].message, /index link to feedback_testing\.md \(Testing feedback\) was not followed.*--follow-imports/)
    const all = adapt(read('memory/MEMORY.md'), { file, ...follow })
    assert.deepEqual(
      all.entries.map((e) => [e.track, e.text]),
      [
        [
          'agent',
          'How the user wants tests written\nIntegration tests must hit a real database, not mocks.\nReason: mocked tests passed while the prod migration failed.',
        ],
        ['agent', 'Prefer table-driven tests.'],
        ['user', 'Who the user is\nThe user is a data scientist focused on observability and logging.'],
        ['agent', 'Release branches are cut every second Tuesday.'],
      ],
    )
    assert.deepEqual(all.locations, [null, null, null, 3])
  })

  it('a lead-in line stays in one entry with the list, code or paragraph it introduces', () => {
    const r = adapt(read('leadins.md'))
    assert.deepEqual(texts(r), [
      '**Testing:**\n- unit tests live next to the code\n- run `make check` before a push',
      'Key features:\n- hot reload of the route table\n- per-tenant rate limits',
      'To start a local stack, run:\n```sh\ndocker compose up kettle db\n```',
      '**Release checklist**\nBump the version in `kettle.toml`, tag it, and let CI publish the image.',
      'Migrations:\n- write them forward-only\n- never edit one that shipped',
      '配置说明：\n- 端口默认 8080',
    ])
    assert.deepEqual(r.locations, [3, 7, 12, 18, 22, 26])
  })

  it('text after a closing fence is a new block (a lead-in there owns its list); a sentence over "---" is text, not a heading', () => {
    const r = adapt(
      'Commits, e.g.:\n```\nfeat(api): add paging\n```\nPRs must:\n1. link an issue\n2. add screenshots\n\n## Tips\nNever log tokens.\n---\nHeading\n---\n- under it\n',
    )
    assert.deepEqual(
      r.entries.map((e) => [e.text, e.tags ?? []]),
      [
        ['Commits, e.g.:\n```\nfeat(api): add paging\n```', []],
        ['PRs must:\n1. link an issue\n2. add screenshots', []],
        ['Never log tokens.', ['Tips']],
        ['under it', ['Heading']],
      ],
    )
  })

  it('a lead-in right before a subsection goes with what that subsection starts with', () => {
    const r = adapt('## Commands\nCommon commands:\n### Build\n- make\n- make all\n### Test\n- make test\n')
    assert.deepEqual(
      r.entries.map((e) => [e.text, e.tags]),
      [
        ['Common commands:\n- make\n- make all', ['Commands', 'Build']],
        ['make test', ['Commands', 'Test']],
      ],
    )
  })

  it('"# " headings mid-file tag their sections, a long heading is split between words; indented code stays code; "> " markers are stripped', () => {
    const r = adapt(read('sections.md'))
    const long = 'Adding a New Configuration Option to the Scheduler'
    const cut = ['Operations', 'Adding a New Configuration', 'Option to the Scheduler']
    assert.deepEqual(
      r.entries.map((e) => [e.text, e.tags]),
      [
        ['Zephyr is the internal scheduler.', ['Zephyr notes']],
        ['Drains every 30 seconds.', ['Zephyr notes', 'Zeta queue']],
        ['Holds priority jobs.', ['Zephyr notes', 'Alpha queue']],
        ['Add the key to `zephyr.toml` and document it.', cut],
        ['A cron line for the nightly compaction:\n```\n0 3 * * * zephyr compact --all\n0 4 * * * zephyr vacuum\n```', cut],
        ['Never restart the scheduler during the compaction window; queued jobs would run twice.', cut],
        ['**Warning:** the `--force` flag skips the lock.', cut],
      ],
    )
    assert.deepEqual(
      r.entries.map((e) => e.source),
      [ID, ID, ID, `${ID} § ${long}`, `${ID} § ${long}`, `${ID} § ${long}`, `${ID} § ${long}`],
    )
    assert.match(
      r.warnings[0].message,
      /its tags are "Adding a New Configuration", "Option to the Scheduler", and the full heading is kept in the source/,
    )
  })

  it('a file that only imports says so, and followImports follows @imports relative to the file, 5 hops deep, cycle-safe', () => {
    const file = path.join(FIX, 'imports/CLAUDE.md')
    const bare = adapt(read('imports/CLAUDE.md'), { file })
    assert.deepEqual(bare.entries, [])
    assert.deepEqual(
      bare.warnings.map((w) => w.line),
      [1],
    )
    assert.match(bare.warnings[0].message, /import "@AGENTS\.md" was not followed.*--follow-imports/)
    const r = adapt(read('imports/CLAUDE.md'), { file, ...follow })
    // an imported file's entries are tagged with the headings its import line sits under
    const review = ['Lantern agents', 'Style', 'Review']
    assert.deepEqual(
      r.entries.map((e) => [e.text, e.tags ?? [], e.scope]),
      [
        ['Use tabs in Go files.', ['Lantern agents', 'Style'], 'workspace'],
        ['Every PR needs one approval from the owning team.', review, 'workspace'],
        ['deeper fact', review, 'workspace'],
        ['depth 1 fact', review, 'workspace'],
        ['depth 2 fact', review, 'workspace'],
      ],
    )
    const msgs = r.warnings.map((w) => w.message).join('\n')
    assert.match(msgs, /docs\/review\.md line 5: import "@\.\.\/AGENTS\.md" .*already imported/)
    assert.match(msgs, /docs\/hop2\.md line 3: import "@hop3\.md" .*5 hops/)
    assert.ok(!r.entries.some((e) => e.text === 'depth 3 fact'))
    assert.throws(
      () => adapt('@x.md', { followImports: true }),
      (e) => e.code === 'ADAPTER_PAYLOAD' && /readFile/.test(e.message),
    )
  })

  it('a path mentioned inline ("git workflow: @docs/git.md") is an import too; the text stays', () => {
    const file = path.join(FIX, 'imports/GUIDE.md')
    const bare = adapt(read('imports/GUIDE.md'), { file })
    assert.deepEqual(texts(bare), ['git workflow: @docs/git.md', 'mail ops@example.com for access', '`@docs/none.md` is only code'])
    assert.deepEqual(
      bare.warnings.map((w) => [w.line, /inline import "@docs\/git\.md" .*--follow-imports/.test(w.message)]),
      [[1, true]],
    )
    const r = adapt(read('imports/GUIDE.md'), { file, ...follow })
    assert.deepEqual(texts(r), [
      'git workflow: @docs/git.md',
      'Rebase; never merge main into a feature branch.',
      'mail ops@example.com for access',
      '`@docs/none.md` is only code',
    ])
    assert.deepEqual(r.warnings, [])
  })

  it('~/.claude/CLAUDE.md is user-global by its real path, not only a literal "~"', () => {
    assert.equal(adapt({ text: '- terse answers', file: path.join(os.homedir(), '.claude', 'CLAUDE.md') }).entries[0].scope, 'user-global')
    assert.equal(adapt({ text: '- terse answers', file: '~/.claude/CLAUDE.md' }).entries[0].scope, 'user-global')
    assert.equal(adapt({ text: '- repo fact', file: path.join(os.homedir(), 'src', 'app', 'CLAUDE.md') }).entries[0].scope, 'workspace')
  })

  it('non-UTF-8 input is refused naming the line of the first bad byte; a BOM and CRLF are fine', () => {
    const bytes = fs.readFileSync(path.join(FIX, 'cp1252.md'))
    assert.throws(
      () => adapt(bytes),
      (e) => e.code === 'ADAPTER_PAYLOAD' && e.details.line === 3 && /line 3: .*not UTF-8 \(byte 0xE9\)/.test(e.message),
    )
    // what a lossy UTF-8 read (fs.readFileSync(f, 'utf8')) hands over
    assert.throws(
      () => adapt(bytes.toString('utf8')),
      (e) => e.code === 'ADAPTER_PAYLOAD' && e.details.line === 3 && /U\+FFFD/.test(e.message),
    )
    const r = adapt('\uFEFF# Title\r\n\r\n- first\r\n  more\r\n\r\nRun:\r\n```sh\r\nmake\r\n```\r\n')
    assert.deepEqual(texts(r), ['first\nmore', 'Run:\n```sh\nmake\n```'])
    assert.deepEqual(r.entries[0].tags, ['Title'])
  })
})

describe('claude-code import keeps what the file holds', () => {
  const fix = (name) => ({ bytes: fs.readFileSync(path.join(FIX, name)), file: path.join(FIX, name) })

  it('an auto-memory topic keeps its description (first line of its first entry) and its type as the track, also under metadata:', () => {
    const at = (name) => {
      const { bytes, file } = fix(`topics/${name}.md`)
      return adapt(bytes, { file })
    }
    const prefs = at('testing-preferences')
    assert.deepEqual(
      prefs.entries.map((e) => [e.track, e.text, e.tags]),
      [
        [
          'agent',
          'How the user wants tests run\nRun the unit tests with `pnpm test --filter <package>` first; the full suite takes twelve minutes.',
          ['testing-preferences'],
        ],
        ['agent', '**Why:** the user waits on the full suite and loses the thread.', ['testing-preferences']],
      ],
    )
    assert.deepEqual(prefs.warnings, [])
    // type: user under metadata:, a folded (>-) description
    assert.deepEqual(
      at('user-role').entries.map((e) => [e.track, e.text]),
      [['user', 'Who the user is and what they already know\nThe user maintains the billing service and has written Go for ten years.']],
    )
    assert.deepEqual(
      at('release-train').entries.map((e) => [e.track, e.text]),
      [['agent', 'When releases are cut\nRelease branches are cut every second Tuesday.']],
    )
    assert.equal(
      adapt({ text: fix('topics/testing-preferences.md').bytes.toString(), track: 'user' }).entries[0].track,
      'user',
      'a payload hint outranks frontmatter, as before',
    )
    assert.equal(
      adapt({ text: '---\nmetadata:\n  type: feedback\n---\n- x\n', file: '~/.claude/projects/p/memory/x.md' }).entries[0].track,
      'agent',
    )
    assert.equal(adapt('---\nmetadata:\n  type: user\n---\n- x\n').entries[0].track, 'user')
    // an unknown type: the default track, and a warning at its line
    const odd = at('decision-log')
    assert.deepEqual(
      odd.entries.map((e) => [e.track, e.text, e.tags]),
      [['agent', 'Why we chose SQLite\nSQLite won over Postgres for the local cache: one file, no server.', ['decision-log']]],
    )
    assert.deepEqual(odd.warnings, [
      {
        line: 4,
        message:
          'frontmatter type "decision" is not an auto-memory type (user, feedback, project, reference); its entries go to the agent track',
      },
    ])
    // a description with no body is an entry of its own
    assert.deepEqual(texts(adapt('---\nname: n\ndescription: Deploys need a ticket\ntype: project\n---\n')), ['Deploys need a ticket'])
  })

  it('a U+FFFD really in a UTF-8 file is text (bytes, followed imports, the CLI); a decoded string holding one is refused, saying to pass bytes', () => {
    const { bytes, file } = fix('encoding.md')
    const want = [
      'A Windows-1252 file read as UTF-8 shows `caf\uFFFD` for `caf\u00E9`: each lost byte becomes U+FFFD (\uFFFD).',
      'Search the logs for \uFFFD to find such reads.',
    ]
    assert.deepEqual(texts(adapt(bytes, { file })), want)
    const dir = fs.mkdtempSync(path.join(tmp, 'fffd-'))
    fs.copyFileSync(file, path.join(dir, 'encoding.md'))
    fs.writeFileSync(path.join(dir, 'CLAUDE.md'), '@encoding.md\n')
    assert.deepEqual(texts(adapt(fs.readFileSync(path.join(dir, 'CLAUDE.md')), { file: path.join(dir, 'CLAUDE.md'), ...follow })), want)
    assert.throws(
      () => adapt(bytes.toString('utf8')),
      (e) => e.code === 'ADAPTER_PAYLOAD' && e.details.line === 1 && /U\+FFFD.*pass the file's bytes/.test(e.message),
    )
    // undecodable bytes are still refused at their line
    assert.throws(
      () => adapt(Buffer.concat([Buffer.from('- ok\n- caf'), Buffer.from([0xe9]), Buffer.from('\n')])),
      (e) => e.code === 'ADAPTER_PAYLOAD' && e.details.line === 2 && /not UTF-8 \(byte 0xE9\)/.test(e.message),
    )
  })

  it('a bold CJK lead-in ending in a fullwidth colon stays with the list it introduces', () => {
    assert.deepEqual(
      adapt(fix('leadins-cjk.md').bytes).entries.map((e) => [e.text, e.tags]),
      [
        ['**测试流程：**\n- 先跑单元测试：`pnpm test`\n- 再跑集成测试：`pnpm test:e2e`', ['开发约定']],
        ['**テスト手順：**\n1. `make check` を実行する\n2. 失敗したらログを確認する', ['开发约定', '日本語']],
        ['**流程**：\n- 打 tag\n- 等 CI 发布镜像', ['开发约定', '发布']],
        // an HTML comment (not imported) between a lead-in and its list, and an invisible character after it, change nothing
        ['**评审流程：**\n- 至少一位维护者批准\n- CI 全部通过', ['开发约定', '评审']],
        ['**合并流程：**\u200b\n- squash 合并', ['开发约定', '评审']],
      ],
    )
  })

  it('an @path in a sentence or a code span is text; a section that only imports keeps its heading (in the warning, or as tags when followed)', () => {
    const { bytes, file } = fix('imports/SECTIONS.md')
    const prose =
      'Path-specific rules live in ``@docs/style.md``-style files; Copilot reads them from @.github/instructions/*.instructions.md, so keep each one short. ' +
      'The review checklist is in @docs/review-checklist.md'
    const bare = adapt(bytes, { file })
    assert.deepEqual(
      bare.entries.map((e) => [e.text, e.tags]),
      [[prose, ['Lantern']]],
    )
    assert.deepEqual(
      bare.warnings.map((w) => [w.line, w.message.replace(/ was not followed.*/, '')]),
      [
        [3, 'inline import "@docs/review-checklist.md" under "Lantern" (the text is kept)'],
        [9, 'import "@docs/style.md" under "Lantern > Style"'],
        [12, 'import "@docs/testing.md" under "Lantern > Testing"'],
      ],
    )
    const r = adapt(bytes, { file, ...follow })
    assert.deepEqual(
      r.entries.map((e) => [e.text, e.tags]),
      [
        [prose, ['Lantern']],
        ['Every migration has a rollback.', ['Lantern']],
        ['Run `gofmt -s`; CI rejects unformatted files.', ['Lantern', 'Style']],
        ['Integration tests talk to a real Postgres in Docker.', ['Lantern', 'Testing', 'Integration']],
      ],
    )
    assert.deepEqual(r.warnings, [])
  })
})

describe('claude-code export keeps section order and names', () => {
  it('sections come back in file order with their full headings, and re-import identically', () => {
    const first = adapt(read('sections.md')).entries
    const stored = first.map((x, i) => ({
      ...x,
      tags: x.tags ?? [],
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      workspaceKey: '/w',
      agentKey: '',
    }))
    const { text, warnings } = registry.export(ID, stored)
    assert.deepEqual(warnings, [])
    const headings = text.split('\n').filter((l) => l.startsWith('#'))
    assert.deepEqual(headings, [
      '# dsh-memento memory: agent/workspace',
      '## Zephyr notes',
      '### Zeta queue',
      '### Alpha queue',
      '## Operations',
      '### Adding a New Configuration Option to the Scheduler',
    ])
    const again = adapt(text).entries
    assert.deepEqual(again, first)
  })

  it('an entry ending in ":" stays apart from the next one, and a heading ending in " #" survives', () => {
    const e = (text, tags) => ({ id: 'x', track: 'agent', scope: 'workspace', text, tags, source: 's', workspaceKey: '/w', agentKey: '' })
    const entries = [e('Steps:', ['C# #']), e('run make', ['C# #']), e('**Note**', ['C# #']), e('```\ncode\n```', ['C# #'])]
    const { text, warnings } = registry.export(ID, entries)
    assert.deepEqual(warnings, [])
    assert.deepEqual(
      adapt(text).entries.map((x) => [x.text, x.tags]),
      entries.map((x) => [x.text, x.tags]),
    )
  })

  it('an untagged entry after tagged ones is not pulled under their heading', () => {
    const e = (text, tags) => ({ id: 'x', track: 'user', scope: 'user-global', text, tags, source: 's', workspaceKey: '', agentKey: '' })
    const { text } = registry.export(ID, [e('under a', ['a']), e('no tags', [])])
    assert.deepEqual(
      adapt(text).entries.map((x) => [x.text, x.tags ?? []]),
      [
        ['under a', ['a']],
        ['no tags', []],
      ],
    )
  })
})

// Each input below makes one step quadratic if written naively (the step is named in the test);
// the 10 s bound guards against blocking the dsh thread, it is not a speed target.
describe('claude-code import stays linear on hostile input', () => {
  const timed = (text) => {
    const t0 = performance.now()
    const r = adapt(Buffer.from(text))
    const ms = performance.now() - t0
    assert.ok(ms < 10_000, `${Math.round(ms)} ms`)
    return r
  }

  it('stays linear on a paragraph of 80,000 lead-in lines (each line searched the paragraph so far for a newline)', () => {
    const r = timed(Array.from({ length: 80_000 }, (_, i) => `**L${i}:**`).join('\n'))
    assert.equal(r.entries.length, 1)
    assert.ok(r.entries[0].text.startsWith('**L0:** **L1:** **L2:**'))
  })

  it('stays linear on long runs of spaces and blank lines (regexes anchored at the end rescanned each run)', () => {
    const spaces = (n) => ' '.repeat(n)
    const r = timed(
      [
        `---\nname: a${spaces(160_000)}b\n---`, // a frontmatter value
        `# c${spaces(120_000)}d`, // a heading
        `- e\n${'\n'.repeat(100_000)}  f`, // blank lines inside an item, then its end
        '',
        `1.${spaces(120_000)}g\u2028`, // a list item that a line break makes a paragraph
        '',
        `h${spaces(80_000)}i`, // a paragraph
      ].join('\n'),
    )
    assert.deepEqual(
      r.entries.map((e) => [e.text.replace(/\s+/g, ' '), e.tags]),
      [
        ['e f', ['a b', 'c d']],
        ['1. g', ['a b', 'c d']],
        ['h i', ['a b', 'c d']],
      ],
    )
  })

  it('stays linear on code spans and a fence that never close (each was searched for to the end of the text)', () => {
    const r = timed(
      [`see ${Array.from({ length: 2600 }, (_, i) => '`'.repeat(2600 - i)).join(' x ')} @docs/a.md`, '', '`'.repeat(160_000)].join('\n'),
    )
    assert.equal(r.entries.length, 2)
    assert.deepEqual(
      r.warnings.map((w) => w.message.replace(/ was not followed.*/, '')),
      [
        'a fenced code block was not closed before the end of the file; it was kept as text',
        'inline import "@docs/a.md" (the text is kept)',
      ],
    )
  })

  it('stays linear on a heading cut in 1,500 tags over 2,500 entries (each entry deduplicated every tag of its headings)', () => {
    const heading = Array.from({ length: 1500 }, (_, i) => `w${i}`.padEnd(31, 'x')).join(' ')
    const r = timed(`# ${heading}\n${Array.from({ length: 2500 }, (_, i) => `- e${i}`).join('\n')}`)
    assert.equal(r.entries.length, 2500)
    assert.deepEqual(
      r.entries[2499].tags,
      Array.from({ length: 16 }, (_, i) => `w${i}`.padEnd(31, 'x')),
    )
    // a heading in more pieces than an entry keeps tags could never be joined again: the source does not carry it
    assert.ok(r.entries.every((e) => e.source === ID))
    assert.match(
      r.warnings[0].message,
      /its tags are .*; it is cut in more pieces than an entry keeps tags \(16\), so the source does not keep it whole$/,
    )
    assert.match(r.warnings[1].message, /^1500 tags; only the first 16 were kept \(dropped: w16x+, .*, w31x+ and 1468 more\)$/)
  })
})

describe('claude-code through the CLI', { skip }, () => {
  let n = 0
  const sandbox = () => {
    const { dir, run } = cliSandbox(tmp, `cli${++n}-`)
    return { dir, run: (args) => run(args, { cwd: dir }) }
  }

  it('an import-only CLAUDE.md fails with the unfollowed import named; --follow-imports imports it', () => {
    const { run } = sandbox()
    const file = path.join(FIX, 'imports/CLAUDE.md')
    const r = run(['import', '-y', '--adapter', ID, file])
    assert.equal(r.code, 1)
    assert.match(r.err, /ADAPTER_PAYLOAD: .*contains no entries.*import "@AGENTS\.md" was not followed.*--follow-imports/)
    const ok = run(['import', '-y', '--adapter', ID, '--follow-imports', file])
    assert.match(ok.out, /^Imported 5 entries via adapter claude-code-memory-md/)
    // the directory holds CLAUDE.md (@AGENTS.md) and AGENTS.md: AGENTS.md lands once
    const dir = run(['import', '--dry-run', '--json', '--adapter', ID, '--follow-imports', path.dirname(file)]).json()
    assert.equal(dir.entries.length, 5)
    assert.match(
      dir.warnings.map((w) => w.message).join('\n'),
      /AGENTS\.md: this file was already imported through an @import of another file; it is imported once/,
    )
  })

  it('a directory whose CLAUDE.md is a symlink to (or a copy of) AGENTS.md imports it once', () => {
    const { dir, run } = sandbox()
    const proj = path.join(dir, 'proj')
    fs.mkdirSync(proj)
    fs.writeFileSync(path.join(proj, 'AGENTS.md'), '## Build\n- `make all`\n- `make test`\n')
    const link = path.join(proj, 'CLAUDE.md')
    // Windows makes symlinks only with a privilege, and Wine's may not resolve: there the copy
    // below is the case that matters; everywhere else the link must work.
    try {
      fs.symlinkSync(path.join(proj, 'AGENTS.md'), link)
    } catch (e) {
      if (process.platform !== 'win32') throw e
    }
    if (fs.existsSync(link) || process.platform !== 'win32') {
      const r = run(['import', '--dry-run', '--json', '--adapter', ID, proj]).json()
      assert.deepEqual(
        r.entries.map((e) => e.text),
        ['`make all`', '`make test`'],
      )
      assert.match(r.warnings.map((w) => w.message).join('\n'), /CLAUDE\.md is the same file as AGENTS\.md; imported once/)
    }
    fs.rmSync(link, { force: true })
    fs.copyFileSync(path.join(proj, 'AGENTS.md'), link)
    const r = run(['import', '--dry-run', '--json', '--adapter', ID, proj]).json()
    assert.equal(r.entries.length, 2)
    assert.match(r.warnings.map((w) => w.message).join('\n'), /AGENTS\.md has the same content as CLAUDE\.md; imported once/)
  })

  it('an auto-memory directory imports its MEMORY.md, and with --follow-imports the topic files it links', () => {
    const { run } = sandbox()
    const dir = path.join(FIX, 'memory')
    const bare = run(['import', '--dry-run', '--json', '--adapter', ID, dir]).json()
    assert.deepEqual(
      bare.entries.map((e) => e.text),
      ['Release branches are cut every second Tuesday.'],
    )
    assert.match(bare.warnings[0].message, /^MEMORY\.md: index link to feedback_testing\.md .*--follow-imports/)
    const all = run(['import', '--dry-run', '--json', '--adapter', ID, '--follow-imports', dir]).json()
    assert.deepEqual(
      all.entries.map((e) => e.track),
      ['agent', 'agent', 'user', 'agent'],
    )
    assert.deepEqual(all.warnings, [])
  })

  it('a UTF-8 file holding a real U+FFFD imports with it (the CLI hands the adapter bytes)', () => {
    const { run } = sandbox()
    const r = run(['import', '--dry-run', '--json', '--adapter', ID, path.join(FIX, 'encoding.md')])
    assert.equal(r.code, 0, r.err)
    assert.deepEqual(
      r.json().entries.map((e) => e.text.includes('\uFFFD')),
      [true, true],
    )
  })

  it('a Windows-1252 file is refused with ADAPTER_PAYLOAD at its line, and nothing is written', () => {
    const { run } = sandbox()
    const r = run(['import', '-y', '--adapter', ID, path.join(FIX, 'cp1252.md')])
    assert.equal(r.code, 1)
    assert.match(r.err, /ADAPTER_PAYLOAD: adapter "claude-code-memory-md": line 3: /)
    assert.equal(run(['list', '--json']).json().total, 0)
  })
})
