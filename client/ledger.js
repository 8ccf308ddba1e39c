// The drawer's views over the ledger: an entry's history (every version with the change that made
// it, and how it ended), the confirmation of an undo (what it removes, restores and rewrites
// back), and the Sessions view (what a session was given beside what the next one would get).
// Every stored string goes through `esc`; the server has already written control and invisible
// characters as escapes.
import { entryBlock, esc, fields, fill, showDialog, time } from './render.js'

/** An entry's history, oldest first, in a dialog that only shows. */
export function showHistory(p, h) {
  const { L } = p
  const versions = h.versions
    .map(
      (v) =>
        `<div class="mm-version" data-version="${esc(v.version)}"><div class="mm-label">${esc(
          [fill(L.version, { v: v.version }), v.action, fill(L.change, { seq: v.seq }), time(v.ts)]
            .concat(v.reverts ? [fill(L.undoes, { seq: v.reverts })] : [])
            .join(' · '),
        )}</div>` +
        `<div class="mm-meta">${esc(fields(L, v) + (v.outcome ? ' · ' + v.outcome : ''))}</div><pre class="mm-full">${esc(v.text)}</pre></div>`,
    )
    .join('')
  const last = h.versions[h.versions.length - 1]
  const end = h.ended
    ? fill(h.ended.into ? L.historyMerged : L.historyRemoved, { seq: h.ended.seq, time: time(h.ended.ts) })
    : fill(L.historyLive, { v: last ? last.version : '' })
  showDialog(
    p,
    L.historyTitle,
    (h.complete ? '' : `<p class="mm-note">${esc(L.historyPruned)}</p>`) + versions + `<p class="mm-note" data-ended>${esc(end)}</p>`,
  )
}

/**
 * The change an undo would make, as the server planned it: an entry it rewrites back from and
 * to, one it removes (struck through), one it restores; then the payload's warnings.
 */
export function revertHtml(L, plan) {
  const after = new Map(plan.after.map((e) => [e.id, e]))
  const before = new Set(plan.before.map((e) => e.id))
  let html = `<p class="mm-meta" data-reverts>${esc(fill(L.reverts, { seq: plan.reverts }))}</p>`
  for (const b of plan.before) {
    const a = after.get(b.id)
    html += a ? entryBlock(L, L.from, b, true) + entryBlock(L, L.to, a) : entryBlock(L, L.removedText, b, true)
  }
  for (const a of plan.after) if (!before.has(a.id)) html += entryBlock(L, L.restored, a)
  return html + plan.warnings.map((w) => `<div class="mm-warning">${esc(w)}</div>`).join('')
}

/** A snapshot's lines, each marked when the other side does not have it. */
const snapLines = (text, other, mark) =>
  text
    .split('\n')
    .map((l) => `<span class="mm-ln${other && !other.has(l) ? ' ' + mark : ''}">${esc(l) || ' '}</span>`)
    .join('')

/** The sessions of the page's workspace and agent, and what one was given beside what the next would get. */
export function renderSessions(p) {
  const { L, st, $ } = p
  const d = st.sessions
  if (!d) return
  const given = d.given
  const list = d.sessions.length
    ? `<div class="mm-sessions">${d.sessions
        .map((s) => {
          const on = given && s.id === given.id
          return `<button class="mm-session${on ? ' mm-on' : ''}" type="button" data-act="pick-session" data-id="${esc(s.id)}" aria-pressed="${on ? 'true' : 'false'}"><span>${esc(s.sessionId)}</span><small>${esc(time(s.ts))}</small></button>`
        })
        .join('')}</div>`
    : `<p class="mm-note">${esc(L.sessionsNone)}</p>`
  const givenLines = given ? new Set(given.text.split('\n')) : null
  const nextLines = d.next ? new Set(d.next.text.split('\n')) : null
  const side = (name, label, text, other, mark) =>
    `<div class="mm-side" data-side="${name}"><div class="mm-label">${esc(label)}</div><pre class="mm-full mm-snap">${snapLines(text, other, mark)}</pre></div>`
  const compare =
    (given
      ? side('given', fill(L.given, { id: given.sessionId, time: time(given.ts), n: given.chars }), given.text, nextLines, 'mm-old')
      : '') +
    (d.next
      ? side('next', fill(L.next, { n: d.next.chars }), d.next.text, givenLines, 'mm-new')
      : `<p class="mm-note">${esc(L.nextNeedSession)}</p>`)
  $('[data-pane="sessions"]').innerHTML =
    list + `<div class="mm-compare">${compare}</div>` + (given && d.next ? `<p class="mm-note">${esc(L.sessionsNote)}</p>` : '')
}
