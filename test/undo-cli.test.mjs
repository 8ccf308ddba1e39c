// The CLI's history, undo and sessions: the real bin/dsh-memento.mjs spawned against a real store,
// an undo asked at a real terminal (a pty from util-linux script(1)) whose prompt shows the whole
// inverse change. The run is written out as a transcript (a test diagnostic): what a user sees.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import { skip } from './support/provider.mjs'
import { BIN, cliEnv, runCli } from './support/cli.mjs'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'memento-undo-cli-'))
after(() => fs.rmSync(tmp, { recursive: true, force: true }))
const noPty =
  process.platform !== 'linux' && 'the pty comes from util-linux script(1): Windows has none, and BSD script takes other arguments'

describe('dsh-memento history, undo and sessions', { skip: skip || noPty }, () => {
  it('a replace, its history, an undo asked at the terminal, a consolidate of three undone, the sessions', async (t) => {
    const home = path.join(tmp, 'home')
    const ws = path.join(tmp, 'ws')
    fs.mkdirSync(ws, { recursive: true })
    const env = cliEnv(home)
    const transcript = []
    const show = (args, r) => transcript.push(`$ dsh-memento ${args.map((a) => (/[\s#']/.test(a) ? `'${a}'` : a)).join(' ')}`, r.trimEnd())
    /** The CLI with no terminal: `--yes` is its approval. */
    const run = (...args) => {
      const r = runCli(args, { cwd: ws, env })
      show(args, r.out + r.err)
      return r
    }
    /** The CLI at a terminal, typing `answer` at its prompt: what the terminal shows, prompt and result. */
    const tty = (answer, ...args) => {
      const r = spawnSync('script', ['-qec', [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' '), '/dev/null'], {
        cwd: ws,
        env,
        input: `${answer}\n`,
        encoding: 'utf8',
      })
      // What the terminal shows: without readline's cursor moves, or the pty's echo of the typed
      // answer before the program read it.
      const screen = r.stdout
        .replace(/\r+\n/g, '\n')
        .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
        .replace(new RegExp(`^${answer}\n`), '')
      show(args, screen)
      return { code: r.status, screen }
    }

    assert.equal(run('add', '-y', 'Use pnpm for installs').code, 0)
    assert.equal(run('replace', '-y', 'pnpm', 'Use pnpm 9 for installs, never npm').code, 0)
    let r = run('history', 'pnpm')
    assert.equal(r.code, 0, r.err)
    assert.match(
      r.out,
      /^History of entry \S+ \[user\/workspace @\S+\], 2 versions, oldest first:\n- v1 #1 \S+ add · cli · allowed-once \(via cli --yes, writePolicy ask\)\n {4}Use pnpm for installs\n- v2 #2 \S+ replace · cli · allowed-once \(via cli --yes, writePolicy ask\)\n {4}Use pnpm 9 for installs, never npm\nIn memory now as v2\.\n$/,
    )
    const json = runCli(['history', '#2', '--json'], { cwd: ws, env }).json()
    assert.deepEqual(
      json.versions.map((v) => [v.version, v.seq, v.action, v.text]),
      [
        [1, 1, 'add', 'Use pnpm for installs'],
        [2, 2, 'replace', 'Use pnpm 9 for installs, never npm'],
      ],
    )

    // No terminal and no --yes: the undo is refused, and the refusal audited.
    r = run('undo')
    assert.equal(r.code, 1)
    assert.match(r.err, /WRITE_DENIED: memory write not approved \(approval outcome: unavailable\)/)

    // At a terminal: the prompt is the whole inverse change, every field of every entry.
    const undo = tty('y', 'undo')
    assert.equal(undo.code, 0, undo.screen)
    assert.match(
      undo.screen,
      /Approve this memory write\?\n-+\n\[dsh-memento\] revert of change #2 \(undo the replace\)\nfrom: user\/workspace · workspace \S+ · every agent · source cli · no tags\n│ Use pnpm 9 for installs, never npm\nto: user\/workspace · workspace \S+ · every agent · source cli · no tags\n│ Use pnpm for installs\n-+\nApprove\? \[y\/N\] y\nUndid change #2/,
    )
    assert.match(undo.screen, /Undid change #2 \(1 entry\):\n- rewritten back to \[user\/workspace @\S+\] Use pnpm for installs\n/)
    let audit = runCli(['audit', '--json'], { cwd: ws, env }).json()
    assert.deepEqual(
      [audit[0].action, audit[0].outcome, audit[0].text],
      ['replace', 'allowed-once (via cli prompt, writePolicy ask)', 'Use pnpm for installs'],
    )
    assert.equal(audit[1].action, 'revert-denied')

    // A consolidate of three, undone as a whole.
    for (const text of ['Deploys go through staging', 'Staging deploys need a ticket', 'Tickets name the release']) run('add', '-y', text)
    r = run(
      'consolidate',
      '-y',
      'through staging',
      'need a ticket',
      'name the release',
      '--text',
      'Deploys: through staging, with a ticket naming the release',
    )
    assert.equal(r.code, 0, r.err)
    const consolidated = audit.length + 4 + 3 // its consolidate-add row, after three adds and three removes
    r = run('audit', '--limit', '4')
    assert.match(
      r.out,
      new RegExp(
        `^Recent audit \\(4 rows\\):\\n- #${consolidated} \\S+ consolidate-add user/workspace allowed-once \\(via cli --yes, writePolicy ask\\) \\(cli\\): Deploys: through staging, with a ticket naming the release\\n`,
      ),
    )
    r = run('undo', '-y', String(consolidated))
    assert.equal(r.code, 0, r.err)
    assert.equal(
      r.out.replace(/@[^\]]+/g, '@WS'),
      `Undid change #${consolidated} (4 entries):\n` +
        '- removed [user/workspace @WS] Deploys: through staging, with a ticket naming the release\n' +
        '- restored [user/workspace @WS] Deploys go through staging\n' +
        '- restored [user/workspace @WS] Staging deploys need a ticket\n' +
        '- restored [user/workspace @WS] Tickets name the release\n',
    )
    r = run('list')
    assert.deepEqual(
      r.out
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => l.replace(/^- \[[^\]]+\] /, '')),
      ['Use pnpm for installs', 'Deploys go through staging', 'Staging deploys need a ticket', 'Tickets name the release'],
    )
    // Undone already: the merged entry is gone, so undoing it again is refused, and nothing changes.
    r = run('undo', '-y', String(consolidated))
    assert.equal(r.code, 1)
    assert.match(r.err, /^dsh-memento: ENTRY_NOT_FOUND: /)

    // The sessions a dsh session start records (the plugin's snapshot, with its keys).
    const { MemoryProvider, workspaceKeyOf } = await import('../index.mjs')
    const { snapshotFor } = await import('../lib/snapshot.mjs')
    const { DEFAULT_CONFIG } = await import('../lib/config.mjs')
    const keys = { workspaceKey: workspaceKeyOf(ws), agentKey: '' }
    const p = new MemoryProvider({ dbPath: path.join(home, 'dsh-memento', 'memory.db'), gate: async () => 'rejected' })
    let given
    try {
      given = p.snapshotRecord('session-1', snapshotFor(p, keys, DEFAULT_CONFIG), keys)
    } finally {
      p.close()
    }
    r = run('sessions')
    assert.match(r.out, new RegExp(`^Recorded sessions \\(1, newest first\\):\\n- session-1 \\S+ @\\S+: ${given.length} chars\\n`))
    r = run('sessions', '--session', 'session-1')
    assert.equal(r.out, `${r.out.split('\n')[0]}\n${given}\n`, 'exactly what it was given')
    assert.equal(runCli(['sessions', '--session', 'session-1', '--json'], { cwd: ws, env }).json().sessions[0].text, given)
    assert.equal(run('sessions', '--session', 'nope').code, 1)
    audit = runCli(['audit', '--verify', '--json'], { cwd: ws, env }).json()
    assert.equal(audit.ok, true)
    t.diagnostic(`transcript:\n${transcript.join('\n')}`)
  })
})
