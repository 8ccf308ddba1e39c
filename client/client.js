// dsh-memento web panel: a read-only "Memory" drawer over the plugin's JSON routes
// (/api/memento/entries, /audit, /proposals). Approvals and writes happen in dsh's own
// approval UI or through /memory. Classic script, registered with the host module loader.
;(function () {
  'use strict'
  // Labels come from the server's strings table (lib/plugin/strings.mjs `panel`), with each
  // /api/memento/entries answer; until the first one arrives the button is just the icon.
  var L = { open: '🧠' }
  var t = function (k) { return L[k] == null ? '' : L[k] }
  var esc = function (s) {
    return String(s == null ? '' : s).replace(/[&<>"']/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c] })
  }
  var cut = function (s, n) { s = String(s); return s.length > n ? s.slice(0, n) + '…' : s }
  var time = function (ms) { try { return new Date(ms).toLocaleString() } catch (e) { return String(ms) } }
  var getJSON = function (url) {
    return fetch(url, { credentials: 'same-origin' }).then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status)
      return r.json()
    })
  }

  function installPanel() {
    if (typeof document === 'undefined' || document.getElementById('dsh-memento-panel')) return
    var state = { entries: null }
    var root = document.createElement('div')
    root.id = 'dsh-memento-panel'
    root.innerHTML =
      '<button id="mem-open" style="position:fixed;right:12px;bottom:12px;z-index:9998;padding:6px 10px;border-radius:6px;border:1px solid #8884;background:#fff;color:#222;cursor:pointer"></button>' +
      '<aside id="mem-drawer" style="display:none;position:fixed;top:0;right:0;bottom:0;width:460px;max-width:100vw;z-index:9999;background:#fff;color:#222;border-left:1px solid #8886;box-shadow:-4px 0 12px #0002;font:13px/1.4 system-ui,sans-serif;overflow:auto">' +
      '<header style="display:flex;gap:6px;align-items:center;padding:10px;border-bottom:1px solid #8884"><strong id="mem-title" style="flex:1"></strong><button id="mem-refresh"></button><button id="mem-close"></button></header>' +
      '<div style="padding:10px"><input id="mem-filter" style="width:100%;box-sizing:border-box;padding:4px 6px"></div>' +
      // B10: the filter re-renders only #mem-entries; budgets, audit and proposals stay.
      '<section id="mem-entries" style="padding:0 10px"></section><section id="mem-budgets" style="padding:0 10px"></section>' +
      '<section id="mem-audit" style="padding:0 10px"></section><section id="mem-proposals" style="padding:0 10px 10px"></section></aside>'
    document.body.appendChild(root)
    var $ = function (id) { return document.getElementById(id) }
    var labels = function () {
      $('mem-open').textContent = t('open')
      $('mem-title').textContent = t('title')
      $('mem-refresh').textContent = t('refresh')
      $('mem-close').textContent = t('close')
      $('mem-filter').placeholder = t('filter')
    }
    labels()
    getJSON('/api/memento/entries?limit=1').then(function (data) {
      if (data.labels) L = data.labels
      labels()
    }).catch(function () {})
    function renderEntries() {
      var data = state.entries
      if (!data) return
      var q = $('mem-filter').value.toLowerCase()
      var list = data.entries.filter(function (e) { return !q || String(e.text).toLowerCase().indexOf(q) >= 0 })
      var groups = {}
      list.forEach(function (e) { (groups[e.track + '/' + e.scope] = groups[e.track + '/' + e.scope] || []).push(e) })
      var html = '<h3>' + esc(t('entries')) + '</h3>'
      var keys = Object.keys(groups)
      if (!keys.length) html += '<p>' + esc(t('none')) + '</p>'
      keys.forEach(function (k) {
        html += '<h4>' + esc(k) + ' (' + groups[k].length + ')</h4>'
        groups[k].forEach(function (e) {
          html += '<div style="border:1px solid #8884;border-radius:6px;padding:6px;margin:4px 0"><div style="white-space:pre-wrap">' + esc(e.text) + '</div>' +
            '<div style="opacity:.7;font-size:12px">' + esc(e.source) + (e.agentKey ? ' · ' + esc(t('agent')) + ' ' + esc(e.agentKey) : '') + ' · ' + esc(time(e.createdAt)) + '</div></div>'
        })
      })
      if (data.truncated) html += '<p style="opacity:.7">' + esc(t('truncated').replace('{n}', data.entries.length).replace('{total}', data.total)) + '</p>'
      $('mem-entries').innerHTML = html
    }
    function renderBudgets(rows) {
      var html = '<h3>' + esc(t('budgets')) + '</h3>'
      rows.forEach(function (b) {
        var pct = b.limit > 0 ? Math.min(100, Math.round((b.used / b.limit) * 100)) : 0
        html += '<div>' + esc(b.track + '/' + b.scope) + ': ' + esc(b.used) + '/' + esc(b.limit) +
          '<div style="height:6px;background:#8883;border-radius:3px"><div style="height:6px;width:' + pct + '%;background:' + (pct >= 90 ? '#c33' : '#3a7') + ';border-radius:3px"></div></div></div>'
      })
      $('mem-budgets').innerHTML = html
    }
    function refresh() {
      getJSON('/api/memento/entries?limit=200').then(function (data) {
        if (data.labels) L = data.labels
        labels()
        state.entries = data
        renderEntries()
        renderBudgets(data.budgets || [])
      }).catch(function (e) { $('mem-entries').textContent = t('failed') + e.message })
      getJSON('/api/memento/audit?limit=20').then(function (data) {
        var html = '<h3>' + esc(t('audit')) + '</h3>'
        if (!data.rows.length) html += '<p>' + esc(t('none')) + '</p>'
        data.rows.forEach(function (r) {
          html += '<div style="font-size:12px">' + esc(time(r.ts)) + ' <b>' + esc(r.action) + '</b> ' + esc(r.track ? r.track + '/' + r.scope : '') + ' ' + esc(r.outcome || '') + ' (' + esc(r.source || '') + ')</div>'
        })
        $('mem-audit').innerHTML = html
      }).catch(function () {})
      getJSON('/api/memento/proposals').then(function (data) {
        var html = '<h3>' + esc(t('proposals')) + '</h3>'
        if (!data.proposals.length) html += '<p>' + esc(t('none')) + '</p>'
        data.proposals.forEach(function (p) { html += '<div>[' + esc(p.id) + '] ' + esc(p.track + '/' + p.scope) + ' · ' + esc(cut(p.text, 160)) + '</div>' })
        $('mem-proposals').innerHTML = html
      }).catch(function () {})
    }
    $('mem-open').onclick = function () {
      var d = $('mem-drawer')
      var show = d.style.display === 'none'
      d.style.display = show ? 'block' : 'none'
      if (show) refresh()
    }
    $('mem-close').onclick = function () { $('mem-drawer').style.display = 'none' }
    $('mem-refresh').onclick = refresh
    $('mem-filter').oninput = renderEntries
  }

  if (typeof window !== 'undefined' && window.__ModuleLoader__ && typeof window.__ModuleLoader__.load === 'function') {
    window.__ModuleLoader__.load({ id: 'dsh-memento', factory: function () { return { name: 'memento-panel', inject: [], apply: installPanel } } })
  }
})()
