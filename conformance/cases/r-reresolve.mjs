// R — re-resolve after approval (spec §3 "The authoritative target is re-resolved after approval
// returns … the final budget check and the mutation happen with no await between them").
// Inside the gate, while an approval is pending, another write changes the store. These cases
// pin down our fixes of reference defects §9 B1/B2 (the transaction acts on the id that was
// approved, re-found within the visible set, never on a different entry), approve-what-you-see
// (a target rewritten during the wait is not changed: ENTRY_NOT_FOUND with reason `changed` and
// its current text) and B16 (budget re-check and insert in one transaction, also across two
// provider instances on one file).
import { assert, assertUsage, recordingGate, rejects, settle, sleep, textsOf } from '../lib.mjs'

const UG = { track: 'user', scope: 'user-global' }
const AW = { track: 'agent', scope: 'workspace' }

export default [
  {
    id: 'R1',
    title: 'a concurrent add that fills the budget during approval makes the approved add fail BUDGET_EXCEEDED',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate, budgets: { user: { userGlobal: 100 } } })
      gate.hook = async () => {
        await p.add({ ...UG, text: 'n'.repeat(60) }, write)
      }
      await rejects(() => p.add({ ...UG, text: 'o'.repeat(50) }, write), 'BUDGET_EXCEEDED', { ...UG, used: 60, limit: 100, needed: 110 })
      assert.equal(gate.calls.length, 2, 'the outer add was asked (and the concurrent one)')
      assert.deepEqual(textsOf(p), ['n'.repeat(60)], 'nothing of the approved-but-over-budget add lands')
      assert.equal(p.budgets()[0].used, 60)
    },
  },
  {
    id: 'R2',
    title: 'pending remove, target rewritten during approval but still matching → ENTRY_NOT_FOUND reason changed, nothing removed',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      const { entry } = await p.add({ ...AW, text: 'deploy via make ship' }, write)
      await p.add({ ...AW, text: 'unrelated fact' }, write)
      gate.hook = async () => {
        await p.replace({ ...AW, match: 'make ship', text: 'deploy via make ship --prod' }, write)
      }
      await rejects(() => p.remove({ ...AW, match: 'make ship' }, write), 'ENTRY_NOT_FOUND', {
        ...AW,
        match: 'make ship',
        reason: 'changed',
        current: { id: entry.id, version: 2, text: 'deploy via make ship --prod' },
      })
      assert.deepEqual(textsOf(p), ['deploy via make ship --prod', 'unrelated fact'], 'the text nobody approved removing stays')
    },
  },
  {
    id: 'R3',
    title: 'pending remove, target rewritten so it no longer matches while another entry now matches → ENTRY_NOT_FOUND, nothing deleted',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      const { entry } = await p.add({ ...AW, text: 'deploy via make ship' }, write)
      gate.hook = async () => {
        await p.replace({ ...AW, match: 'make ship', text: 'deploy via cargo dist' }, write)
        await p.add({ ...AW, text: 'make ship is retired' }, write)
      }
      await rejects(() => p.remove({ ...AW, match: 'make ship' }, write), 'ENTRY_NOT_FOUND', { ...AW, match: 'make ship' })
      assert.deepEqual(textsOf(p), ['deploy via cargo dist', 'make ship is retired'], 'a different entry is never deleted')
      assert.ok(
        p.listEntries().some((e) => e.id === entry.id),
        'the approved entry (with its new text) is still there',
      )
    },
  },
  {
    id: 'R4',
    title: 'pending remove, target removed during approval → ENTRY_NOT_FOUND {track, scope, match}',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      await p.add({ ...AW, text: 'short-lived fact' }, write)
      await p.add({ ...AW, text: 'another fact' }, write)
      gate.hook = async () => {
        await p.remove({ ...AW, match: 'short-lived' }, write)
      }
      await rejects(() => p.remove({ ...AW, match: 'short-lived' }, write), 'ENTRY_NOT_FOUND', { ...AW, match: 'short-lived' })
      assert.deepEqual(textsOf(p), ['another fact'])
    },
  },
  {
    id: 'R5',
    title:
      'pending replace, target rewritten during approval (still matching) → ENTRY_NOT_FOUND reason changed with the current text; the rewrite stays',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      const { entry } = await p.add({ ...UG, text: 'editor is vim' }, write)
      gate.hook = async () => {
        await p.replace({ ...UG, match: 'editor is', text: 'editor is neovim' }, write)
      }
      await rejects(() => p.replace({ ...UG, match: 'editor is', text: 'editor is helix' }, write), 'ENTRY_NOT_FOUND', {
        ...UG,
        match: 'editor is',
        reason: 'changed',
        current: { id: entry.id, version: 2, text: 'editor is neovim' },
      })
      assert.deepEqual(textsOf(p), ['editor is neovim'], 'the concurrent edit is not lost')
    },
  },
  {
    id: 'R6',
    title: 'pending replace, target removed during approval → ENTRY_NOT_FOUND; a newly matching entry is not touched',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      await p.add({ ...UG, text: 'shell is bash' }, write)
      gate.hook = async () => {
        await p.remove({ ...UG, match: 'shell is' }, write)
        await p.add({ ...UG, text: 'shell is zsh' }, write)
      }
      await rejects(() => p.replace({ ...UG, match: 'shell is', text: 'shell is fish' }, write), 'ENTRY_NOT_FOUND', {
        ...UG,
        match: 'shell is',
      })
      assert.deepEqual(textsOf(p), ['shell is zsh'])
      assert.equal(p.listEntries()[0].version, 1)
    },
  },
  {
    id: 'R7',
    title: 'pending replace that grows the text, budget filled during approval → BUDGET_EXCEEDED, entry unchanged',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate, budgets: { user: { userGlobal: 100 } } })
      await p.add({ ...UG, text: 'g'.repeat(20) }, write)
      gate.hook = async () => {
        await p.add({ ...UG, text: 'h'.repeat(70) }, write)
      }
      await rejects(() => p.replace({ ...UG, match: 'gggg', text: 'g'.repeat(40) }, write), 'BUDGET_EXCEEDED', {
        ...UG,
        used: 90,
        limit: 100,
        needed: 110,
      })
      assert.deepEqual(textsOf(p), ['g'.repeat(20), 'h'.repeat(70)])
    },
  },
  {
    id: 'R8',
    title: 'pending consolidate, one target removed during approval → ENTRY_NOT_FOUND, the other target survives, no new entry',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      await p.add({ ...AW, text: 'first half' }, write)
      await p.add({ ...AW, text: 'second half' }, write)
      gate.hook = async () => {
        await p.remove({ ...AW, match: 'second' }, write)
      }
      await rejects(() => p.consolidate({ ...AW, matches: ['first', 'second'], text: 'both halves' }, write), 'ENTRY_NOT_FOUND', {
        ...AW,
        match: 'second',
      })
      assert.deepEqual(textsOf(p), ['first half'])
      assert.equal(
        p.auditList(100).filter((r) => r.action === 'consolidate-add' || r.action === 'consolidate-remove').length,
        0,
        'no change rows for a failed consolidate',
      )
    },
  },
  {
    id: 'R9',
    title: 'pending remove whose target another agent also matches after the wait → still removes only the approved id',
    async run({ makeProvider, write }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      const other = { agent: { session: { id: 'other-agent', header: { cwd: 'C:/conformance/ws', agentPreset: 'other' } } } }
      const { entry } = await p.add({ track: 'agent', scope: 'user-global', text: 'cache lives in ~/.cache/tool' }, write)
      gate.hook = async () => {
        await p.add({ track: 'agent', scope: 'user-global', text: 'cache lives in /var/cache/tool' }, other)
      }
      const r = await p.remove({ track: 'agent', scope: 'user-global', match: 'cache lives' }, write)
      assert.equal(r.entry.id, entry.id)
      assert.deepEqual(textsOf(p), ['cache lives in /var/cache/tool'])
    },
  },
  {
    id: 'R10',
    title: 'concurrent adds (Promise.all) against a tight budget: exactly the ones that fit land',
    async run({ makeProvider, write }) {
      let n = 0
      const gate = async () => {
        n++
        await sleep(5 + ((n * 7) % 11))
        return 'allowed-once'
      }
      const p = await makeProvider({ gate, budgets: { user: { userGlobal: 100 } } })
      const results = await Promise.all(Array.from({ length: 5 }, (_, i) => settle(() => p.add({ ...UG, text: `${i}`.repeat(30) }, write))))
      const ok = results.filter((r) => r.ok)
      const bad = results.filter((r) => !r.ok)
      assert.equal(n, 5, 'all five passed the pre-check and were asked')
      assert.equal(ok.length, 3, `exactly 3 of 5 fit, got ${ok.length}`)
      for (const r of bad) {
        await rejects(
          () => {
            throw r.error
          },
          'BUDGET_EXCEEDED',
          { ...UG, used: 90, limit: 100, needed: 120 },
        )
      }
      assert.equal(p.listEntries().length, 3)
      assert.equal(p.budgets()[0].used, 90)
      assert.deepEqual(
        ok.map((r) => r.value.entry.id).sort(),
        p
          .listEntries()
          .map((e) => e.id)
          .sort(),
      )
    },
  },
  {
    id: 'R11',
    title: 'concurrent adds of mixed sizes: never over the limit, and every refused write would not fit',
    async run({ makeProvider, write }) {
      let n = 0
      const gate = async () => {
        n++
        await sleep((n * 13) % 17)
        return 'allowed-once'
      }
      const p = await makeProvider({ gate, budgets: { user: { userGlobal: 100 } } })
      const sizes = [60, 50, 40, 30, 20, 10]
      const results = await Promise.all(
        sizes.map((s, i) => settle(() => p.add({ ...UG, text: String.fromCharCode(97 + i).repeat(s) }, write))),
      )
      const used = p.budgets()[0].used
      const landed = sizes.filter((_, i) => results[i].ok)
      assert.equal(
        used,
        landed.reduce((a, b) => a + b, 0),
        'usage is the sum of what landed',
      )
      assert.ok(used <= 100, `budget overshoot: used ${used} > 100`)
      results.forEach((r, i) => {
        if (!r.ok) {
          assert.equal(r.error?.code, 'BUDGET_EXCEEDED')
          assert.ok(used + sizes[i] > 100, `a ${sizes[i]}-char write was refused although it fits now (used ${used})`)
          assert.equal(r.error.details.needed, r.error.details.used + sizes[i])
        }
      })
      assert.equal(p.listEntries().length, landed.length)
    },
  },
  {
    id: 'R12',
    title: 'a second provider instance on the same file fills the budget during approval → BUDGET_EXCEEDED',
    async run({ makeProvider, write, dbPath }) {
      const gate = recordingGate()
      const budgets = { user: { userGlobal: 100 } }
      const p = await makeProvider({ gate, budgets })
      const q = await makeProvider({ dbPath, budgets })
      gate.hook = async () => {
        await q.add({ ...UG, text: 'q'.repeat(70) }, write)
      }
      await rejects(() => p.add({ ...UG, text: 'p'.repeat(40) }, write), 'BUDGET_EXCEEDED', { ...UG, used: 70, limit: 100, needed: 110 })
      assert.deepEqual(textsOf(p), ['q'.repeat(70)])
      assert.deepEqual(textsOf(q), ['q'.repeat(70)])
      const r = await p.add({ ...UG, text: 'p'.repeat(30) }, write)
      assertUsage(r.usage, { used: 100 })
    },
  },
  {
    id: 'R13',
    title: 'a second provider instance removes the target during approval → ENTRY_NOT_FOUND',
    async run({ makeProvider, write, dbPath }) {
      const gate = recordingGate()
      const p = await makeProvider({ gate })
      const q = await makeProvider({ dbPath })
      await p.add({ ...UG, text: 'doomed fact' }, write)
      gate.hook = async () => {
        await q.remove({ ...UG, match: 'doomed' }, write)
      }
      await rejects(() => p.replace({ ...UG, match: 'doomed', text: 'saved fact' }, write), 'ENTRY_NOT_FOUND', { ...UG, match: 'doomed' })
      assert.deepEqual(p.listEntries(), [])
    },
  },
]
