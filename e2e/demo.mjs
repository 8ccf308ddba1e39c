// `npm run demo`: a short scripted dsh session in the real harness, printed as a transcript.
// A loopback fake model plays the agent (no key, no network); an answerer plugin plays the
// user clicking "approve". Everything else is the real dsh 0.1.0-rc.8 and the packed plugin.
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

process.env.E2E_WORK ??= mkdtempSync(join(tmpdir(), 'memento-demo-'))
const { CWD, E2E, HOME, ok, overlay, sessionEvents, sessionIds, sh, stageTarball, turn, drive, WORK } = await import('./lib.mjs')

const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s)
const dim = (s) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s)
const say = (s = '') => process.stdout.write(`${s}\n`)
const indent = (s, p = '    ') =>
  String(s)
    .split('\n')
    .map((l) => p + l)
    .join('\n')
const section = (title) => say(`\n${bold(`━━ ${title} ━━`)}`)
const shown = (cmd) => say(dim(`$ ${cmd}`))

async function session(title, task, opts) {
  const known = sessionIds()
  say(`${bold('user ▸')} ${task}`)
  const r = ok(await turn(task, opts), 'turn')
  const events = sessionEvents(known)
  for (const e of events) {
    if (e.type === 'approval/asked') say(`${bold('dsh  ▸')} approval requested for tool "${e.data.toolName}":\n${indent(e.data.reason)}`)
    if (e.type === 'approval/decided')
      say(
        `${bold('dsh  ▸')} decision: ${e.data.outcome}${e.data.outcome === 'allowed-once' ? (opts?.overlays?.length ? ' (the user approved)' : '') : ' (nobody answered: fail closed)'}`,
      )
  }
  for (const m of r.toolMessages) say(`${bold('tool ▸')} memory →\n${indent(m)}`)
  say(`${bold('agent▸')} ${r.stdout.trim()}`)
  return r
}

say(bold('dsh-memento demo — approval-gated, budgeted, audited memory in a real dsh session'))
say(dim(`scratch: ${WORK} (DSH_HOME=${HOME})`))

section('1. install the plugin into a dsh profile')
mkdirSync(CWD, { recursive: true })
const tarball = stageTarball()
shown(`dsh plugin --profile headless add ${tarball}`)
ok(sh('dsh', ['plugin', '--profile', 'headless', 'add', tarball], { timeout: 300_000 }), 'plugin add')
for (const f of ['driver.mjs', 'answerer.mjs']) cpSync(join(E2E, f), join(HOME, 'profiles', 'headless', f))
shown('dsh --profile headless --dump-config | grep -A3 "id: memento"')
say(
  indent(
    /- id: memento[^\n]*\n[^\n]*\n[^\n]*/.exec(ok(sh('dsh', ['--profile', 'headless', '--dump-config']), 'dump').stdout)?.[0] ??
      '(not found)',
  ),
)

section('2. session 1: the agent asks to remember something; the user approves')
await session('s1', 'Please remember that I like green tea.', {
  toolArgs: { action: 'add', scope: 'user-global', text: 'The user likes green tea.' },
  reply: 'Noted: you like green tea.',
  overlays: overlay('answerer'),
})

section('3. session 2: the memory is in the frozen snapshot of the next system prompt')
const r2 = await session('s2', 'What do I like to drink?', { reply: 'Green tea — it is in my memory snapshot for you.' })
const system = r2.requests.find((b) => b.tools?.length)?.messages?.[0]?.content ?? ''
const start = system.indexOf('[dsh-memento:')
say(
  `${bold('system prompt (excerpt) ▸')}\n${indent(start >= 0 ? system.slice(start).split('\n\n').slice(0, 2).join('\n\n') : '(no snapshot section)')}`,
)

section('4. a write nobody approves is refused, and still audited')
await session('s3', 'Remember that I hate rainy days.', {
  toolArgs: { action: 'add', text: 'The user hates rainy days.' },
  reply: 'That write was not approved, so nothing was saved.',
})

section("5. the user manages memory with /memory (each typed command is the user's own consent)")
const lines = [
  '/memory add --track=agent  run tests with   `npm test`',
  '/memory list',
  '/memory budgets',
  '/memory audit',
  '/memory export',
]
const out = drive(lines)
for (const c of out.commands) {
  say(`${bold('user ▸')} ${c.line}`)
  const text = c.line === '/memory export' ? c.result.text.split('\n').slice(0, 14).join('\n') + '\n…' : c.result.text
  say(indent(text))
}

section("6. uninstall: the profile is clean, the memory store stays the user's")
shown('dsh plugin --profile headless remove dsh-memento')
ok(sh('dsh', ['plugin', '--profile', 'headless', 'remove', 'dsh-memento'], { timeout: 300_000 }), 'plugin remove')
say(indent(`store kept at ${join(HOME, 'dsh-memento', 'memory.db')}`))
if (!process.env.DEMO_KEEP) rmSync(WORK, { recursive: true, force: true })
say(`\n${bold('done.')}`)
