// What the drawer holds: one state object per installed panel (a re-install after an HMR reload
// starts from a fresh one), and what follows from it without touching the server: the session
// the page shows, the query that describes the list, and the entries picked by id.

/** The panel's state. `L` is the labels table, `LAYERS` the four layer keys, both from the server. */
export function createState(ctx) {
  const root = document.createElement('div')
  root.id = 'dsh-memento-panel'
  const style = document.createElement('style')
  style.dataset.plugin = 'dsh-memento'
  return {
    sessions: ctx && ctx.sessions,
    root,
    style,
    $: (sel) => root.querySelector(sel),
    L: null,
    lang: null,
    token: null,
    LAYERS: [],
    pageSize: 50,
    alive: true,
    timer: null,
    debounce: null,
    retry: null,
    st: {
      open: false,
      tab: 'entries',
      data: null,
      entries: [],
      keep: 0,
      expanded: new Set(),
      picked: new Map(),
      editing: null,
      adding: false,
      error: null,
      seq: null,
      proposals: [],
      audit: [],
      health: null,
      sessions: null,
      sessionPick: null,
      confirm: null,
      dialog: false,
      sessionKey: '',
    },
  }
}

/** The session this page shows: id plus what the page knows of it. */
export function session(p) {
  try {
    const snap = p.sessions && p.sessions.list && p.sessions.list.getSnapshot()
    const id = snap && snap.current
    const s = id && snap.byId ? snap.byId[id] : undefined
    return id ? { id, cwd: (s && s.cwd) || '', agentPreset: (s && s.agentPreset) || '' } : null
  } catch (e) {
    return null
  }
}

export function viewerQuery(p) {
  const s = session(p)
  const q = new URLSearchParams()
  if (s) {
    q.set('session', s.id)
    if (s.cwd) q.set('cwd', s.cwd)
    if (s.agentPreset) q.set('agentPreset', s.agentPreset)
  }
  return q
}

/** The list's query: the session, the search text and the three filters as the drawer shows them. */
export function filters(p) {
  const q = viewerQuery(p)
  const text = p.$('.mm-search').value
  if (text.trim() !== '') q.set('text', text)
  for (const sel of p.root.querySelectorAll('[data-filter]')) if (sel.value) q.set(sel.dataset.filter, sel.value)
  return q
}

export const byId = (p, id) => p.st.entries.find((e) => e.id === id)
export const tagsOf = (s) =>
  s
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
