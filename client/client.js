// dsh-memento web panel: a "Memory" drawer over the plugin's JSON routes (lib/plugin/web.mjs).
// Search, filters and paging run on the server; the drawer shows the store by the four
// layers with the session's workspace first and its budgets pinned at the top. Edits go
// through POST /api/memento/write with the page's token, each after a confirmation that shows
// the complete change: the click is the user's own consent, audited `(via panel, …)`.
// Labels come from the server before anything is drawn. Colours, type and light/dark are
// dsh web's own `--dsw-*` tokens. Classic script, registered with the host module loader.
;(function () {
  'use strict'
  const API = '/api/memento/'
  const POLL_MS = 2500
  const COLLAPSE_CHARS = 320
  const COLLAPSE_LINES = 6

  const esc = (s) => String(s == null ? '' : s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c])
  const fill = (s, vars) => String(s).replace(/\{(\w+)\}/g, (m, k) => (k in vars ? vars[k] : m))
  const time = (ms) => {
    try {
      return new Date(ms).toLocaleString(undefined, { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' })
    } catch (e) {
      return String(ms)
    }
  }

  const STYLE = `
#dsh-memento-panel{--mm-fg:var(--dsw-alias-label-primary,#0f1115);--mm-fg2:var(--dsw-alias-label-secondary,#5c6370);--mm-fg3:var(--dsw-alias-label-tertiary,#8a8f98);--mm-bg:var(--dsw-alias-bg-layer-2,#fff);--mm-bg2:var(--dsw-alias-bg-module-platform,#f5f6f7);--mm-line:var(--dsw-alias-border-l2,#0000001a);--mm-hover:var(--dsw-alias-interactive-bg-hover,#0000000a);--mm-strong:var(--dsw-alias-button-primary-fill,#0f1115);--mm-on-strong:var(--dsw-alias-label-primary-inverted,#fff);--mm-ok:var(--dsw-alias-state-success-primary,#16a34a);--mm-warn:var(--dsw-alias-state-warn-primary,#f59e0b);--mm-err:var(--dsw-alias-state-error-primary,#dc2626);font-family:var(--dsw-font-family,-apple-system,BlinkMacSystemFont,"Segoe UI","PingFang SC","Hiragino Sans GB","Microsoft YaHei","Helvetica Neue",Helvetica,Arial,sans-serif);font-size:14px;line-height:22px;color:var(--mm-fg)}
#dsh-memento-panel *{box-sizing:border-box}
#dsh-memento-panel button,#dsh-memento-panel input,#dsh-memento-panel select,#dsh-memento-panel textarea{font:inherit;color:inherit}
.mm-open{position:fixed;right:16px;bottom:16px;z-index:9998;height:36px;padding:0 14px;border-radius:18px;border:1px solid var(--mm-line);background:var(--mm-bg);box-shadow:var(--dsw-shadow-lv2,0 2px 8px #0000000f);cursor:pointer}
.mm-open:hover,.mm-btn:hover,.mm-tab:hover{background:var(--mm-hover)}
.mm-drawer{position:fixed;top:0;right:0;bottom:0;z-index:9999;width:min(520px,100vw);display:flex;flex-direction:column;background:var(--mm-bg);border-left:1px solid var(--mm-line);box-shadow:var(--dsw-shadow-lv3,0 12px 32px #00000014);overflow:hidden}
.mm-drawer[hidden],.mm-modal[hidden],#dsh-memento-panel [hidden]{display:none!important}
.mm-head{flex:none;padding:12px 16px 0;border-bottom:1px solid var(--mm-line);background:var(--mm-bg)}
.mm-bar{display:flex;align-items:center;gap:8px;min-width:0}
.mm-title{font-size:16px;font-weight:600;line-height:24px}
.mm-count{color:var(--mm-fg3);font-size:13px;white-space:nowrap}
.mm-grow{flex:1}
.mm-btn{height:28px;padding:0 10px;border-radius:8px;border:1px solid var(--mm-line);background:transparent;cursor:pointer;white-space:nowrap;font-size:13px!important}
.mm-btn.mm-primary{background:var(--mm-strong);color:var(--mm-on-strong)!important;border-color:transparent}
.mm-btn.mm-danger{color:var(--mm-err)!important}
.mm-btn:disabled{opacity:.45;cursor:default}
.mm-x{width:28px;padding:0;font-size:18px!important}
.mm-budgets{display:grid;grid-template-columns:1fr 1fr;gap:6px 16px;margin:10px 0 4px}
.mm-budgets-title{grid-column:1/-1;color:var(--mm-fg3);font-size:12px;line-height:18px;overflow-wrap:anywhere}
.mm-budget{min-width:0;font-size:12px;line-height:18px}
.mm-budget-row{display:flex;flex-wrap:wrap;gap:0 6px;justify-content:space-between}
.mm-budget-row span{white-space:nowrap}
.mm-budget-row span:last-child{color:var(--mm-fg3);font-variant-numeric:tabular-nums}
.mm-meter{height:4px;border-radius:2px;background:var(--mm-bg2);overflow:hidden;margin-top:2px}
.mm-meter i{display:block;height:100%;border-radius:2px;background:var(--mm-ok)}
.mm-meter i.mm-high{background:var(--mm-warn)}.mm-meter i.mm-full{background:var(--mm-err)}
.mm-tabs{display:flex;gap:4px;margin-top:8px}
.mm-tab{border:0;background:transparent;padding:6px 10px;border-radius:8px 8px 0 0;cursor:pointer;color:var(--mm-fg2)!important;border-bottom:2px solid transparent}
.mm-tab[aria-selected=true]{color:var(--mm-fg)!important;border-bottom-color:var(--mm-strong);font-weight:600}
.mm-scroll{flex:1;overflow-y:auto;overflow-x:hidden;padding:12px 16px 16px;min-width:0}
.mm-tools{display:flex;flex-wrap:wrap;gap:8px;margin-bottom:8px}
.mm-search{flex:1 1 100%;height:34px;padding:0 12px;border-radius:10px;border:1px solid var(--mm-line);background:var(--mm-bg2);outline:none;min-width:0}
.mm-search:focus,.mm-input:focus{border-color:var(--mm-fg3)}
.mm-select{height:28px;max-width:100%;min-width:0;flex:1 1 0;border-radius:8px;border:1px solid var(--mm-line);background:var(--mm-bg);padding:0 6px;font-size:13px!important;text-overflow:ellipsis}
.mm-banner{border-radius:10px;padding:8px 12px;margin:0 0 10px;background:var(--mm-bg2);border:1px solid var(--mm-err);color:var(--mm-fg);overflow-wrap:anywhere}
.mm-banner b{color:var(--mm-err);font-family:var(--ds-font-family-code,ui-monospace,monospace);font-size:12px;margin-right:6px}
.mm-banner small{display:block;color:var(--mm-fg2)}
.mm-note{color:var(--mm-fg3);font-size:13px;margin:12px 0}
.mm-layer{display:flex;align-items:baseline;gap:8px;margin:18px 0 6px;font-size:13px;font-weight:600;color:var(--mm-fg2);letter-spacing:.02em}
.mm-layer:first-child{margin-top:4px}
.mm-ws{margin:8px 0 4px;font-size:12px;line-height:18px;color:var(--mm-fg3);overflow-wrap:anywhere}
.mm-ws b{color:var(--mm-fg2);font-weight:500}
.mm-entry{display:flex;gap:8px;align-items:flex-start;padding:10px 12px;margin:6px 0;border:1px solid var(--mm-line);border-radius:12px;min-width:0}
.mm-entry.mm-picked{border-color:var(--mm-fg3);background:var(--mm-bg2)}
.mm-main{flex:1;min-width:0}
.mm-text{white-space:pre-wrap;overflow-wrap:anywhere;word-break:normal}
.mm-collapsed{max-height:132px;overflow:hidden;-webkit-mask-image:linear-gradient(#000 60%,transparent);mask-image:linear-gradient(#000 60%,transparent)}
.mm-link{border:0;background:none;padding:0;margin-top:2px;color:var(--mm-fg2)!important;font-size:13px!important;cursor:pointer;text-decoration:underline}
.mm-tags{display:flex;flex-wrap:wrap;gap:4px;margin-top:6px}
.mm-tag{font-size:12px;line-height:18px;padding:0 8px;border-radius:9px;background:var(--mm-bg2);color:var(--mm-fg2);overflow-wrap:anywhere;max-width:100%}
.mm-meta{margin-top:4px;font-size:12px;line-height:18px;color:var(--mm-fg3);overflow-wrap:anywhere}
.mm-foot{display:flex;align-items:flex-end;gap:8px;min-width:0}
.mm-foot .mm-meta{flex:1;min-width:0}
.mm-actions{display:flex;gap:4px;flex:none}
.mm-actions .mm-btn{height:24px;padding:0 8px;font-size:12px!important;border-color:transparent;color:var(--mm-fg2)}
.mm-entry:hover .mm-actions .mm-btn,.mm-actions .mm-btn:focus-visible{border-color:var(--mm-line)}
.mm-check{flex:none;padding-top:3px}
.mm-form{display:flex;flex-direction:column;gap:8px;min-width:0}
.mm-input{width:100%;min-width:0;border-radius:10px;border:1px solid var(--mm-line);background:var(--mm-bg2);padding:6px 10px;outline:none}
textarea.mm-input{min-height:96px;resize:vertical;white-space:pre-wrap}
.mm-row{display:flex;gap:8px;justify-content:flex-end;flex-wrap:wrap}
.mm-more{display:block;margin:12px auto 0}
.mm-picker{position:sticky;bottom:0;display:flex;gap:8px;align-items:center;padding:8px 12px;margin-top:10px;border-radius:12px;background:var(--mm-bg);border:1px solid var(--mm-line);box-shadow:var(--dsw-shadow-lv2,0 2px 8px #0000000f)}
.mm-proposal{padding:10px 12px;margin:6px 0;border:1px solid var(--mm-line);border-radius:12px}
.mm-audit{display:grid;grid-template-columns:auto minmax(0,1fr);gap:2px 10px;font-size:12px;line-height:18px;padding:6px 0;border-bottom:1px solid var(--mm-line)}
.mm-audit time{color:var(--mm-fg3);white-space:nowrap;font-variant-numeric:tabular-nums}
.mm-audit div{overflow-wrap:break-word;word-break:normal;min-width:0}
.mm-audit b{font-weight:600}
.mm-audit q{display:block;color:var(--mm-fg2);quotes:none;white-space:pre-wrap;overflow-wrap:anywhere}
.mm-modal{position:absolute;inset:0;z-index:2;display:flex;align-items:center;justify-content:center;padding:16px;background:var(--dsw-alias-bg-mask-2,#0000001f)}
.mm-dialog{width:100%;max-height:100%;overflow-y:auto;overflow-x:hidden;background:var(--mm-bg);border-radius:16px;padding:20px;box-shadow:var(--dsw-shadow-lv3,0 12px 32px #00000014);border:1px solid var(--mm-line)}
.mm-dialog h3{margin:0 0 8px;font-size:16px;line-height:24px}
.mm-label{margin-top:10px;font-size:12px;font-weight:600;color:var(--mm-fg2)}
.mm-full{margin:4px 0 0;padding:8px 10px;border-radius:10px;background:var(--mm-bg2);white-space:pre-wrap;overflow-wrap:anywhere;font:inherit;max-height:40vh;overflow-y:auto}
.mm-full.mm-gone{text-decoration:line-through;text-decoration-color:var(--mm-err)}
.mm-consent{font-size:12px;line-height:18px;color:var(--mm-fg2);margin:12px 0}
.mm-warning{margin-top:8px;font-size:12px;line-height:18px;color:var(--mm-fg);overflow-wrap:anywhere}
.mm-warning::before{content:"⚠ ";color:var(--mm-warn)}
.mm-similar{margin-top:8px;padding:8px 10px;border-radius:8px;background:var(--mm-bg2);font-size:12px;line-height:18px;overflow-wrap:anywhere}
.mm-similar q{display:block;white-space:pre-wrap;color:var(--mm-fg)}
.mm-finding{padding:10px 12px;margin:6px 0;border:1px solid var(--mm-line);border-radius:12px}
.mm-finding ul{margin:6px 0;padding-left:18px}
.mm-finding li{white-space:pre-wrap;overflow-wrap:anywhere}
`

  function install(ctx) {
    if (typeof document === 'undefined' || document.getElementById('dsh-memento-panel')) return () => {}
    const sessions = ctx && ctx.sessions
    const root = document.createElement('div')
    root.id = 'dsh-memento-panel'
    const style = document.createElement('style')
    style.dataset.plugin = 'dsh-memento'
    style.textContent = STYLE
    let L = null
    let lang = null
    let token = null
    let LAYERS = []
    let pageSize = 50
    let timer = null
    let debounce = null
    let alive = true
    const st = { open: false, tab: 'entries', data: null, entries: [], keep: 0, expanded: new Set(), picked: new Map(), editing: null, adding: false, error: null, seq: null, proposals: [], audit: [], health: null, confirm: null, sessionKey: '' }

    const $ = (sel) => root.querySelector(sel)
    const layerName = (e) => L.layers[`${e.track}/${e.scope}`] || `${e.track}/${e.scope}`
    /** The session this page shows: id plus what the page knows of it. */
    function session() {
      try {
        const snap = sessions && sessions.list && sessions.list.getSnapshot()
        const id = snap && snap.current
        const s = id && snap.byId ? snap.byId[id] : undefined
        return id ? { id, cwd: (s && s.cwd) || '', agentPreset: (s && s.agentPreset) || '' } : null
      } catch (e) {
        return null
      }
    }
    function viewerQuery() {
      const s = session()
      const q = new URLSearchParams()
      if (s) {
        q.set('session', s.id)
        if (s.cwd) q.set('cwd', s.cwd)
        if (s.agentPreset) q.set('agentPreset', s.agentPreset)
      }
      return q
    }

    async function call(path, init) {
      let r
      try {
        r = await fetch(API + path, Object.assign({ credentials: 'same-origin', cache: 'no-store' }, init || {}))
      } catch (e) {
        throw { code: 'HTTP', message: String((e && e.message) || e) }
      }
      let body = null
      try {
        body = await r.json()
      } catch (e) {}
      if (!r.ok) throw (body && body.error) || { code: 'HTTP', message: `HTTP ${r.status}` }
      return body
    }

    // --- skeleton (built once, so typing keeps focus) ----------------------------------
    function skeleton() {
      root.innerHTML =
        `<button class="mm-open" type="button" data-act="toggle" aria-expanded="false">${esc(L.open)}</button>` +
        `<aside class="mm-drawer" role="dialog" aria-label="${esc(L.title)}" hidden>` +
        `<header class="mm-head"><div class="mm-bar"><span class="mm-title">${esc(L.title)}</span><span class="mm-count"></span><span class="mm-grow"></span>` +
        `<button class="mm-btn" type="button" data-act="refresh">${esc(L.refresh)}</button><button class="mm-btn mm-x" type="button" data-act="close" aria-label="${esc(L.close)}" title="${esc(L.close)}">×</button></div>` +
        `<div class="mm-budgets"></div>` +
        `<nav class="mm-tabs" role="tablist">${['entries', 'proposals', 'audit', 'health'].map((t) => `<button class="mm-tab" type="button" role="tab" data-act="tab" data-tab="${t}" aria-selected="${t === 'entries'}">${esc(L.tabs[t])}</button>`).join('')}</nav></header>` +
        `<div class="mm-scroll">` +
        `<div class="mm-banner" hidden></div>` +
        `<section data-pane="entries"><div class="mm-tools"><input class="mm-search" type="search" placeholder="${esc(L.search)}" aria-label="${esc(L.search)}">` +
        `<select class="mm-select" data-filter="layer"></select><select class="mm-select" data-filter="workspace"></select><select class="mm-select" data-filter="agent"></select>` +
        `<button class="mm-btn" type="button" data-act="add">${esc(L.add)}</button></div>` +
        `<div class="mm-adding"></div><div class="mm-list"></div><div class="mm-picker" hidden></div></section>` +
        `<section data-pane="proposals" hidden></section><section data-pane="audit" hidden></section><section data-pane="health" hidden></section></div>` +
        `<div class="mm-modal" hidden></div></aside>`
      $('.mm-search').addEventListener('input', () => {
        clearTimeout(debounce)
        debounce = setTimeout(() => loadEntries(false), 250)
      })
      for (const sel of root.querySelectorAll('[data-filter]')) sel.addEventListener('change', () => loadEntries(false))
    }

    function filters() {
      const q = viewerQuery()
      const text = $('.mm-search').value
      if (text.trim() !== '') q.set('text', text)
      for (const sel of root.querySelectorAll('[data-filter]')) if (sel.value) q.set(sel.dataset.filter, sel.value)
      return q
    }

    // --- rendering ---------------------------------------------------------------------
    function renderBudgets() {
      const d = st.data
      if (!d) return
      const ws = d.session && d.session.workspaceKey
      const rows = d.budgets
        .filter((b) => ws || b.scope !== 'workspace')
        .map((b) => {
          const pct = b.limit > 0 ? Math.min(100, Math.round((b.used / b.limit) * 100)) : 0
          return `<div class="mm-budget" data-layer="${esc(b.track + '/' + b.scope)}"><div class="mm-budget-row"><span>${esc(layerName(b))}</span><span>${esc(b.used)}/${esc(b.limit)}</span></div>` +
            `<div class="mm-meter" role="meter" aria-valuemin="0" aria-valuemax="${esc(b.limit)}" aria-valuenow="${esc(b.used)}"><i class="${pct >= 100 ? 'mm-full' : pct >= 85 ? 'mm-high' : ''}" style="width:${pct}%"></i></div></div>`
        })
      const who = d.session && d.session.agentKey ? ` · ${fill(L.agent, { key: d.session.agentKey })}` : ''
      $('.mm-budgets').innerHTML = `<div class="mm-budgets-title">${esc(ws ? fill(L.budgetsFor, { ws }) + who : ws === '' ? fill(L.budgetsFor, { ws: L.noWorkspace }) + who : L.budgetsGlobal)}</div>${rows.join('')}`
    }

    function renderFilters() {
      const d = st.data
      const keep = {}
      for (const sel of root.querySelectorAll('[data-filter]')) keep[sel.dataset.filter] = sel.value
      const set = (name, options) => {
        const sel = $(`[data-filter="${name}"]`)
        sel.innerHTML = options.map(([v, label]) => `<option value="${esc(v)}">${esc(label)}</option>`).join('')
        sel.value = options.some(([v]) => v === keep[name]) ? keep[name] : ''
      }
      const own = d.session && d.session.workspaceKey
      set('layer', [['', L.allLayers]].concat(LAYERS.map((k) => [k, L.layers[k]])))
      set('workspace', [['', L.allWorkspaces], ['-', L.globalOnly]].concat(own ? [[own, `${L.thisWorkspace}: ${own}`]] : [], d.workspaces.filter((w) => w.key !== own).map((w) => [w.key, `${w.key} (${w.count})`])))
      set('agent', [['', L.allAgents], ['-', L.sharedAgent]].concat(d.agents.filter((a) => a.key !== '').map((a) => [a.key, `${a.key} (${a.count})`])))
    }

    function entryHtml(e) {
      const long = e.text.length > COLLAPSE_CHARS || e.text.split('\n').length > COLLAPSE_LINES
      const open = st.expanded.has(e.id)
      if (st.editing === e.id) {
        return `<article class="mm-entry" data-id="${esc(e.id)}"><div class="mm-main mm-form"><textarea class="mm-input" data-field="text" aria-label="${esc(L.text)}">${esc(e.text)}</textarea>` +
          `<input class="mm-input" data-field="tags" aria-label="${esc(L.tags)}" placeholder="${esc(L.tags)}" value="${esc(e.tags.join(', '))}">` +
          `<div class="mm-row"><button class="mm-btn" type="button" data-act="cancel-edit">${esc(L.cancel)}</button><button class="mm-btn mm-primary" type="button" data-act="review-edit" data-id="${esc(e.id)}">${esc(L.save)}</button></div></div></article>`
      }
      const meta = [e.source, e.agentKey ? fill(L.agent, { key: e.agentKey }) : L.shared, time(e.updatedAt)]
      if (e.recallCount > 0) meta.push(fill(L.recalled, { n: e.recallCount }))
      return `<article class="mm-entry${st.picked.has(e.id) ? ' mm-picked' : ''}" data-id="${esc(e.id)}">` +
        `<label class="mm-check" title="${esc(L.select)}"><input type="checkbox" data-act="pick" data-id="${esc(e.id)}" aria-label="${esc(L.select)}"${st.picked.has(e.id) ? ' checked' : ''}></label>` +
        `<div class="mm-main"><div class="mm-text${long && !open ? ' mm-collapsed' : ''}">${esc(e.text)}</div>` +
        (long ? `<button class="mm-link" type="button" data-act="expand" data-id="${esc(e.id)}" aria-expanded="${open}">${esc(open ? L.showLess : L.showMore)}</button>` : '') +
        (e.tags.length ? `<div class="mm-tags">${e.tags.map((t) => `<span class="mm-tag">#${esc(t)}</span>`).join('')}</div>` : '') +
        `<div class="mm-foot"><div class="mm-meta">${meta.map(esc).join(' · ')}</div>` +
        `<div class="mm-actions"><button class="mm-btn" type="button" data-act="edit" data-id="${esc(e.id)}">${esc(L.edit)}</button><button class="mm-btn mm-danger" type="button" data-act="remove" data-id="${esc(e.id)}">${esc(L.remove)}</button></div></div></div></article>`
    }

    function renderEntries() {
      const d = st.data
      if (!d) return
      $('.mm-count').textContent = d.total === 1 ? L.totalOne : fill(L.total, { n: d.total })
      const own = d.session && d.session.workspaceKey
      let html = ''
      let layer = null
      let ws = null
      for (const e of st.entries) {
        const k = `${e.track}/${e.scope}`
        if (k !== layer) {
          layer = k
          ws = null
          html += `<h3 class="mm-layer" data-layer="${esc(k)}">${esc(L.layers[k])}</h3>`
        }
        if (e.scope === 'workspace' && e.workspaceKey !== ws) {
          ws = e.workspaceKey
          html += `<div class="mm-ws" data-workspace="${esc(ws)}">📁 <b>${esc(ws || L.noWorkspace)}</b>${ws === own ? ` · ${esc(L.thisWorkspace)}` : ''}</div>`
        }
        html += entryHtml(e)
      }
      if (!st.entries.length) html = `<p class="mm-note">${esc($('.mm-search').value.trim() ? L.noMatch : L.none)}</p>`
      else html += `<p class="mm-note" data-showing>${esc(fill(L.showing, { shown: st.entries.length, total: d.total }))}</p>`
      if (st.entries.length < d.total) html += `<button class="mm-btn mm-more" type="button" data-act="more">${esc(L.more)}</button>`
      if (d.capped) html += `<p class="mm-note">${esc(L.capped)}</p>`
      $('.mm-list').innerHTML = html
      const picker = $('.mm-picker')
      picker.hidden = st.picked.size === 0
      picker.innerHTML = `<span class="mm-grow">${esc(fill(L.selected, { n: st.picked.size }))}</span><button class="mm-btn" type="button" data-act="unpick">${esc(L.clearSelection)}</button><button class="mm-btn mm-primary" type="button" data-act="review-consolidate"${st.picked.size < 2 ? ' disabled' : ''}>${esc(L.consolidate)}</button>`
    }

    function renderAdding() {
      const box = $('.mm-adding')
      if (!st.adding) {
        box.innerHTML = ''
        return
      }
      box.innerHTML = `<div class="mm-entry"><div class="mm-main mm-form"><select class="mm-select" data-field="layer" aria-label="${esc(L.layer)}">${LAYERS.map((k) => `<option value="${esc(k)}"${k === 'user/workspace' ? ' selected' : ''}>${esc(L.layers[k])}</option>`).join('')}</select>` +
        `<textarea class="mm-input" data-field="text" aria-label="${esc(L.text)}" placeholder="${esc(L.text)}"></textarea><input class="mm-input" data-field="tags" aria-label="${esc(L.tags)}" placeholder="${esc(L.tags)}">` +
        `<div class="mm-row"><button class="mm-btn" type="button" data-act="cancel-add">${esc(L.cancel)}</button><button class="mm-btn mm-primary" type="button" data-act="review-add">${esc(L.save)}</button></div></div></div>`
    }

    function renderProposals() {
      const pane = $('[data-pane="proposals"]')
      $('[data-tab="proposals"]').textContent = st.proposals.length ? `${L.tabs.proposals} (${st.proposals.length})` : L.tabs.proposals
      pane.innerHTML = st.proposals.length
        ? st.proposals.map((p) => `<div class="mm-proposal" data-id="${esc(p.id)}"><div class="mm-meta">${esc(layerName(p))}${p.workspaceKey ? ' · ' + esc(p.workspaceKey) : ''} · ${esc(p.kind)} · ${esc(time(p.createdAt))}</div><div class="mm-text">${esc(p.text)}</div>` +
            `<div class="mm-row"><button class="mm-btn" type="button" data-act="review-proposal" data-decision="dismissed" data-id="${esc(p.id)}">${esc(L.dismiss)}</button><button class="mm-btn mm-primary" type="button" data-act="review-proposal" data-decision="approved" data-id="${esc(p.id)}">${esc(L.approve)}</button></div></div>`).join('')
        : `<p class="mm-note">${esc(L.noProposals)}</p>`
    }

    function renderAudit() {
      $('[data-pane="audit"]').innerHTML = st.audit.length
        ? st.audit.map((r) => `<div class="mm-audit" data-seq="${esc(r.seq)}"><time>${esc(time(r.ts))}</time><div><b>${esc(r.action)}</b> ${esc(r.track ? r.track + '/' + r.scope : '')} ${esc(r.outcome || '')}${r.source ? ' (' + esc(r.source) + ')' : ''}${r.text ? `<q>${esc(r.text.length > 400 ? r.text.slice(0, 400) + '…' : r.text)}</q>` : ''}</div></div>`).join('')
        : `<p class="mm-note">${esc(L.noAudit)}</p>`
    }

    /** The health check: each finding, the entries it is about, and a button that reviews its fix. */
    function renderHealth() {
      const h = st.health
      const pane = $('[data-pane="health"]')
      if (!h) return
      const H = L.health
      $('[data-tab="health"]').textContent = h.findings.length ? `${L.tabs.health} (${h.findings.length})` : L.tabs.health
      pane.innerHTML = !h.findings.length
        ? `<p class="mm-note">${esc(H.none)}</p>`
        : `<p class="mm-note">${esc(fill(H.checked, { n: h.findings.length, checked: h.checked, days: h.staleDays }))}</p>` +
          h.findings.map((f) => `<div class="mm-finding" data-finding="${esc(f.id)}"><div class="mm-meta"><b>${esc(H.kind[f.kind] || f.kind)}</b> · ${esc(where(f))}</div><div>${esc(f.detail)}</div>` +
            `<ul>${f.entries.slice(0, 5).map((e) => `<li>${esc(e.text)}</li>`).join('')}${f.entries.length > 5 ? `<li class="mm-meta">${esc(fill(H.more, { n: f.entries.length - 5 }))}</li>` : ''}</ul>` +
            (f.fix ? `<div class="mm-row"><span class="mm-meta">${esc(fill(H.frees, { n: f.fix.frees }))} · ${esc(f.fix.why)}</span><span class="mm-grow"></span><button class="mm-btn mm-primary" type="button" data-act="review-fix" data-finding="${esc(f.id)}">${esc(H.fix[f.fix.action])}</button></div>` : '') +
            `</div>`).join('')
    }

    function showError(err) {
      st.error = err
      const b = $('.mm-banner')
      b.hidden = !err
      if (err) b.innerHTML = `<b>${esc(err.code || 'HTTP')}</b>${esc(err.message || '')}${err.advice || (L.advice && L.advice[err.code]) ? `<small>${esc(err.advice || L.advice[err.code])}</small>` : ''}`
    }

    // --- data --------------------------------------------------------------------------
    async function loadEntries(append) {
      const q = filters()
      q.set('offset', String(append ? st.entries.length : 0))
      q.set('limit', String(append ? pageSize : Math.min(200, Math.max(pageSize, st.keep || 0))))
      st.keep = 0
      try {
        const d = await call(`entries?${q}`)
        st.data = d
        st.entries = append ? st.entries.concat(d.entries) : d.entries
        renderBudgets()
        renderFilters()
        renderEntries()
        if (st.error && st.error.code === 'HTTP') showError(null)
      } catch (e) {
        showError(e)
      }
    }
    async function loadSide() {
      try {
        const [p, a] = await Promise.all([call('proposals'), call('audit?limit=50')])
        st.proposals = p.proposals
        st.audit = a.rows
        renderProposals()
        renderAudit()
        if (st.tab === 'health') await loadHealth()
      } catch (e) {
        showError(e)
      }
    }
    /** The health check reads every layer: only while its view is open. */
    async function loadHealth() {
      try {
        st.health = await call('health')
        renderHealth()
      } catch (e) {
        showError(e)
      }
    }
    /** Reload everything the drawer shows, keeping as many entries as are loaded. */
    function reload() {
      st.keep = st.entries.length
      return Promise.all([loadEntries(false), loadSide()])
    }
    async function poll() {
      if (!alive || !st.open) return
      try {
        const v = await call('version')
        if (v.language && v.language !== lang) return relabel()
        const key = JSON.stringify(session())
        if ((st.seq !== null && v.seq !== st.seq) || key !== st.sessionKey) {
          st.sessionKey = key
          if (!st.editing && !st.adding && !st.confirm) await reload()
          else v.seq = st.seq // retry once the user is done editing
        }
        st.seq = v.seq
      } catch (e) {}
      if (alive && st.open) timer = setTimeout(poll, POLL_MS)
    }

    function setOpen(open) {
      st.open = open
      $('.mm-drawer').hidden = !open
      $('[data-act="toggle"]').setAttribute('aria-expanded', String(open))
      clearTimeout(timer)
      if (open) {
        st.sessionKey = JSON.stringify(session())
        st.seq = null
        reload().then(poll)
        setTimeout(() => $('.mm-search').focus(), 0)
      } else closeConfirm()
    }

    // --- writes ------------------------------------------------------------------------
    const byId = (id) => st.entries.find((e) => e.id === id)
    const tagsOf = (s) => s.split(',').map((t) => t.trim()).filter(Boolean)
    const where = (e) => `${layerName(e)}${e.scope === 'workspace' ? ' · ' + (e.workspaceKey || L.noWorkspace) : ''}${e.agentKey ? ' · ' + fill(L.agent, { key: e.agentKey }) : ''}`
    const block = (label, text, gone) => `<div class="mm-label">${esc(label)}</div><pre class="mm-full${gone ? ' mm-gone' : ''}">${esc(text)}</pre>`
    /** Every field an entry of a change lands with: layer, workspace, agent, source, tags. */
    const fields = (e) => `${where(e)}${e.agentKey ? '' : ' · ' + L.shared} · ${fill(L.sourceIs, { source: e.source })} · ${e.tags.length ? fill(L.tagsAre, { tags: e.tags.join(', ') }) : L.noTags}`
    const entryBlock = (label, e, gone) => `<div class="mm-label">${esc(label)}</div><div class="mm-meta">${esc(fields(e))}</div><pre class="mm-full${gone ? ' mm-gone' : ''}">${esc(e.text)}</pre>`
    /** The change the server planned (the payload its gate will see), entry by entry. */
    function changeHtml(op, p, editable) {
      const b = p.before
      const a = p.after
      let html = b.map((e) => entryBlock(op === 'replace' ? L.from : L.removedText, e, op !== 'replace')).join('')
      if (editable) html += `<div class="mm-label">${esc(L.newText)}</div><div class="mm-meta">${esc(fields(a[0]))}</div><textarea class="mm-input" data-field="merged" aria-label="${esc(L.newText)}">${esc(a[0].text)}</textarea>`
      else html += a.map((e) => entryBlock(op === 'replace' ? L.to : L.newText, e)).join('')
      if (op === 'replace' && b[0].tags.join('\u0000') !== a[0].tags.join('\u0000')) html += block(L.tagsChange, `${b[0].tags.join(', ') || L.noTags} → ${a[0].tags.join(', ') || L.noTags}`)
      // What the new text is like among the stored entries: the approver decides.
      const alike = (p.similar || []).map((x) => `<div class="mm-similar">≈ ${esc(L.similar[x.relation] || x.relation)} (${esc(x.score.toFixed(2))}, ${esc(x.reason)})<q>${esc(x.text)}</q></div>`).join('')
      return html + alike + (alike ? `<div class="mm-meta">${esc(L.similarAdvice)}</div>` : '') + p.warnings.map((w) => `<div class="mm-warning">${esc(w)}</div>`).join('')
    }

    /** The confirmation: the complete change, then one click of consent. */
    function confirm(op, html, body, preview) {
      st.confirm = { body: Object.assign({ op }, body), preview }
      const m = $('.mm-modal')
      m.innerHTML = `<div class="mm-dialog" role="alertdialog" aria-modal="true" aria-label="${esc(L.confirmTitle[op])}"><h3>${esc(L.confirmTitle[op])}</h3>${html}<p class="mm-consent">${esc(L.consent)}</p>` +
        `<div class="mm-row"><button class="mm-btn" type="button" data-act="cancel-confirm">${esc(L.cancel)}</button><button class="mm-btn mm-primary" type="button" data-act="do-confirm">${esc(L.confirm)}</button></div></div>`
      m.hidden = false
      const button = m.querySelector('[data-act="do-confirm"]')
      button.focus()
      // An edited text is a new change: the button then reviews it before anything is written.
      const merged = m.querySelector('[data-field="merged"]')
      if (merged) merged.addEventListener('input', () => (button.textContent = merged.value === preview.after[0].text ? L.confirm : L.save))
    }
    function closeConfirm() {
      st.confirm = null
      const m = $('.mm-modal')
      if (m) {
        m.hidden = true
        m.innerHTML = ''
      }
    }
    /** POST a change for the page's session (a fresh token once if the plugin was reloaded). */
    async function post(body) {
      const s = session()
      if (!s) throw { code: 'WRITE_REQUIRES_AGENT', message: L.needSession }
      const send = () => call('write', { method: 'POST', headers: { 'content-type': 'application/json', 'x-memento-token': token }, body: JSON.stringify(Object.assign({ session: s.id }, body)) })
      return send().catch(async (e) => {
        if (!e || e.code !== 'FORBIDDEN') throw e
        await boot(true)
        return send()
      })
    }
    /** Ask the server what `op` would change, and show exactly that for confirmation. */
    async function review(op, body) {
      try {
        const { preview } = await post(Object.assign({ op }, body))
        showError(null)
        confirm(op, changeHtml(op, preview, op === 'consolidate'), body, preview)
      } catch (e) {
        showError(e)
      }
    }
    async function commit() {
      const c = st.confirm
      if (!c) return
      closeConfirm()
      try {
        // The write names the change the user saw; the server refuses any other.
        await post(Object.assign({}, c.body, c.preview ? { digest: c.preview.digest } : {}))
        showError(null)
        st.editing = null
        st.adding = false
        if (c.body.op === 'consolidate' || c.body.op === 'remove') st.picked.clear()
        renderAdding()
      } catch (e) {
        showError(e)
      }
      await reload()
    }

    const actions = {
      toggle: () => setOpen(!st.open),
      close: () => setOpen(false),
      refresh: () => reload(),
      tab: (el) => {
        st.tab = el.dataset.tab
        for (const t of root.querySelectorAll('.mm-tab')) t.setAttribute('aria-selected', String(t.dataset.tab === st.tab))
        for (const p of root.querySelectorAll('[data-pane]')) p.hidden = p.dataset.pane !== st.tab
        if (st.tab === 'health') return loadHealth()
      },
      'review-fix': (el) => {
        const f = st.health && st.health.findings.find((x) => x.id === el.dataset.finding)
        if (!f || !f.fix) return
        const version = (id) => ({ id, version: f.entries.find((e) => e.id === id).version })
        if (f.fix.action === 'remove') return review('remove', version(f.fix.ids[0]))
        return review('consolidate', { ids: f.fix.ids.map(version), text: f.fix.text, tags: f.fix.tags })
      },
      more: () => loadEntries(true),
      expand: (el) => {
        const id = el.dataset.id
        if (st.expanded.has(id)) st.expanded.delete(id)
        else st.expanded.add(id)
        renderEntries()
      },
      pick: (el) => {
        const e = byId(el.dataset.id)
        if (!e) return
        if (el.checked) {
          const first = st.picked.values().next().value
          if (first && (first.track !== e.track || first.scope !== e.scope || first.workspaceKey !== e.workspaceKey || first.agentKey !== e.agentKey)) {
            el.checked = false
            return showError({ code: 'INVALID_INPUT', message: L.consolidateSameLayer })
          }
          st.picked.set(e.id, e)
        } else st.picked.delete(e.id)
        renderEntries()
      },
      unpick: () => {
        st.picked.clear()
        renderEntries()
      },
      edit: (el) => {
        st.editing = el.dataset.id
        renderEntries()
        const t = $(`[data-id="${CSS.escape(st.editing)}"] textarea`)
        if (t) t.focus()
      },
      'cancel-edit': () => {
        st.editing = null
        renderEntries()
      },
      'review-edit': (el) => {
        const e = byId(el.dataset.id)
        const card = el.closest('.mm-entry')
        const text = card.querySelector('[data-field="text"]').value
        const tags = tagsOf(card.querySelector('[data-field="tags"]').value)
        return review('replace', { id: e.id, version: e.version, text, tags })
      },
      remove: (el) => {
        const e = byId(el.dataset.id)
        return review('remove', { id: e.id, version: e.version })
      },
      add: () => {
        st.adding = !st.adding
        renderAdding()
        if (st.adding) $('.mm-adding textarea').focus()
      },
      'cancel-add': () => {
        st.adding = false
        renderAdding()
      },
      'review-add': () => {
        const box = $('.mm-adding')
        const [track, scope] = box.querySelector('[data-field="layer"]').value.split('/')
        const text = box.querySelector('[data-field="text"]').value
        const tags = tagsOf(box.querySelector('[data-field="tags"]').value)
        return review('add', { track, scope, text, tags })
      },
      'review-consolidate': () => {
        const picked = [...st.picked.values()]
        if (picked.length < 2) return
        return review('consolidate', { ids: picked.map((e) => ({ id: e.id, version: e.version })), text: picked.map((e) => e.text).join('\n') })
      },
      'review-proposal': (el) => {
        const p = st.proposals.find((x) => x.id === el.dataset.id)
        if (!p) return
        const op = el.dataset.decision
        // A dismissal changes no memory: its confirmation shows the proposal itself.
        if (op === 'approved') return review(op, { id: p.id })
        confirm(op, `<div class="mm-meta">${esc(layerName(p))}${p.workspaceKey ? ' · ' + esc(p.workspaceKey) : ''}</div>${block(L.text, p.text, true)}`, { id: p.id })
      },
      'cancel-confirm': () => closeConfirm(),
      'do-confirm': () => {
        // A new text typed into the confirmation is a new change: show it before it is written.
        const merged = root.querySelector('.mm-modal [data-field="merged"]')
        const c = st.confirm
        if (merged && c && merged.value !== c.preview.after[0].text) {
          const { op, ...body } = c.body
          return review(op, Object.assign(body, { text: merged.value }))
        }
        return commit()
      },
    }
    const onClick = (ev) => {
      const el = ev.target.closest('[data-act]')
      if (!el || !root.contains(el) || !actions[el.dataset.act]) return
      if (el.type === 'checkbox') {
        actions[el.dataset.act](el)
        return
      }
      ev.preventDefault()
      actions[el.dataset.act](el)
    }
    const onKey = (ev) => {
      // Escape inside the drawer (or with nothing focused) is ours; elsewhere dsh keeps it.
      if (ev.key !== 'Escape' || !st.open || !(root.contains(ev.target) || ev.target === document.body)) return
      ev.stopPropagation()
      if (st.confirm) closeConfirm()
      else setOpen(false)
    }

    /** The plugin was reloaded in another language: redraw with the new words. */
    function relabel() {
      closeConfirm()
      st.editing = null
      st.adding = false
      return boot(false)
    }
    /** Labels and the page token first: nothing is drawn before the words are known. */
    async function boot(tokenOnly) {
      try {
        const b = await call('panel')
        token = b.token
        if (tokenOnly || !alive) return
        lang = b.language
        L = b.labels
        LAYERS = b.layers
        pageSize = b.pageSize
        skeleton()
        document.head.appendChild(style)
        document.body.appendChild(root)
        if (st.open) setOpen(true)
      } catch (e) {
        if (!tokenOnly && alive) setTimeout(boot, 3000) // dsh web restarting: try again
      }
    }
    root.addEventListener('click', onClick)
    document.addEventListener('keydown', onKey, true)
    const unsubscribe = sessions && sessions.list && typeof sessions.list.subscribe === 'function' ? sessions.list.subscribe(() => {
      if (st.open && JSON.stringify(session()) !== st.sessionKey) {
        st.sessionKey = JSON.stringify(session())
        reload()
      }
    }) : null
    boot(false)
    return () => {
      alive = false
      clearTimeout(timer)
      clearTimeout(debounce)
      document.removeEventListener('keydown', onKey, true)
      if (typeof unsubscribe === 'function') unsubscribe()
      root.remove()
      style.remove()
    }
  }

  if (typeof window !== 'undefined' && window.__ModuleLoader__ && typeof window.__ModuleLoader__.load === 'function') {
    window.__ModuleLoader__.load({
      id: 'dsh-memento',
      factory: () => ({
        name: 'memento-panel',
        inject: ['sessions'],
        apply(ctx) {
          if (ctx && typeof ctx.effect === 'function') ctx.effect(() => install(ctx))
          else install(ctx)
        },
      }),
    })
  }
})()
