// Keeping the drawer in step with the server: the labels and token first (nothing is drawn
// before the words are known), then the list, the side panes and, while the drawer is open, a
// poll of the newest audit seq that reloads after any memory change, whoever made it.
import * as api from './api.js'
import {
  closeConfirm,
  renderAudit,
  renderBudgets,
  renderEntries,
  renderFilters,
  renderHealth,
  renderProposals,
  showError,
  skeleton,
} from './render.js'
import { renderSessions } from './ledger.js'
import { filters, session, viewerQuery } from './state.js'

const POLL_MS = 2500

export async function loadEntries(p, append) {
  const { st } = p
  const q = filters(p)
  q.set('offset', String(append ? st.entries.length : 0))
  q.set('limit', String(append ? p.pageSize : Math.min(200, Math.max(p.pageSize, st.keep || 0))))
  st.keep = 0
  try {
    const d = await api.entries(q)
    st.data = d
    st.entries = append ? st.entries.concat(d.entries) : d.entries
    renderBudgets(p)
    renderFilters(p)
    renderEntries(p)
    if (st.error && st.error.code === 'HTTP') showError(p, null)
  } catch (e) {
    showError(p, e)
  }
}
async function loadSide(p) {
  const { st } = p
  try {
    const q = viewerQuery(p)
    q.set('limit', '50')
    const [pr, a] = await Promise.all([api.proposals(), api.audit(q)])
    st.proposals = pr.proposals
    st.audit = a.rows
    renderProposals(p)
    renderAudit(p)
    if (st.tab === 'health') await loadHealth(p)
    if (st.tab === 'sessions') await loadSessions(p)
  } catch (e) {
    showError(p, e)
  }
}
/** The health check reads every layer: only while its view is open. */
export async function loadHealth(p) {
  try {
    p.st.health = await api.health()
    renderHealth(p)
  } catch (e) {
    showError(p, e)
  }
}
/** The Sessions view reads every recorded session of the page's keys and renders a snapshot: only while it is open. */
export async function loadSessions(p) {
  const { st } = p
  const q = viewerQuery(p)
  if (st.sessionPick) q.set('id', st.sessionPick)
  try {
    st.sessions = await api.sessions(q)
    renderSessions(p)
  } catch (e) {
    showError(p, e)
  }
}
/** Reload everything the drawer shows, keeping as many entries as are loaded. */
export function reload(p) {
  p.st.keep = p.st.entries.length
  return Promise.all([loadEntries(p, false), loadSide(p)])
}
async function poll(p) {
  const { st } = p
  if (!p.alive || !st.open) return
  try {
    const v = await api.version()
    if (v.language && v.language !== p.lang) return relabel(p)
    const key = JSON.stringify(session(p))
    if ((st.seq !== null && v.seq !== st.seq) || key !== st.sessionKey) {
      st.sessionKey = key
      if (!st.editing && !st.adding && !st.confirm) await reload(p)
      else v.seq = st.seq // retry once the user is done editing
    }
    st.seq = v.seq
  } catch (e) {}
  if (p.alive && st.open) p.timer = setTimeout(() => poll(p), POLL_MS)
}

export function setOpen(p, open) {
  const { st, $ } = p
  st.open = open
  $('.mm-drawer').hidden = !open
  $('[data-act="toggle"]').setAttribute('aria-expanded', String(open))
  clearTimeout(p.timer)
  if (open) {
    st.sessionKey = JSON.stringify(session(p))
    st.seq = null
    reload(p).then(() => poll(p))
    setTimeout(() => $('.mm-search').focus(), 0)
  } else closeConfirm(p)
}

/** The session the page shows changed: show what it sees. */
export function sessionChanged(p) {
  const { st } = p
  if (st.open && JSON.stringify(session(p)) !== st.sessionKey) {
    st.sessionKey = JSON.stringify(session(p))
    st.sessionPick = null
    reload(p)
  }
}

/** The plugin was reloaded in another language: redraw with the new words. */
function relabel(p) {
  closeConfirm(p)
  p.st.editing = null
  p.st.adding = false
  return boot(p)
}

/** Labels and the page token first: nothing is drawn before the words are known. */
export async function boot(p) {
  try {
    const b = await api.panel()
    p.token = b.token
    if (!p.alive) return
    p.lang = b.language
    p.L = b.labels
    p.LAYERS = b.layers
    p.pageSize = b.pageSize
    skeleton(p)
    document.head.appendChild(p.style)
    document.body.appendChild(p.root)
    if (p.st.open) setOpen(p, true)
  } catch (e) {
    if (p.alive) p.retry = setTimeout(() => boot(p), 3000) // dsh web restarting: try again
  }
}
