// Model- and user-visible strings, en and zh. Error messages stay English (audit contract).

import { RULES } from './native.mjs'

/** A written text's likeness to a stored entry (the tool's result, /memory and the CLI). */
const similarEn = (relation, text, score, why, action) =>
  `note: ${relation === 'duplicate' ? 'likely a duplicate of' : relation === 'update' ? 'likely an update of' : 'similar to'} a stored entry (${score}, ${why}): ${text}${relation !== 'related' && action === 'add' ? ' — consider replace (or consolidate) instead of keeping both' : ''}`
const similarZh = (relation, text, score, why, action) =>
  `提示：${relation === 'duplicate' ? '很可能与一条已存条目重复' : relation === 'update' ? '很可能是一条已存条目的更新' : '与一条已存条目相似'}（${score}，${why}）：${text}${relation !== 'related' && action === 'add' ? ' —— 建议改用 replace（或 consolidate），不要两条并存' : ''}`

// The snapshot's English words are the provider's own defaults (what snapshot() renders without labels).
const SNAPSHOT_EN = RULES.snapshotLabels

const en = {
  snapshotHeader: SNAPSHOT_EN.header,
  groups: SNAPSHOT_EN.groups,
  proposalsHeader: SNAPSHOT_EN.proposalsHeader,
  usageSuffix: SNAPSHOT_EN.usageSuffix,

  toolDescription: [
    'Read and write your bounded, layered, approval-gated memory (it persists across sessions).',
    'Tracks: user = facts about the user (preferences, corrections, communication style); agent = environment facts, project conventions, lessons learned.',
    'Layers: user-global applies in every workspace; workspace applies only to the current working directory.',
    'Each track x layer has a hard character budget, shown in the snapshot header. A write over budget fails with a structured error (used/limit): consolidate or remove entries, then retry. Never truncate.',
    'SAVE: user preferences and corrections, environment facts and conventions, lessons from mistakes, summaries of completed work, anything the user asks you to remember.',
    'SKIP: trivial or easily re-derived facts, encyclopedia knowledge, large dumps and logs, one-off paths, content already in the workspace files.',
    "Every write needs the user's approval and is audited; reads are free.",
    'replace and remove target a UNIQUE case-insensitive substring of one entry (match). consolidate merges 1..20 entries (matches) into one new text with one approval and one atomic write.',
    'The memory snapshot in the system prompt is frozen for this session: writes take effect in the next session, use action=query to read current state.',
    "history (match) lists one entry's versions, oldest first, each with the seq of the change that made it. undo (seq) takes back that whole change (a consolidate or an import as a whole), with the user's approval like any write; it is refused if an entry changed since. Undo a write of yours that turned out wrong, or when the user asks.",
  ].join('\n'),
  param: {
    action: 'add | replace | remove | consolidate | query | history | undo',
    track: 'user | agent (writes default to user)',
    scope: 'user-global | workspace (writes default to workspace)',
    text: 'New text (add, replace, consolidate) or substring filter (query)',
    match: 'Unique case-insensitive substring of the target entry (replace, remove, history)',
    matches: 'consolidate: 1..20 unique substrings, one per entry to merge',
    limit: 'query page size (default 20, max 1000)',
    seq: 'undo: the seq of the change to undo (history names the seq of each version)',
    tags: 'Optional short tags (at most 16, each at most 32 chars)',
  },
  recallDescription: [
    'Two-part recall: (1) bounded memory entries matching the query and (2) recent session-history matches (through the session-query service, when the profile has one).',
    'Use it when a memory lookup alone is ambiguous and past conversations may hold the answer; for a plain lookup use memory action=query.',
    'Matching is case-insensitive for memory and a case-insensitive text scan for history.',
  ].join('\n'),
  recallParam: {
    query: 'Text to look for',
    memoryLimit: 'Maximum memory entries (default 10)',
    historyLimit: 'Maximum sessions to scan',
  },

  render: {
    failed: (a, m) => `memory ${a} failed: ${m}`,
    current: (text) => `its current text: ${text}`,
    noMatch: 'memory query: no entries matched',
    matches: (n, total, truncated) =>
      `memory query: ${n} match${n === 1 ? '' : 'es'}${truncated ? ` (of ${total} total; refine the filter for more)` : ''}`,
    changed: { add: 'added', replace: 'replaced', remove: 'removed' },
    written: (verb, t, s, text) => `memory entry ${verb} (${t}/${s}): ${text}`,
    consolidated: (t, s, k, text) => `memory entries consolidated (${t}/${s}): ${k} removed → ${text}`,
    budget: (u, l) => `budget: ${u}/${l} chars used`,
    similar: similarEn,
    room: 'to make room (each is one memory call, approved like any write):',
    roomConsolidate: (matches, text) => `consolidate matches=[${matches}] text=${text}`,
    roomRemove: (match) => `remove match=${match}`,
    frees: (n) => `frees ${n} chars`,
    recallNone: 'memory: no entries matched',
    recallMatches: (n, total, truncated) => `memory: ${n} match${n === 1 ? '' : 'es'}${truncated ? ` (of ${total})` : ''}`,
    historyUnavailable: 'history: session-query unavailable in this profile',
    historyFailed: (e) => `history: session-query failed (${e})`,
    historyNone: 'history: no matching sessions',
    historySession: (id, m) => `- session ${id}: ${m} event match${m === 1 ? '' : 'es'}`,
    versionsHead: (id, t, s, n) => `memory history of entry ${id} (${t}/${s}): ${n} version${n === 1 ? '' : 's'}, oldest first`,
    versionsPruned: '(audit retention pruned its older rows: the history starts here)',
    versionLine: (v, seq, action, reverts, text) => `- v${v} (change #${seq}, ${action}${reverts ? `, undoing #${reverts}` : ''}): ${text}`,
    versionsEnded: (seq, into) => (into ? `merged into entry ${into} by change #${seq}` : `removed by change #${seq}`),
    versionsLive: (v) => `in memory now as v${v}`,
    undone: (seq, n) => `memory change #${seq} undone (${n} ${n === 1 ? 'entry' : 'entries'}):`,
    undoChange: { remove: 'removed', restore: 'restored', replace: 'rewritten back to' },
  },

  // The web panel (client/), sent by GET /api/memento/panel before the first paint;
  // `{name}` placeholders are filled in by the client.
  panel: {
    open: '🧠 Memory',
    title: 'Memory',
    refresh: 'Refresh',
    close: 'Close',
    search: 'Search all entries…',
    allLayers: 'All layers',
    allWorkspaces: 'All workspaces',
    thisWorkspace: 'This workspace',
    globalOnly: 'Global only',
    allAgents: 'All agents',
    sharedAgent: 'Shared (no agent)',
    layers: {
      'user/user-global': 'User · global',
      'user/workspace': 'User · workspace',
      'agent/user-global': 'Agent · global',
      'agent/workspace': 'Agent · workspace',
    },
    budgetsFor: 'Budgets for {ws}',
    budgetsGlobal: 'Budgets (open a session to see its workspace)',
    noWorkspace: '(no workspace)',
    tabs: { entries: 'Entries', proposals: 'Proposals', audit: 'Audit', health: 'Health', sessions: 'Sessions' },
    history: 'History',
    historyTitle: 'History of this entry',
    version: 'Version {v}',
    change: 'change #{seq}',
    undoes: 'undoes change #{seq}',
    historyPruned: 'Audit retention pruned its older rows: its history starts here.',
    historyRemoved: 'Removed by change #{seq} · {time}',
    historyMerged: 'Merged into another entry by change #{seq} · {time}',
    historyLive: 'In memory now as version {v}.',
    undo: 'Undo',
    reverts: 'Undoes change #{seq}: every entry goes back to exactly what it was.',
    restored: 'Restored (full text)',
    sessionsNone: 'No session of this workspace and agent is recorded yet.',
    given: 'Given to session {id} · {time} · {n} chars',
    next: 'What the next session here would get · {n} chars',
    nextNeedSession: 'Open a session to see what the next session in its workspace would get.',
    sessionsNote: 'Lines only one side has are marked: struck through on the session that had it, highlighted on the next.',
    similar: { duplicate: 'Likely a duplicate of', update: 'Likely an update of', related: 'Similar to' },
    // Said only beside a likely duplicate or update: a similar entry may be another fact.
    similarAdvice: 'The change is written as shown either way; to keep one entry, cancel and edit or consolidate the stored one instead.',
    health: {
      none: 'Nothing to fix: no duplicates, updates of one fact, stale entries, missing files, credentials or oversized entries.',
      checked: '{n} findings in {checked} entries (stale: not recalled for {days} days).',
      kind: {
        duplicates: 'Duplicates',
        updates: 'Updates of one fact',
        stale: 'Stale',
        'missing-path': 'Missing file',
        secret: 'Credential',
        oversized: 'Oversized',
      },
      fix: { consolidate: 'Consolidate…', remove: 'Remove…' },
      frees: 'frees {n} chars',
      more: '… and {n} more',
    },
    total: '{n} entries',
    totalOne: '1 entry',
    showing: 'Showing {shown} of {total}',
    more: 'Load more',
    capped: 'More than 1000 entries match: narrow the search to see the rest.',
    none: 'No entries.',
    noMatch: 'No entry matches.',
    showMore: 'Show more',
    showLess: 'Show less',
    agent: 'agent {key}',
    shared: 'shared',
    sourceIs: 'source {source}',
    tagsAre: 'tags: {tags}',
    noTags: 'no tags',
    tagsChange: 'Tags change',
    recalled: 'recalled {n}×',
    edit: 'Edit',
    remove: 'Remove',
    add: 'Add entry',
    save: 'Review change',
    cancel: 'Cancel',
    select: 'Select for consolidation',
    selected: '{n} selected',
    consolidate: 'Consolidate…',
    clearSelection: 'Clear',
    consolidateSameLayer: 'Only entries of one layer and workspace can be consolidated together.',
    text: 'Text',
    tags: 'Tags (comma separated)',
    layer: 'Layer',
    confirmTitle: {
      add: 'Add this entry?',
      replace: 'Replace this entry?',
      remove: 'Remove this entry?',
      consolidate: 'Consolidate these entries?',
      revert: 'Undo this change?',
      approved: 'Approve this proposal?',
      dismissed: 'Dismiss this proposal?',
    },
    from: 'From',
    to: 'To',
    removedText: 'Removed (full text)',
    newText: 'New entry',
    where: 'Layer',
    consent:
      'Confirming is your own approval of exactly this change: it is written to the audit log as "(via panel, …)". It is refused when writePolicy is off or this session\'s approval policy is "never".',
    confirm: 'Confirm',
    done: 'Done.',
    approve: 'Approve',
    dismiss: 'Dismiss',
    noProposals: 'No pending proposals.',
    noAudit: 'No audit rows.',
    failed: 'Could not load the memory panel:',
    needSession: 'Open a session to edit memory: the panel writes on behalf of the session this page shows.',
    advice: {
      INVALID_INPUT: 'Change the text as the message says, then try again.',
      WRITE_REQUIRES_AGENT: 'Open a session in this page first: panel writes belong to the session you have open.',
      BUDGET_EXCEEDED: 'This layer is full: remove or consolidate entries first, or raise its budget in the plugin config.',
      ENTRY_NOT_FOUND: 'The entry changed or is gone since the panel showed it: refresh and review it again.',
      changed: 'A later change touched this entry: refresh and review it again (to undo a change, undo the later one first).',
      AMBIGUOUS_MATCH: 'Another entry of this layer contains this whole text: change or remove that entry first.',
      WRITE_DENIED:
        'Memory writes are refused by policy (writePolicy off, or this session\'s approval policy is "never"). Change the policy to write.',
      PROPOSAL_NOT_FOUND: 'The proposal was already decided or is gone: refresh.',
      STORE_CORRUPT: 'The store cannot be read: run `dsh-memento audit verify` and check the file.',
      STORE_UNSUPPORTED_VERSION: 'The store was written by a newer dsh-memento: upgrade the plugin.',
      pageToken: 'Reload the page: its write token is not valid any more.',
      HTTP: 'Check that dsh (dsh web, or the desktop app that runs it) is still running, then refresh.',
    },
  },
  // `/memory` and the CLI (lib/commands): result texts, then each surface's own syntax.
  cmd: {
    empty: 'Memory is empty.',
    entries: (n) => `Memory entries (${n}):`,
    entriesPartial: (total, shown) => `Memory entries (${total} total, showing first ${shown}):`,
    noMatch: (q) => `No entry contains ${JSON.stringify(q)}.`,
    matches: (n) => `Matches (${n}):`,
    matchesPartial: (total, shown) => `Matches (${total} total, showing first ${shown}):`,
    tags: (tags) => `  (tags: ${tags.join(', ')})`,
    budgets: 'Budget usage:',
    auditEmpty: 'Audit is empty.',
    audit: (n) => `Recent audit (${n} rows):`,
    auditVerified: (n, head) => `Audit chain verified: ${n} rows, head ${head ?? '(empty)'}`,
    auditBroken: (seq, reason, n) => `Audit chain BROKEN at row ${seq}: ${reason} (${n} rows checked)`,
    auditRecord: (table, id, reason) => `- ${table} ${id}: ${reason}`,
    auditLayer: (track, scope, ws, recorded, actual) =>
      `- layer ${track}/${scope}${ws ? ` @${ws}` : ''}: usage recorded ${recorded}, its entries hold ${actual}`,
    auditStored: (n) => `The store does NOT match its ledger (${n}):`,
    historyHead: (id, place, n) => `History of entry ${id} [${place}], ${n} ${n === 1 ? 'version' : 'versions'}, oldest first:`,
    historyPruned: 'Audit retention pruned its older rows: its history starts here.',
    historyNone: 'No history: the store is empty.',
    undoes: (seq) => `undoes #${seq}`,
    historyEnded: (seq, when, into) => (into ? `Merged into entry ${into} by #${seq} (${when}).` : `Removed by #${seq} (${when}).`),
    historyLive: (v) => `In memory now as v${v}.`,
    undone: (seq, n) => `Undid change #${seq} (${n} ${n === 1 ? 'entry' : 'entries'}):`,
    undoChange: { remove: 'removed', restore: 'restored', replace: 'rewritten back to' },
    nothingToUndo: 'Nothing to undo: no change this workspace and agent see can be undone.',
    noSessions: 'No sessions recorded.',
    sessions: (n) => `Recorded sessions (${n}, newest first):`,
    sessionKeys: (ws, agent) => `${ws ? `@${ws}` : '(no workspace)'}${agent ? ` #${agent}` : ''}`,
    sessionKeysUnknown: '(keys not recorded)',
    chars: (n) => `${n} chars`,
    session: (id, when, keys, n) => `Session ${id} (${when}, ${keys}) was given exactly this (${n} chars):`,
    noSession: (id) => `No session ${JSON.stringify(id)} is recorded.`,
    usage: (u, l) => `Layer usage: ${u}/${l}`,
    added: (t, s, text) => `Added (${t}/${s}): ${text}`,
    removed: (t, s, text) => `Removed (${t}/${s}): ${text}`,
    replaced: (t, s, before, text) => `Replaced (${t}/${s}): ${before}\n  -> ${text}`,
    consolidated: (t, s, k, text) => `Consolidated (${t}/${s}): removed ${k}, added 1.\nNew entry: ${text}`,
    noProposals: 'No pending memory proposals.',
    proposals: (n) => `Pending proposals (${n}):`,
    approved: (t, s, text) => `Proposal approved and written to memory (${t}/${s}): ${text}`,
    dismissed: (id) => `Proposal ${id} dismissed.`,
    noAdapters: 'No memory adapters registered.',
    adapters: (n) => `Memory adapters (${n}):`,
    adapterFormats: (i, e) => `import: ${i}; export: ${e}`,
    from: { document: 'from the export document', parts: (n) => `from ${n} parts`, adapter: (id) => `via adapter ${id}` },
    imported: (n, from) => `Imported ${n} entries ${from} (one approval, one transaction; budgets checked).`,
    skipped: (n) => ` Skipped ${n} already present.`,
    importNote: ' Entries get fresh ids and timestamps; tags, sources and keys are kept.',
    wouldImport: (n, from) => `Would import ${n} entries ${from} (dry run; nothing was written):`,
    layerSize: (layer, chars, n) => `  ${layer}: ${chars} chars in ${n} ${n === 1 ? 'entry' : 'entries'}`,
    at: (file, line) => (line ? `${file} line ${line}` : file),
    lines: (file, a, b) => `${file} ${a === b ? `line ${a}` : `lines ${a}-${b}`}`,
    entryNumber: (i) => `entry ${i}`,
    budget: {
      head: (layer, need, free, limit, over) =>
        `import: this import needs ${need} chars in ${layer}, which has ${free} of its ${limit} free: ${over} chars over. Nothing was written.`,
      sections: 'Largest sections:',
      section: (name, where, chars, n, whole) =>
        `  - ${name}${where ? ` (${where})` : ''}: ${chars} chars in ${n} ${n === 1 ? 'entry' : 'entries'}${whole ? ", more than the layer's whole budget" : ''}`,
      noSection: '(no heading)',
      ways: 'Ways forward:',
    },
    secret: {
      head: (k, n) =>
        `import: ${k} of ${n} entries look like they contain credentials; memory is injected into every future prompt, so nothing was written:`,
      entry: (where, section, kind, field, excerpt) =>
        `  - ${where}${section ? ` (${section})` : ''}: ${kind}${field === 'text' ? `: "${excerpt}"` : ` in its ${field}`}`,
      leftOut: (k) => `left out ${k} ${k === 1 ? 'entry that looks' : 'entries that look'} like credentials:`,
      leftOutShort: (k) => ` Left out ${k} flagged as credentials.`,
    },
    similar: similarEn,
    doctor: {
      healthy: (n) => `Memory health: nothing to fix in ${n} ${n === 1 ? 'entry' : 'entries'}.`,
      head: (k, n) => `Memory health: ${k} ${k === 1 ? 'finding' : 'findings'} in ${n} ${n === 1 ? 'entry' : 'entries'}:`,
      kind: {
        duplicates: 'duplicates',
        updates: 'updates of one fact',
        stale: 'stale',
        'missing-path': 'missing file',
        secret: 'credential',
        oversized: 'oversized',
      },
      fix: 'fix',
      consolidate: (k, text) => `consolidate these ${k} into ${text}`,
      remove: (text) => `remove ${text}`,
      frees: (n) => `frees ${n} chars`,
      fixed: (id, kind) => `Fixed ${id} (${kind}):`,
      noFix: (id) => `no finding with a fix has the id ${JSON.stringify(id)}: list them again (the store may have changed since)`,
      ambiguous: (id, n) => `${n} findings start with ${JSON.stringify(id)}: give more of the id`,
      room: 'To make room (each is one write, approved like any other):',
    },
    warning: (w) => `warning: ${w.line ? `line ${w.line}: ` : ''}${w.message}`,
    unknown: (verb, usage) => `Unknown subcommand "${verb}". ${usage}`,
    memoryError: (code, msg) => `memory ${code}: ${msg}`,
    failed: (msg) => `memory command failed: ${msg}`,
    usageLine: (need, synopsis) => `${need}: ${synopsis}`,
    // What a mistyped command lacks; followed by the surface's synopsis of the verb where it has one.
    need: {
      doctor: 'doctor takes no arguments but fix <id>',
      query: 'query needs a word',
      add: 'add needs text',
      remove: 'remove needs a unique substring',
      replace: 'replace needs a unique substring and new text',
      consolidate: 'consolidate usage',
      proposals: 'proposals usage',
      export: 'export takes no arguments',
      import: 'import restores entries from an export document',
      importAdapter: 'import --adapter takes exactly one file or directory',
      exportParts:
        'the store holds more than 1000 entries, the most one export document carries; write them into a directory as parts with a manifest',
      consolidateCount: 'consolidate needs 1..20 unique substrings (left of =>)',
      consolidateText: 'consolidate needs new text (right of =>, or --text)',
      history: 'history needs an entry: its id, the #<seq> of a row that names it, or a unique substring',
      undo: 'undo takes at most one audit seq',
      sessions: 'sessions takes at most one session id',
    },
    '/memory': {
      description:
        'View/manage dsh-memento memory: list | query <word> | add [--track=user|agent] [--scope=user-global|workspace] <text> | replace <substring> => <new text> | remove <substring> | consolidate <substring...> => <new text> | history <substring|id|#seq> | undo [seq] | sessions [id] | proposals [approve|dismiss <id>] | doctor [fix <id>] | budgets | audit [verify] | adapters | export [--adapter=<id>] | import [--adapter=<id>] <path>',
      hint: 'list | query | add | replace | remove | consolidate | history | undo | sessions | proposals | doctor | budgets | audit | adapters | export | import',
      usage:
        'Usage: /memory list | query <word> | add <text> | replace <substring> => <new text> | remove <substring> | consolidate <substring...> => <new text> | history <substring|id|#seq> | undo [seq] | sessions [id] | proposals [approve|dismiss <id>] | doctor [fix <id>] | budgets | audit [verify] | adapters | export [--adapter=<id>] | import [--adapter=<id>] <path>',
      synopsis: {
        history: '/memory history [--track=user|agent] [--scope=user-global|workspace] <substring> | /memory history <id|#seq>',
        undo: '/memory undo [<seq>]',
        sessions: '/memory sessions [<id>]',
        query: '/memory query <word>',
        add: '/memory add [--track=user|agent] [--scope=user-global|workspace] <text>',
        remove: '/memory remove [--track=user|agent] [--scope=user-global|workspace] <substring>',
        replace: '/memory replace [--track=user|agent] [--scope=user-global|workspace] <substring> => <new text>',
        consolidate:
          '/memory consolidate [--track=user|agent] [--scope=user-global|workspace] <substring1> [<substring2> ...] => <new text>',
        proposals: '/memory proposals | proposals approve <id> | proposals dismiss <id>',
        doctor: '/memory doctor [--stale-days=N] | /memory doctor fix <id>',
        export: '/memory export [--adapter=<id>]',
        import:
          '/memory import [--dry-run] [--skip-flagged] <path> | /memory import \'{"plugin":"dsh-memento",...}\' | /memory import --adapter=<id> [--track=T] [--scope=S] <path|inline JSON>',
        importAdapter: '/memory import --adapter=<id> <path|inline JSON>',
        exportParts: 'dsh-memento export --out-dir <dir> (in a terminal; /memory import <dir> restores every part in one approval)',
      },
      budgetWays: {
        raise: (track, key, n) => `  - raise budgets.${track}.${key} to at least ${n} in the dsh-memento plugin config, then import again`,
        move: (room) =>
          `  - import into another layer: --track=user|agent --scope=user-global|workspace${room.length ? ` (room for it: ${room.join(', ')} chars free)` : ''}`,
        dryRun:
          "  - see every entry and each layer's total first: /memory import --dry-run <path>; then shorten or leave out the largest sections in the source",
      },
      secretWays: (rest) =>
        `Import the other ${rest} without them: /memory import --skip-flagged <path> (or set secretPolicy to warn in the plugin config to be asked about each).`,
      proposalsFooter: 'Approve: /memory proposals approve <id>; dismiss: /memory proposals dismiss <id>',
      doctorFooter: 'Apply a fix: /memory doctor fix <id> (shows the whole change; nothing else is changed).',
      roomFooter: 'Apply one: /memory remove <substring> or /memory consolidate <substrings> => <text>; /memory doctor lists fixes by id.',
      adaptersFooter: 'Import: /memory import --adapter=<id> <path|inline JSON>; export: /memory export --adapter=<id>',
      auditFooter: "Undo a change: /memory undo <seq>; an entry's versions: /memory history #<seq>",
      sessionsFooter: 'What one was given: /memory sessions <id>',
    },
    'dsh-memento': {
      synopsis: {
        history: 'dsh-memento history <substring|id|#seq> [--track T] [--scope S] [--json]',
        undo: 'dsh-memento undo [<seq>] [--yes] [--json]',
        sessions: 'dsh-memento sessions [--session <id>] [--limit N] [--json]',
        query: 'dsh-memento query <text>',
        add: 'dsh-memento add [--track user|agent] [--scope user-global|workspace] [--tags a,b] <text>',
        remove: 'dsh-memento remove [--track T] [--scope S] <substring>',
        replace: 'dsh-memento replace [--track T] [--scope S] <substring> <new text>  (or --text <new text>)',
        consolidate: 'dsh-memento consolidate <sub1> [<sub2> ...] --text <new text>  (or: sub1 sub2 => new text)',
        proposals: 'dsh-memento proposals | proposals approve <id> | proposals dismiss <id>',
        doctor: 'dsh-memento doctor [--stale-days N] [--fix <id>] [--json]',
        export: 'dsh-memento export [--out FILE | --out-dir DIR] (no positional arguments)',
        import: 'dsh-memento import <file|dir|-|inline JSON> (or --adapter <id> <path>)',
        importAdapter: 'dsh-memento import --adapter <id> <file|dir>',
        exportParts: 'dsh-memento export --out-dir <dir> [--force]  (dsh-memento import <dir> restores every part in one approval)',
      },
      budgetWays: {
        raise: (track, key, n) =>
          `  - raise the layer's budget: --budgets '{"${track}":{"${key}":${n}}}' (and the same budgets.${track}.${key} in the plugin config: the plugin records its budgets in the store, and later CLI runs use them)`,
        move: (room) =>
          `  - import into another layer: --track user|agent --scope user-global|workspace${room.length ? ` (room for it: ${room.join(', ')} chars free)` : ''}`,
        dryRun: "  - see every entry and each layer's total first: --dry-run; then shorten or leave out the largest sections in the source",
      },
      secretWays: (rest) =>
        `Import the other ${rest} without them: add --skip-flagged (or --secret-policy warn to be asked about each in the approval).`,
      proposalsFooter: 'Approve: dsh-memento proposals approve <id>; dismiss: dsh-memento proposals dismiss <id>',
      doctorFooter: 'Apply a fix: dsh-memento doctor --fix <id> (asks for approval showing the whole change).',
      roomFooter:
        'Apply one: dsh-memento remove <substring> or dsh-memento consolidate <substrings> --text <text>; dsh-memento doctor lists fixes by id.',
      adaptersFooter: 'Import: dsh-memento import --adapter <id> <path>; export: dsh-memento export --adapter <id> [--out <path>]',
      auditFooter: "Undo a change: dsh-memento undo <seq>; an entry's versions: dsh-memento history '#<seq>'",
      sessionsFooter: 'What one was given: dsh-memento sessions --session <id>',
    },
  },
  // The dsh-memento CLI's own texts (English only: a terminal tool).
  cli: {
    help: `Usage: dsh-memento <command> [options]

Read commands (add --json for machine output):
  list [--track T] [--scope S] [--limit N]     every entry (all agents and workspaces), oldest first
  query <text> [--track T] [--scope S] [--limit N]
  budgets                                      used/limit per track x scope
  audit [--limit N] [--verify]                 newest first, each row with its seq and text
  history <substring|id|#seq> [--track T] [--scope S]
                                    every version of one entry, oldest first, with the row that made
                                    each and how it ended (a substring: as replace finds it here;
                                    quote '#seq' in a shell)
  sessions [--session ID] [--limit N]          the recorded sessions; with an id, the exact
                                    snapshot that session was given
  proposals                                    pending proposals
  doctor [--stale-days N] [--workspace DIR] [--agent A]
                                    duplicates, updates of one fact, stale entries, missing files,
                                    credentials, oversized entries, each with its fix (whole store
                                    unless --workspace/--agent name a session's visible set)
  adapters                                     registered import/export adapters
  export [--out FILE | --out-dir DIR] [--part-size N] [--force]   one document holds at most 1000
                                    entries; a larger store needs --out-dir: parts + memory-export.manifest.json
  export --adapter ID [--track T] [--scope S] [--out FILE|DIR] [--force]
                                    (files are created 0600, never over an existing file or link;
                                     --force replaces it, a link itself and never what it points to)

Write commands (each asks for approval showing the full change, unless --yes):
  add [--track user|agent] [--scope user-global|workspace] [--tags a,b] <text>
  remove [--track T] [--scope S] <substring>
  replace [--track T] [--scope S] [--tags a,b] <substring> <new text>     (or --text <new text>)
  consolidate [--track T] [--scope S] <sub1> [<sub2> ...] --text <new text>   (or: sub1 sub2 => new text)
  import <file|dir|-|inline JSON> [more files] [--skip-existing] [--dry-run] [--skip-flagged]
  import --adapter ID <file|dir> [--track T] [--scope S] [--dry-run] [--follow-imports] [--skip-flagged]
                                    (--follow-imports: read CLAUDE.md @imports, 5 hops deep;
                                     --skip-flagged: leave out, and list, entries that look like credentials)
  undo [<seq>]                      undo the change audit row seq belongs to (default: the newest
                                    one this workspace and agent see); asks showing the whole
                                    inverse change, refused if an entry changed since
  proposals approve <id> | proposals dismiss <id>
  doctor --fix <id>                 apply one finding's fix (a consolidate or remove)
  digest <file...> | digest --sessions [--max-sessions N]   (records proposals, never entries; --dry-run)
  mirror --to claude-md --file <CLAUDE.md|AGENTS.md> [--track T] [--scope S]
  mirror --to memory-standard --out <dir> [--track T] [--scope S] [--force]

MCP server (stdio; every write is asked through the client's elicitation dialog):
  mcp [--db PATH] [--workspace DIR] [--agent NAME] [--write-policy ask|off]
                                    workspace: --workspace, else the client's first root, else the cwd;
                                    agent: --agent, else the shared layer; off refuses every write
  mcp --print-config claude-code|codex|cursor|dsh   the setup snippet for that client

Options:
  --db PATH          store file (default $DSH_HOME/dsh-memento/memory.db; $DSH_HOME defaults to ~/.dsh)
  --budgets JSON     layer limits for this run, e.g. '{"user":{"workspace":4000}}' (also $DSH_MEMENTO_BUDGETS;
                     default: the limits the plugin recorded in the store when it last opened it,
                     else 2000/2000 user, 4000/4000 agent)
  --secret-policy P  refuse (default) or warn: credential-looking text is refused, or shown as a warning
  --agent PRESET     act as this agent preset (default: the shared layer)
  --workspace DIR    workspace (cwd) for workspace-scope entries (default: the current directory)
  --yes, -y          approve writes without asking (audited as "allowed-once (via cli --yes, writePolicy ask)")
  --json             JSON output
  -h, --help         this help`,
    unknownCommand: (cmd) => `unknown command ${JSON.stringify(cmd)}`,
    unknownOption: (a) => `unknown option ${a}`,
    noValue: (name) => `--${name} takes no value`,
    needsValue: (name) => `--${name} needs a value`,
    badChoice: (name, choices, got) =>
      `--${name} must be ${choices.join(' or ')}${got === undefined ? '' : `, got ${JSON.stringify(got)}`}`,
    badLimit: (got) => `--limit must be a positive integer, got ${JSON.stringify(got)}`,
    badBudgets: `--budgets must be a JSON object like '{"user":{"userGlobal":2000,"workspace":2000}}'`,
    noArguments: (cmd, hint) => `${cmd} takes no positional arguments${hint ? ` (${hint})` : ''}`,
    stdinNeedsYes: 'import from stdin needs --yes (the terminal cannot both feed data and answer the approval)',
    cannotLoad: (file, msg) => `cannot load the dsh-memento provider (${file}): ${msg}`,
    noTerminal: 'no terminal to ask for approval on; pass --yes to approve this write non-interactively',
    approveHeader: 'Approve this memory write?',
    approvePrompt: 'Approve? [y/N] ',
    gateWarning: (action, w) => `warning (${action}): ${w}`,
    notEmpty: (dir) => `${dir} is not empty; pass --force to write into it`,
    needsOutDir: (id, names) => `adapter ${id} writes several files (${names.join(', ')}): pass --out <dir>`,
    exportedFiles: (n, id, dir, k) => `exported ${n} entries via ${id} into ${dir} (${k} files)`,
    exportedFile: (n, id, file) => `exported ${n} entries via ${id} to ${file}`,
    exportedParts: (n, k, dir) =>
      `exported ${n} entries into ${dir}${k > 1 ? ` as ${k} parts and a manifest (each part imports on its own; import the directory to restore all in one approval)` : ''}`,
    exported: (n, file) => `exported ${n} entries to ${file}`,
    importAsking: (n, ms) => `import: ${n} entries validated; asking for one approval (${ms} ms)`,
    importWritten: (n, ms) => `import: ${n} entries written in one transaction (${ms} ms)`,
    digestUsage: 'digest needs files or --sessions: dsh-memento digest <file...> | digest --sessions',
    digestDry: (files, n, skipped) => `Digest of ${files} file(s): ${n} new candidate(s), ${skipped} skipped (dry run; nothing recorded).`,
    digested: (files, n, before, skipped) =>
      `Digest of ${files} file(s): ${n} proposal(s) recorded, ${before} proposed before, ${skipped} skipped. Nothing was written to memory; review with: dsh-memento proposals`,
    digestSkipped: (reason, text) => `  skipped (${reason}): ${text}`,
    mirrorNeeds: (what) => `mirror ${what}`,
    mirroredFile: (n, file, changed) => `Mirrored ${n} entries into the dsh-memento block of ${file}${changed ? '' : ' (unchanged)'}.`,
    mirroredRoot: (n, r) =>
      `Mirrored ${n} entries into ${r.dir} (${r.written.length} files written, ${r.removed.length} stale notes removed; index ${r.usage.lines}/${r.usage.lineCap} lines, ${r.usage.bytes}/${r.usage.byteCap} bytes).`,
  },
  // `dsh-memento mcp` (English only, like the CLI): what an MCP client and its user read.
  mcp: {
    toolNote:
      'Over MCP: every write is shown to the user in full in an approval dialog (elicitation) and lands only if they accept. The snapshot is the resource memento://snapshot.',
    recallDescription:
      'Look up memory entries matching a text (bounded, approval-gated memory shared with dsh and the other agents the user runs). Over MCP this searches memory only; session history is searched inside dsh.',
    snapshotName: 'Memory snapshot',
    snapshotDescription:
      'The memory a dsh session in this workspace and agent starts with: the visible entries under per-layer headers with their budget use, then any pending proposals.',
    budgetsName: 'Memory budgets',
    budgetsDescription: 'Used and limit characters of each track x layer for this workspace (JSON).',
    advice: {
      unavailable:
        'This MCP client cannot show an approval dialog (it offers no elicitation), so nothing was written. To write, run `dsh-memento add [--track user|agent] [--scope user-global|workspace] "<text>"` in a terminal (it shows the change and asks), or use the memory tool inside dsh.',
      off: 'This memory server was started with --write-policy off: it refuses every write. Memory can be read here; write it with `dsh-memento add …` in a terminal or inside dsh.',
      rejected: 'The user declined this write in the approval dialog. Do not retry it unless they ask for it.',
      cancelled: 'The approval dialog was cancelled or closed before an answer, so nothing was written.',
    },
    failure: {
      noElicitation: 'the client offers no elicitation',
      aborted: 'the request was cancelled while the approval was pending',
      closed: 'the client disconnected while the approval was pending',
      timeout: (ms) => `no answer within ${Math.round(ms / 1000)} s`,
      failed: (m) => `elicitation failed: ${m}`,
    },
    // `mcp --print-config <client>`: where its snippet goes (stderr; the snippet itself is stdout).
    where: {
      'claude-code': 'Claude Code: run this once (add --scope user before memento to use it in every project)',
      codex: 'Codex: add this to ~/.codex/config.toml',
      cursor: 'Cursor: merge this into .cursor/mcp.json in a project, or ~/.cursor/mcp.json for every project',
      dsh: "dsh: add this to $DSH_HOME/profiles/<profile>/cordis.patch.yml (a row of dsh's MCP client, @deepseek-ai/dsh-mcp-client)",
    },
    codeLine: (code, advice) => `[${code}]${advice ? ` ${advice}` : ''}`,
    unknownTool: (name) => `unknown tool ${JSON.stringify(name)}; the tools are memory and memory_recall`,
    unknownResource: (uri) => `unknown resource ${JSON.stringify(uri)}; the resources are memento://snapshot and memento://budgets`,
    noArguments: 'mcp takes no positional arguments',
    badClient: (got) =>
      `--print-config needs a client: claude-code, codex, cursor or dsh${got === undefined ? '' : `, got ${JSON.stringify(got)}`}`,
  },
}

const zh = {
  ...en,
  snapshotHeader: '[dsh-memento：冻结记忆快照——会话启动时捕获；本会话内的记忆变更不更新此块。要修改记忆，请使用 memory 工具。]',
  groups: {
    'user/user-global': '用户画像（全局偏好、沟通风格、雷区）',
    'user/workspace': '本工作区的用户偏好',
    'agent/user-global': '环境事实与约定（跨工作区）',
    'agent/workspace': '本工作区的事实、约定与教训',
  },
  proposalsHeader: '待审批记忆提案：未经批准，不是记忆，因此不在此显示；由用户用 /memory proposals 或记忆面板审阅',
  usageSuffix: '已用字符',
  toolDescription: [
    '读写有界、分层、需审批的记忆（跨会话保留）。',
    '轨道：user = 关于用户的事实（偏好、纠正、沟通风格）；agent = 环境事实、项目约定、经验教训。',
    '层：user-global 在所有工作区生效；workspace 只对当前工作目录生效。',
    '每个轨道×层都有硬性字符预算（见快照标题）。超预算的写入会返回结构化错误（已用/上限）：先合并或删除条目再重试，绝不截断。',
    '应保存：用户偏好与纠正、环境事实与约定、从错误中得到的教训、已完成工作的摘要、用户要求记住的任何内容。',
    '应跳过：琐碎或易于重新推导的事实、百科知识、大段转储与日志、一次性路径、工作区文件里已有的内容。',
    '每次写入都需要用户批准并被审计；读取免费。',
    'replace 和 remove 以一个条目的唯一（不区分大小写）子串（match）定位。consolidate 用一次批准、一次原子写入把 1..20 个条目（matches）合并为一条新文本。',
    '系统提示中的记忆快照在本会话内冻结：写入在下一个会话生效，读取当前状态请用 action=query。',
    'history（match）按从旧到新列出一个条目的各个版本，每个版本附有产生它的变更序号（seq）。undo（seq）撤回那一整次变更（consolidate 或导入整体撤回），与任何写入一样需要用户批准；若条目此后又有改动则被拒绝。用于撤回你自己出错的写入，或在用户要求时使用。',
  ].join('\n'),
  param: {
    action: 'add | replace | remove | consolidate | query | history | undo',
    track: 'user | agent（写入默认 user）',
    scope: 'user-global | workspace（写入默认 workspace）',
    text: '新文本（add、replace、consolidate）或子串过滤（query）',
    match: '目标条目的唯一子串，不区分大小写（replace、remove、history）',
    matches: 'consolidate：1..20 个唯一子串，每个对应一个要合并的条目',
    limit: 'query 每页条数（默认 20，最多 1000）',
    seq: 'undo：要撤销的变更序号（history 列出每个版本的序号）',
    tags: '可选短标签（最多 16 个，每个最多 32 字符）',
  },
  recallDescription: [
    '两段式回忆：(1) 与查询匹配的有界记忆条目；(2) 最近会话历史中的匹配（通过 session-query 服务，若配置中有）。',
    '当单独查询记忆有歧义、而过去的对话可能有答案时使用；普通查找请用 memory action=query。',
    '记忆匹配不区分大小写；历史为不区分大小写的文本扫描。',
  ].join('\n'),
  recallParam: { query: '要查找的文本', memoryLimit: '最多返回的记忆条目（默认 10）', historyLimit: '最多扫描的会话数' },
  render: {
    failed: (a, m) => `memory ${a} 失败：${m}`,
    current: (text) => `它现在的内容：${text}`,
    noMatch: 'memory 查询：没有匹配的条目',
    matches: (n, total, truncated) => `memory 查询：${n} 条匹配${truncated ? `（共 ${total} 条；请细化过滤条件）` : ''}`,
    changed: { add: '已添加', replace: '已替换', remove: '已删除' },
    written: (verb, t, s, text) => `记忆条目${verb}（${t}/${s}）：${text}`,
    consolidated: (t, s, k, text) => `记忆条目已合并（${t}/${s}）：删除 ${k} 条 → ${text}`,
    budget: (u, l) => `预算：已用 ${u}/${l} 字符`,
    similar: similarZh,
    room: '腾出空间的办法（每项是一次 memory 调用，与任何写入一样需要批准）：',
    roomConsolidate: (matches, text) => `consolidate matches=[${matches}] text=${text}`,
    roomRemove: (match) => `remove match=${match}`,
    frees: (n) => `释放 ${n} 字符`,
    recallNone: '记忆：没有匹配的条目',
    recallMatches: (n, total, truncated) => `记忆：${n} 条匹配${truncated ? `（共 ${total} 条）` : ''}`,
    historyUnavailable: '历史：本配置中没有 session-query 服务',
    historyFailed: (e) => `历史：session-query 失败（${e}）`,
    historyNone: '历史：没有匹配的会话',
    historySession: (id, m) => `- 会话 ${id}：${m} 个事件匹配`,
    versionsHead: (id, t, s, n) => `记忆条目 ${id}（${t}/${s}）的历史：${n} 个版本，从旧到新`,
    versionsPruned: '（审计保留期已清除其较早的记录：历史从这里开始）',
    versionLine: (v, seq, action, reverts, text) => `- v${v}（变更 #${seq}，${action}${reverts ? `，撤销 #${reverts}` : ''}）：${text}`,
    versionsEnded: (seq, into) => (into ? `已由变更 #${seq} 合并进条目 ${into}` : `已由变更 #${seq} 删除`),
    versionsLive: (v) => `当前在记忆中的是 v${v}`,
    undone: (seq, n) => `记忆变更 #${seq} 已撤销（${n} 条）：`,
    undoChange: { remove: '删除', restore: '恢复', replace: '改回' },
  },
  panel: {
    open: '🧠 记忆',
    title: '记忆',
    refresh: '刷新',
    close: '关闭',
    search: '搜索全部条目…',
    allLayers: '全部层',
    allWorkspaces: '全部工作区',
    thisWorkspace: '当前工作区',
    globalOnly: '仅全局',
    allAgents: '全部代理',
    sharedAgent: '共享（无代理）',
    layers: {
      'user/user-global': '用户 · 全局',
      'user/workspace': '用户 · 工作区',
      'agent/user-global': '代理 · 全局',
      'agent/workspace': '代理 · 工作区',
    },
    budgetsFor: '{ws} 的预算',
    budgetsGlobal: '预算（打开会话后显示其工作区）',
    noWorkspace: '（无工作区）',
    tabs: { entries: '条目', proposals: '提案', audit: '审计', health: '健康', sessions: '会话' },
    history: '历史',
    historyTitle: '此条目的历史',
    version: '版本 {v}',
    change: '变更 #{seq}',
    undoes: '撤销变更 #{seq}',
    historyPruned: '审计保留期已清除其较早的记录：历史从这里开始。',
    historyRemoved: '已由变更 #{seq} 删除 · {time}',
    historyMerged: '已由变更 #{seq} 合并进另一条目 · {time}',
    historyLive: '当前在记忆中的是版本 {v}。',
    undo: '撤销',
    reverts: '撤销变更 #{seq}：每个条目都恢复到原来的样子。',
    restored: '将恢复（全文）',
    sessionsNone: '本工作区和代理还没有记录的会话。',
    given: '会话 {id} 得到的内容 · {time} · {n} 字符',
    next: '此处下一个会话将得到的内容 · {n} 字符',
    nextNeedSession: '请先打开一个会话，才能看到其工作区中下一个会话将得到的内容。',
    sessionsNote: '只在一侧出现的行会被标出：在原会话一侧划线，在下一个会话一侧高亮。',
    similar: { duplicate: '很可能重复于', update: '很可能是其更新：', related: '相似于' },
    similarAdvice: '无论如何都会按所示写入；若只想保留一条，请取消并改为编辑或合并已存条目。',
    health: {
      none: '没有需要处理的问题：没有重复、同一事实的多次更新、久未使用的条目、已不存在的文件、凭据或过长条目。',
      checked: '{checked} 条记忆中发现 {n} 个问题（久未使用：{days} 天未被回忆）。',
      kind: {
        duplicates: '重复',
        updates: '同一事实的更新',
        stale: '久未使用',
        'missing-path': '文件已不存在',
        secret: '凭据',
        oversized: '过长',
      },
      fix: { consolidate: '合并…', remove: '删除…' },
      frees: '释放 {n} 字符',
      more: '……另有 {n} 条',
    },
    total: '共 {n} 条',
    totalOne: '共 1 条',
    showing: '显示 {shown} / {total} 条',
    more: '加载更多',
    capped: '匹配超过 1000 条：请缩小搜索范围查看其余条目。',
    none: '没有条目。',
    noMatch: '没有匹配的条目。',
    showMore: '展开',
    showLess: '收起',
    agent: '代理 {key}',
    shared: '共享',
    sourceIs: '来源 {source}',
    tagsAre: '标签：{tags}',
    noTags: '无标签',
    tagsChange: '标签变更',
    recalled: '已召回 {n} 次',
    edit: '编辑',
    remove: '删除',
    add: '添加条目',
    save: '检查更改',
    cancel: '取消',
    select: '选中以合并',
    selected: '已选 {n} 条',
    consolidate: '合并…',
    clearSelection: '清除',
    consolidateSameLayer: '只有同一层、同一工作区的条目可以合并。',
    text: '文本',
    tags: '标签（逗号分隔）',
    layer: '层',
    confirmTitle: {
      add: '添加此条目？',
      replace: '替换此条目？',
      remove: '删除此条目？',
      consolidate: '合并这些条目？',
      revert: '撤销这次变更？',
      approved: '批准此提案？',
      dismissed: '驳回此提案？',
    },
    from: '原文',
    to: '改为',
    removedText: '将删除（全文）',
    newText: '新条目',
    where: '层',
    consent: '确认即表示你本人批准这一更改，审计日志记为“(via panel, …)”。writePolicy 为 off 或本会话审批策略为 never 时会被拒绝。',
    confirm: '确认',
    done: '完成。',
    approve: '批准',
    dismiss: '驳回',
    noProposals: '没有待审批提案。',
    noAudit: '没有审计记录。',
    failed: '记忆面板加载失败：',
    needSession: '请先打开一个会话再编辑记忆：面板以本页所示会话的名义写入。',
    advice: {
      INVALID_INPUT: '请按提示修改文本后重试。',
      WRITE_REQUIRES_AGENT: '请先在本页打开一个会话：面板的写入属于你打开的会话。',
      BUDGET_EXCEEDED: '该层已满：请先删除或合并条目，或在插件配置中提高预算。',
      ENTRY_NOT_FOUND: '面板显示之后该条目已改变或不存在：请刷新后重新检查。',
      changed: '之后的一次变更改动了该条目：请刷新后重新检查（要撤销一次变更，请先撤销之后的那次）。',
      AMBIGUOUS_MATCH: '该层另有条目包含这段完整文本：请先修改或删除那条。',
      WRITE_DENIED: '记忆写入被策略拒绝（writePolicy 为 off，或本会话审批策略为 never）。修改策略后才能写入。',
      PROPOSAL_NOT_FOUND: '该提案已处理或不存在：请刷新。',
      STORE_CORRUPT: '存储无法读取：请运行 `dsh-memento audit verify` 并检查文件。',
      STORE_UNSUPPORTED_VERSION: '存储由更新版本的 dsh-memento 写入：请升级插件。',
      pageToken: '请重新加载页面：其写入令牌已失效。',
      HTTP: '请确认 dsh（dsh web 或运行它的桌面应用）仍在运行，然后刷新。',
    },
  },
  cmd: {
    ...en.cmd,
    empty: '记忆为空。',
    entries: (n) => `记忆条目（${n} 条）：`,
    entriesPartial: (total, shown) => `记忆条目（共 ${total} 条，显示前 ${shown} 条）：`,
    noMatch: (q) => `没有条目包含 ${JSON.stringify(q)}。`,
    matches: (n) => `命中（${n} 条）：`,
    matchesPartial: (total, shown) => `命中（共 ${total} 条，显示前 ${shown} 条）：`,
    tags: (tags) => `  （标签：${tags.join('、')}）`,
    budgets: '预算用量：',
    auditEmpty: '审计为空。',
    audit: (n) => `最近审计（${n} 行）：`,
    auditVerified: (n, head) => `审计链校验通过：${n} 行，链头 ${head ?? '（空）'}`,
    auditBroken: (seq, reason, n) => `审计链在第 ${seq} 行断裂：${reason}（已检查 ${n} 行）`,
    auditRecord: (table, id, reason) => `- ${table} ${id}：${reason}`,
    auditLayer: (track, scope, ws, recorded, actual) =>
      `- 层 ${track}/${scope}${ws ? ` @${ws}` : ''}：记录用量 ${recorded}，条目实有 ${actual}`,
    auditStored: (n) => `存储与其审计账本不符（${n} 处）：`,
    historyHead: (id, place, n) => `条目 ${id} [${place}] 的历史，共 ${n} 个版本，从旧到新：`,
    historyPruned: '审计保留期已清除其较早的记录：历史从这里开始。',
    historyNone: '没有历史：存储为空。',
    undoes: (seq) => `撤销 #${seq}`,
    historyEnded: (seq, when, into) => (into ? `已由 #${seq} 合并进条目 ${into}（${when}）。` : `已由 #${seq} 删除（${when}）。`),
    historyLive: (v) => `当前在记忆中的是 v${v}。`,
    undone: (seq, n) => `已撤销变更 #${seq}（${n} 条）：`,
    undoChange: { remove: '删除', restore: '恢复', replace: '改回' },
    nothingToUndo: '没有可撤销的变更：本工作区和代理可见的变更都无法撤销。',
    noSessions: '没有记录的会话。',
    sessions: (n) => `已记录的会话（${n} 个，从新到旧）：`,
    sessionKeys: (ws, agent) => `${ws ? `@${ws}` : '（无工作区）'}${agent ? ` #${agent}` : ''}`,
    sessionKeysUnknown: '（未记录键）',
    chars: (n) => `${n} 字符`,
    session: (id, when, keys, n) => `会话 ${id}（${when}，${keys}）得到的正是以下内容（${n} 字符）：`,
    noSession: (id) => `没有记录会话 ${JSON.stringify(id)}。`,
    usage: (u, l) => `该层用量：${u}/${l}`,
    added: (t, s, text) => `已添加（${t}/${s}）：${text}`,
    removed: (t, s, text) => `已删除（${t}/${s}）：${text}`,
    replaced: (t, s, before, text) => `已替换（${t}/${s}）：${before}\n  -> ${text}`,
    consolidated: (t, s, k, text) => `已合并（${t}/${s}）：删除 ${k} 条，新增 1 条。\n新条目：${text}`,
    noProposals: '没有待审批的记忆提案。',
    proposals: (n) => `待审批提案（${n} 条）：`,
    approved: (t, s, text) => `提案已批准并写入记忆（${t}/${s}）：${text}`,
    dismissed: (id) => `已驳回提案 ${id}。`,
    noAdapters: '没有已注册的记忆适配器。',
    adapters: (n) => `记忆适配器（${n} 个）：`,
    adapterFormats: (i, e) => `导入：${i}；导出：${e}`,
    from: { document: '从导出文档', parts: (n) => `从 ${n} 个分片`, adapter: (id) => `通过适配器 ${id} ` },
    imported: (n, from) => `已${from}导入 ${n} 条记忆（一次批准，一个事务；已检查预算）。`,
    skipped: (n) => `跳过 ${n} 条已存在的条目。`,
    importNote: '条目获得新的 id 和时间戳；标签、来源和键保留。',
    wouldImport: (n, from) => `将${from}导入 ${n} 条记忆（试运行；未写入任何内容）：`,
    layerSize: (layer, chars, n) => `  ${layer}：${n} 条，共 ${chars} 字符`,
    at: (file, line) => (line ? `${file} 第 ${line} 行` : file),
    lines: (file, a, b) => `${file} ${a === b ? `第 ${a} 行` : `第 ${a}-${b} 行`}`,
    entryNumber: (i) => `第 ${i} 条`,
    budget: {
      head: (layer, need, free, limit, over) =>
        `import：本次导入需要在 ${layer} 中占用 ${need} 字符，该层上限 ${limit}，剩余 ${free}：超出 ${over} 字符。未写入任何内容。`,
      sections: '最大的章节：',
      section: (name, where, chars, n, whole) =>
        `  - ${name}${where ? `（${where}）` : ''}：${n} 条，共 ${chars} 字符${whole ? '，超过该层的全部预算' : ''}`,
      noSection: '（无标题）',
      ways: '可以这样做：',
    },
    secret: {
      head: (k, n) => `import：${n} 条中有 ${k} 条看起来包含凭据；记忆会注入之后的每个提示，因此未写入任何内容：`,
      entry: (where, section, kind, field, excerpt) =>
        `  - ${where}${section ? `（${section}）` : ''}：${kind}${field === 'text' ? `："${excerpt}"` : `（在 ${field} 中）`}`,
      leftOut: (k) => `已略过 ${k} 条看起来包含凭据的条目：`,
      leftOutShort: (k) => `已略过 ${k} 条疑似凭据的条目。`,
    },
    similar: similarZh,
    doctor: {
      healthy: (n) => `记忆健康检查：${n} 条记忆中没有需要处理的问题。`,
      head: (k, n) => `记忆健康检查：${n} 条记忆中发现 ${k} 个问题：`,
      kind: {
        duplicates: '重复',
        updates: '同一事实的更新',
        stale: '久未使用',
        'missing-path': '文件已不存在',
        secret: '凭据',
        oversized: '过长',
      },
      fix: '修复',
      consolidate: (k, text) => `把这 ${k} 条合并为 ${text}`,
      remove: (text) => `删除 ${text}`,
      frees: (n) => `释放 ${n} 字符`,
      fixed: (id, kind) => `已修复 ${id}（${kind}）：`,
      noFix: (id) => `没有 id 为 ${JSON.stringify(id)} 且可修复的问题：请重新列出（存储可能已变化）`,
      ambiguous: (id, n) => `有 ${n} 个问题的 id 以 ${JSON.stringify(id)} 开头：请给出更长的 id`,
      room: '腾出空间的办法（每项是一次写入，与任何写入一样需要批准）：',
    },
    warning: (w) => `警告：${w.line ? `第 ${w.line} 行：` : ''}${w.message}`,
    unknown: (verb, usage) => `未知子命令 "${verb}"。${usage}`,
    failed: (msg) => `memory 命令失败：${msg}`,
    usageLine: (need, synopsis) => `${need}：${synopsis}`,
    need: {
      doctor: 'doctor 除 fix <id> 外不带参数',
      query: 'query 需要一个词',
      add: 'add 需要文本',
      remove: 'remove 需要唯一子串',
      replace: 'replace 需要唯一子串和新文本',
      consolidate: 'consolidate 用法',
      proposals: 'proposals 用法',
      export: 'export 不带参数',
      import: 'import 从导出文档恢复条目',
      importAdapter: 'import --adapter 只接受一个文件或目录',
      exportParts: '存储中的条目超过 1000 条，超出单个导出文档的上限；请把它们作为分片连同清单写入一个目录',
      consolidateCount: 'consolidate 需要 1..20 个唯一子串（=> 左侧）',
      consolidateText: 'consolidate 需要新文本（=> 右侧，或 --text）',
      history: 'history 需要一个条目：它的 id、指向它的审计行 #<seq>，或唯一子串',
      undo: 'undo 最多接受一个审计序号',
      sessions: 'sessions 最多接受一个会话 id',
    },
    '/memory': {
      ...en.cmd['/memory'],
      description:
        '查看/管理 dsh-memento 记忆：list | query <词> | add [--track=user|agent] [--scope=user-global|workspace] <文本> | replace <子串> => <新文本> | remove <子串> | consolidate <子串...> => <新文本> | history <子串|id|#序号> | undo [序号] | sessions [id] | proposals [approve|dismiss <id>] | doctor [fix <id>] | budgets | audit [verify] | adapters | export [--adapter=<id>] | import [--adapter=<id>] <路径>',
      usage:
        '用法：/memory list | query <词> | add <文本> | replace <子串> => <新文本> | remove <子串> | consolidate <子串...> => <新文本> | history <子串|id|#序号> | undo [序号] | sessions [id] | proposals [approve|dismiss <id>] | doctor [fix <id>] | budgets | audit [verify] | adapters | export [--adapter=<id>] | import [--adapter=<id>] <路径>',
      synopsis: {
        ...en.cmd['/memory'].synopsis,
        query: '/memory query <词>',
        add: '/memory add [--track=user|agent] [--scope=user-global|workspace] <文本>',
        remove: '/memory remove [--track=user|agent] [--scope=user-global|workspace] <子串>',
        replace: '/memory replace [--track=user|agent] [--scope=user-global|workspace] <子串> => <新文本>',
        consolidate: '/memory consolidate [--track=user|agent] [--scope=user-global|workspace] <子串1> [<子串2> ...] => <新文本>',
        history: '/memory history [--track=user|agent] [--scope=user-global|workspace] <子串> | /memory history <id|#序号>',
        undo: '/memory undo [<序号>]',
        sessions: '/memory sessions [<id>]',
        import:
          '/memory import [--dry-run] [--skip-flagged] <路径> | /memory import \'{"plugin":"dsh-memento",...}\' | /memory import --adapter=<id> [--track=T] [--scope=S] <路径|内联 JSON>',
        importAdapter: '/memory import --adapter=<id> <路径|内联 JSON>',
        exportParts: 'dsh-memento export --out-dir <目录>（在终端中运行；/memory import <目录> 一次批准恢复所有分片）',
      },
      budgetWays: {
        raise: (track, key, n) => `  - 在 dsh-memento 插件配置中把 budgets.${track}.${key} 提高到至少 ${n}，然后重新导入`,
        move: (room) =>
          `  - 导入到另一层：--track=user|agent --scope=user-global|workspace${room.length ? `（有空间的层：${room.join('、')} 字符）` : ''}`,
        dryRun: '  - 先查看每个条目和各层总量：/memory import --dry-run <路径>；然后缩短或略去源文件中最大的章节',
      },
      doctorFooter: '应用修复：/memory doctor fix <id>（显示完整改动；不改动其他内容）。',
      roomFooter: '应用其中一项：/memory remove <子串> 或 /memory consolidate <子串...> => <文本>；/memory doctor 按 id 列出修复。',
      secretWays: (rest) =>
        `不含这些条目导入其余 ${rest} 条：/memory import --skip-flagged <路径>（或在插件配置中把 secretPolicy 设为 warn，逐条在审批中确认）。`,
      proposalsFooter: '批准：/memory proposals approve <id>；驳回：/memory proposals dismiss <id>',
      adaptersFooter: '导入：/memory import --adapter=<id> <路径|内联 JSON>；导出：/memory export --adapter=<id>',
      auditFooter: '撤销一次变更：/memory undo <序号>；查看条目的各个版本：/memory history #<序号>',
      sessionsFooter: '查看某个会话得到的内容：/memory sessions <id>',
    },
  },
}

/** The string bundle for a language; anything but `zh` is English. */
export function strings(language) {
  return language === 'zh' ? zh : en
}
