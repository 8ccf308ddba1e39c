// A child-process writer for the crash and multi-process tests. Started with
// `child_process.fork(writer.mjs, [JSON config])`; it opens the real provider (index.mjs) on
// `config.dbPath` and runs seeded random writes (add, replace, remove, consolidate, seed,
// proposal approval, recall queries). Config:
//   dbPath, seed, procId, limits      the store, PRNG seed, marker prefix, budgets
//   mode: 'loop'                      write until killed; every fulfilled write is acked over IPC
//                                     ({t:'ack', op, added:[ids], removed:[ids], seq}) AFTER
//                                     the promise resolved, i.e. after its commit
//   mode: 'ops', ops: M               run M writes, then send {t:'done', results} and exit 0
//   removeTargets: [markers]          'ops' mode: also try to remove each of these (shuffled)
//   denyRate, gateDelayMs             gate behaviour
// The provider is opened by ./open.mjs (MEMENTO_FAULTS_FACTORY selects a §10 factory).
//   waitFor: 'go'                     'ops' mode: send {t:'ready'}, start on the parent's {t:'go'}
//   protect: '[t'                     random replace/remove/consolidate leave these markers alone
// Any rejection that is not a protocol error is reported ({t:'bad'}) and exits with code 3.
import { ERROR_CODES } from '../../../index.mjs'
import { openProvider } from './open.mjs'
import { LIMITS, PRESETS, WORKSPACES, markerOf, layerTagOf, rng, textWith, writeFor } from './common.mjs'

const config = JSON.parse(process.argv[2])
const { dbPath, seed, procId, mode = 'loop', ops = 50, denyRate = 0.05, gateDelayMs = 0, removeTargets = [] } = config
const limits = config.limits ?? LIMITS
const r = rng(seed)
let n = 0
const send = (msg) => (process.send ? process.send(msg) : undefined)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const gate = async () => {
  if (gateDelayMs > 0) await sleep(r.int(gateDelayMs + 1))
  else if (r.chance(0.3)) await new Promise((resolve) => setImmediate(resolve))
  return r.chance(denyRate) ? 'rejected' : 'allowed-once'
}

// Denied approvals leave proposals pending: the pending cap is not what this writer tests.
const provider = openProvider({ dbPath, gate, budgets: limits, proposalMaxPending: 1_000_000 })
const hasProposals = typeof provider.proposalAdd === 'function'
const session = () => `${procId}-s${r.int(4)}`

function newLayer() {
  const track = r.pick(['user', 'agent'])
  const scope = r.pick(['user-global', 'workspace'])
  const wsIdx = r.int(WORKSPACES.length)
  return {
    track,
    scope,
    tag: scope === 'user-global' ? 'g' : String(wsIdx),
    workspaceKey: scope === 'user-global' ? '' : WORKSPACES[wsIdx],
    agentKey: r.pick(PRESETS),
  }
}
const marker = (tag) => `[${procId}.${++n}@${tag}]`
// Entries whose marker starts with `protect` are left to the contested removes only.
const marked = () =>
  provider.listEntries().filter((e) => markerOf(e.text) && !(config.protect && markerOf(e.text).startsWith(config.protect)))
const writeOf = (e) => writeFor(session(), { workspaceKey: e.workspaceKey, agentKey: e.agentKey })

/** One random write; resolves to a result record (never rejects). */
async function step(forced) {
  let kind = forced?.kind ?? r.pick(['add', 'add', 'add', 'replace', 'remove', 'remove', 'consolidate', 'seed', 'proposal', 'recall'])
  if (kind === 'proposal' && !hasProposals) kind = 'add'
  const rec = { op: kind, ok: false }
  try {
    switch (kind) {
      case 'add': {
        const l = newLayer()
        const input = { track: l.track, scope: l.scope, text: textWith(r, marker(l.tag)) }
        if (r.chance(0.5)) input.tags = [r.pick(['pref', 'tool', 'style'])]
        const res = await provider.add(input, writeFor(session(), l))
        Object.assign(rec, { ok: true, added: [res.entry.id] })
        break
      }
      case 'replace': {
        const e = r.pick(marked())
        if (!e) return { op: 'skip', ok: true }
        const text = textWith(r, marker(layerTagOf(e.text)))
        rec.target = e.id
        const res = await provider.replace({ track: e.track, scope: e.scope, match: markerOf(e.text), text }, writeOf(e))
        Object.assign(rec, { ok: true, replaced: [res.entry.id] })
        break
      }
      case 'remove': {
        const e = forced?.entry ?? r.pick(marked())
        const match = forced?.match ?? (e && markerOf(e.text))
        if (!match) return { op: 'skip', ok: true }
        const l = forced?.layer ?? e
        rec.target = match
        const res = await provider.remove({ track: l.track, scope: l.scope, match }, writeOf(l))
        Object.assign(rec, { ok: true, removed: [res.entry.id] })
        break
      }
      case 'consolidate': {
        const all = marked()
        const first = r.pick(all)
        if (!first) return { op: 'skip', ok: true }
        const agent = first.agentKey
        const others = r.shuffle(
          all.filter(
            (e) =>
              e !== first &&
              e.track === first.track &&
              e.scope === first.scope &&
              e.workspaceKey === first.workspaceKey &&
              (e.agentKey === '' || e.agentKey === agent),
          ),
        )
        const uniq = [first, ...others.slice(0, r.int(3))]
        const text = textWith(r, marker(layerTagOf(first.text)), r.range(1, 6))
        const res = await provider.consolidate(
          { track: first.track, scope: first.scope, matches: uniq.map((e) => markerOf(e.text)), text },
          writeFor(session(), { workspaceKey: first.workspaceKey, agentKey: agent }),
        )
        Object.assign(rec, { ok: true, added: [res.entry.id], removed: res.removed.map((e) => e.id) })
        break
      }
      case 'seed': {
        const inputs = []
        for (let i = r.range(1, 3); i > 0; i--) {
          const l = newLayer()
          inputs.push({
            track: l.track,
            scope: l.scope,
            text: textWith(r, marker(l.tag), r.range(1, 5)),
            workspaceKey: l.workspaceKey || undefined,
            agentKey: l.agentKey,
          })
        }
        const res = await provider.seed(inputs, writeFor(session()))
        Object.assign(rec, { ok: true, added: res.entries.map((e) => e.id) })
        break
      }
      case 'proposal': {
        const l = newLayer()
        const sessionId = `${procId}-p${n}`
        const prop = provider.proposalAdd({
          kind: 'fault-test',
          track: l.track,
          scope: l.scope,
          text: textWith(r, marker(l.tag), r.range(1, 5)),
          sessionId,
          workspaceKey: l.workspaceKey,
          agentKey: l.agentKey,
        })
        if (!prop) throw new Error('proposalAdd returned null for a fresh session')
        if (r.chance(0.2)) {
          await provider.proposalDecide(prop.id, 'dismissed', writeFor(sessionId))
          Object.assign(rec, { ok: true, op: 'dismiss' })
        } else {
          const res = await provider.proposalDecide(prop.id, 'approved', writeFor(sessionId, l))
          Object.assign(rec, { ok: true, added: [res.entry.id] })
        }
        break
      }
      case 'recall': {
        provider.query(
          { text: r.pick(['tea', 'rust', 'pnpm', '']) },
          { sessionId: session(), workspaceKey: r.pick(WORKSPACES), countRecall: r.chance(0.7) },
        )
        rec.ok = true
        break
      }
      default:
        throw new Error(`unknown op ${kind}`)
    }
  } catch (e) {
    rec.ok = false
    rec.code = e?.code
    rec.message = String(e?.message ?? e)
    rec.protocol = e instanceof Error && ERROR_CODES.includes(e.code) && typeof e.details === 'object'
  }
  return rec
}

function bad(rec) {
  send({ t: 'bad', rec })
  process.exitCode = 3
}

if (mode === 'loop') {
  send({ t: 'ready' })
  for (let seq = 0; ; seq++) {
    const rec = await step()
    if (rec.ok && rec.op !== 'skip') send({ t: 'ack', seq, ...rec })
    if (!rec.ok && !rec.protocol) {
      bad(rec)
      break
    }
  }
} else {
  send({ t: 'ready' })
  if (config.waitFor === 'go') await new Promise((resolve) => process.once('message', resolve))
  const results = []
  const targets = r.shuffle(removeTargets)
  for (let i = 0; i < ops; i++) {
    // Interleave the contested removes with random writes.
    let rec
    if (targets.length > 0 && (r.chance(0.4) || ops - i <= targets.length)) {
      const t = targets.shift()
      rec = await step({ kind: 'remove', match: t.match, layer: t })
      rec.contested = true
    } else rec = await step()
    results.push(rec)
    if (!rec.ok && !rec.protocol) bad(rec)
  }
  provider.close()
  send({ t: 'done', results })
  process.disconnect?.()
}
