// Model- and user-visible strings, en and zh. Error messages stay English (audit contract).
const en = {
  snapshotHeader: '[dsh-memento: frozen memory snapshot — captured at session start; memory changes during this session do not update this block. To change memory, use the memory tool.]',
  groups: {
    'user/user-global': 'User profile (global preferences, communication style, landmines)',
    'user/workspace': 'User preferences for this workspace',
    'agent/user-global': 'Environment facts and conventions (cross-workspace)',
    'agent/workspace': 'Workspace facts, conventions, and lessons',
  },
  proposalsHeader: 'Pending memory proposals (reviewed by the user; approve or dismiss via the /memory proposals command)',
  usageSuffix: 'chars used',

  toolDescription: [
    'Read and write your bounded, layered, approval-gated memory (it persists across sessions).',
    'Tracks: user = facts about the user (preferences, corrections, communication style); agent = environment facts, project conventions, lessons learned.',
    'Layers: user-global applies in every workspace; workspace applies only to the current working directory.',
    'Each track x layer has a hard character budget, shown in the snapshot header. A write over budget fails with a structured error (used/limit): consolidate or remove entries, then retry. Never truncate.',
    'SAVE: user preferences and corrections, environment facts and conventions, lessons from mistakes, summaries of completed work, anything the user asks you to remember.',
    'SKIP: trivial or easily re-derived facts, encyclopedia knowledge, large dumps and logs, one-off paths, content already in the workspace files.',
    'Every write needs the user\'s approval and is audited; reads are free.',
    'replace and remove target a UNIQUE case-insensitive substring of one entry (match). consolidate merges 1..20 entries (matches) into one new text with one approval and one atomic write.',
    'The memory snapshot in the system prompt is frozen for this session: writes take effect in the next session, use action=query to read current state.',
  ].join('\n'),
  param: {
    action: 'add | replace | remove | consolidate | query',
    track: 'user | agent (writes default to user)',
    scope: 'user-global | workspace (writes default to workspace)',
    text: 'New text (add, replace, consolidate) or substring filter (query)',
    match: 'Unique case-insensitive substring of the target entry (replace, remove)',
    matches: 'consolidate: 1..20 unique substrings, one per entry to merge',
    limit: 'query page size (default 20, max 1000)',
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
    matches: (n, total, truncated) => `memory query: ${n} match${n === 1 ? '' : 'es'}${truncated ? ` (of ${total} total; refine the filter for more)` : ''}`,
    changed: { add: 'added', replace: 'replaced', remove: 'removed' },
    written: (verb, t, s, text) => `memory entry ${verb} (${t}/${s}): ${text}`,
    consolidated: (t, s, k, text) => `memory entries consolidated (${t}/${s}): ${k} removed → ${text}`,
    budget: (u, l) => `budget: ${u}/${l} chars used`,
    recallNone: 'memory: no entries matched',
    recallMatches: (n, total, truncated) => `memory: ${n} match${n === 1 ? '' : 'es'}${truncated ? ` (of ${total})` : ''}`,
    historyUnavailable: 'history: session-query unavailable in this profile',
    historyFailed: (e) => `history: session-query failed (${e})`,
    historyNone: 'history: no matching sessions',
    historySession: (id, m) => `- session ${id}: ${m} event match${m === 1 ? '' : 'es'}`,
  },

  // The web panel (client/client.js), sent with /api/memento/entries.
  panel: { open: '🧠 Memory', title: 'dsh-memento memory', refresh: 'Refresh', close: 'Close', filter: 'Filter entries…', entries: 'Entries', budgets: 'Budgets', audit: 'Recent audit', proposals: 'Pending proposals', none: 'None.', truncated: 'Showing the first {n} of {total}.', agent: 'agent', failed: 'Could not load: ' },
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
      head: (layer, need, free, limit, over) => `import: this import needs ${need} chars in ${layer}, which has ${free} of its ${limit} free: ${over} chars over. Nothing was written.`,
      sections: 'Largest sections:',
      section: (name, where, chars, n, whole) => `  - ${name}${where ? ` (${where})` : ''}: ${chars} chars in ${n} ${n === 1 ? 'entry' : 'entries'}${whole ? ", more than the layer's whole budget" : ''}`,
      noSection: '(no heading)',
      ways: 'Ways forward:',
    },
    secret: {
      head: (k, n) => `import: ${k} of ${n} entries look like they contain credentials; memory is injected into every future prompt, so nothing was written:`,
      entry: (where, section, kind, field, excerpt) => `  - ${where}${section ? ` (${section})` : ''}: ${kind}${field === 'text' ? `: "${excerpt}"` : ` in its ${field}`}`,
      leftOut: (k) => `left out ${k} ${k === 1 ? 'entry that looks' : 'entries that look'} like credentials:`,
      leftOutShort: (k) => ` Left out ${k} flagged as credentials.`,
    },
    warning: (w) => `warning: ${w.line ? `line ${w.line}: ` : ''}${w.message}`,
    unknown: (verb, usage) => `Unknown subcommand "${verb}". ${usage}`,
    memoryError: (code, msg) => `memory ${code}: ${msg}`,
    failed: (msg) => `memory command failed: ${msg}`,
    usageLine: (need, synopsis) => `${need}: ${synopsis}`,
    // What a mistyped command lacks; followed by the surface's synopsis of the verb where it has one.
    need: { query: 'query needs a word', add: 'add needs text', remove: 'remove needs a unique substring', replace: 'replace needs a unique substring and new text', consolidate: 'consolidate usage', proposals: 'proposals usage', export: 'export takes no arguments', import: 'import restores entries from an export document', importAdapter: 'import --adapter takes exactly one file or directory', exportParts: 'the store holds more than 1000 entries, the most one export document carries; write them into a directory as parts with a manifest', consolidateCount: 'consolidate needs 1..20 unique substrings (left of =>)', consolidateText: 'consolidate needs new text (right of =>, or --text)' },
    '/memory': {
      description: 'View/manage dsh-memento memory: list | query <word> | add [--track=user|agent] [--scope=user-global|workspace] <text> | replace <substring> => <new text> | remove <substring> | consolidate <substring...> => <new text> | proposals [approve|dismiss <id>] | budgets | audit [verify] | adapters | export [--adapter=<id>] | import [--adapter=<id>] <path>',
      hint: 'list | query | add | replace | remove | consolidate | proposals | budgets | audit | adapters | export | import',
      usage: 'Usage: /memory list | query <word> | add <text> | replace <substring> => <new text> | remove <substring> | consolidate <substring...> => <new text> | proposals [approve|dismiss <id>] | budgets | audit [verify] | adapters | export [--adapter=<id>] | import [--adapter=<id>] <path>',
      synopsis: {
        query: '/memory query <word>',
        add: '/memory add [--track=user|agent] [--scope=user-global|workspace] <text>',
        remove: '/memory remove [--track=user|agent] [--scope=user-global|workspace] <substring>',
        replace: '/memory replace [--track=user|agent] [--scope=user-global|workspace] <substring> => <new text>',
        consolidate: '/memory consolidate [--track=user|agent] [--scope=user-global|workspace] <substring1> [<substring2> ...] => <new text>',
        proposals: '/memory proposals | proposals approve <id> | proposals dismiss <id>',
        export: '/memory export [--adapter=<id>]',
        import: '/memory import [--dry-run] [--skip-flagged] <path> | /memory import \'{"plugin":"dsh-memento",...}\' | /memory import --adapter=<id> [--track=T] [--scope=S] <path|inline JSON>',
        importAdapter: '/memory import --adapter=<id> <path|inline JSON>',
        exportParts: 'dsh-memento export --out-dir <dir> (in a terminal; /memory import <dir> restores every part in one approval)',
      },
      budgetWays: {
        raise: (track, key, n) => `  - raise budgets.${track}.${key} to at least ${n} in the dsh-memento plugin config, then import again`,
        move: (room) => `  - import into another layer: --track=user|agent --scope=user-global|workspace${room.length ? ` (room for it: ${room.join(', ')} chars free)` : ''}`,
        dryRun: "  - see every entry and each layer's total first: /memory import --dry-run <path>; then shorten or leave out the largest sections in the source",
      },
      secretWays: (rest) => `Import the other ${rest} without them: /memory import --skip-flagged <path> (or set secretPolicy to warn in the plugin config to be asked about each).`,
      proposalsFooter: 'Approve: /memory proposals approve <id>; dismiss: /memory proposals dismiss <id>',
      adaptersFooter: 'Import: /memory import --adapter=<id> <path|inline JSON>; export: /memory export --adapter=<id>',
    },
    'dsh-memento': {
      synopsis: {
        query: 'dsh-memento query <text>',
        add: 'dsh-memento add [--track user|agent] [--scope user-global|workspace] [--tags a,b] <text>',
        remove: 'dsh-memento remove [--track T] [--scope S] <substring>',
        replace: 'dsh-memento replace [--track T] [--scope S] <substring> <new text>  (or --text <new text>)',
        consolidate: 'dsh-memento consolidate <sub1> [<sub2> ...] --text <new text>  (or: sub1 sub2 => new text)',
        proposals: 'dsh-memento proposals | proposals approve <id> | proposals dismiss <id>',
        export: 'dsh-memento export [--out FILE | --out-dir DIR] (no positional arguments)',
        import: 'dsh-memento import <file|dir|-|inline JSON> (or --adapter <id> <path>)',
        importAdapter: 'dsh-memento import --adapter <id> <file|dir>',
        exportParts: 'dsh-memento export --out-dir <dir> [--force]  (dsh-memento import <dir> restores every part in one approval)',
      },
      budgetWays: {
        raise: (track, key, n) => `  - raise the layer's budget: --budgets '{"${track}":{"${key}":${n}}}' (and the same budgets.${track}.${key} in the plugin config, or the plugin refuses writes to this layer)`,
        move: (room) => `  - import into another layer: --track user|agent --scope user-global|workspace${room.length ? ` (room for it: ${room.join(', ')} chars free)` : ''}`,
        dryRun: "  - see every entry and each layer's total first: --dry-run; then shorten or leave out the largest sections in the source",
      },
      secretWays: (rest) => `Import the other ${rest} without them: add --skip-flagged (or --secret-policy warn to be asked about each in the approval).`,
      proposalsFooter: 'Approve: dsh-memento proposals approve <id>; dismiss: dsh-memento proposals dismiss <id>',
      adaptersFooter: 'Import: dsh-memento import --adapter <id> <path>; export: dsh-memento export --adapter <id> [--out <path>]',
    },
  },
  // The dsh-memento CLI's own texts (English only: a terminal tool).
  cli: {
    help: `Usage: dsh-memento <command> [options]

Read commands (add --json for machine output):
  list [--track T] [--scope S] [--limit N]     every entry (all agents and workspaces), oldest first
  query <text> [--track T] [--scope S] [--limit N]
  budgets                                      used/limit per track x scope
  audit [--limit N] [--verify]                 newest first
  proposals                                    pending proposals
  adapters                                     registered import/export adapters
  export [--out FILE | --out-dir DIR] [--part-size N]   one document holds at most 1000 entries;
                                    a larger store needs --out-dir: parts + memory-export.manifest.json
  export --adapter ID [--track T] [--scope S] [--out FILE|DIR]

Write commands (each asks for approval showing the full change, unless --yes):
  add [--track user|agent] [--scope user-global|workspace] [--tags a,b] <text>
  remove [--track T] [--scope S] <substring>
  replace [--track T] [--scope S] [--tags a,b] <substring> <new text>     (or --text <new text>)
  consolidate [--track T] [--scope S] <sub1> [<sub2> ...] --text <new text>   (or: sub1 sub2 => new text)
  import <file|dir|-|inline JSON> [more files] [--skip-existing] [--dry-run] [--skip-flagged]
  import --adapter ID <file|dir> [--track T] [--scope S] [--dry-run] [--follow-imports] [--skip-flagged]
                                    (--follow-imports: read CLAUDE.md @imports, 5 hops deep;
                                     --skip-flagged: leave out, and list, entries that look like credentials)
  proposals approve <id> | proposals dismiss <id>
  digest <file...> | digest --sessions [--max-sessions N]   (records proposals, never entries; --dry-run)
  mirror --to claude-md --file <CLAUDE.md|AGENTS.md> [--track T] [--scope S]
  mirror --to memory-standard --out <dir> [--track T] [--scope S] [--force]

Options:
  --db PATH          store file (default $DSH_HOME/dsh-memento/memory.db; $DSH_HOME defaults to ~/.dsh)
  --budgets JSON     layer limits when your plugin config changed them, e.g. '{"user":{"workspace":4000}}'
                     (also $DSH_MEMENTO_BUDGETS; default 2000/2000 user, 4000/4000 agent)
  --secret-policy P  refuse (default) or warn: credential-looking text is refused, or shown as a warning
  --agent PRESET     act as this agent preset (default: the shared layer)
  --workspace DIR    workspace (cwd) for workspace-scope entries (default: the current directory)
  --yes, -y          approve writes without asking (audited as "allowed-once (via cli --yes)")
  --json             JSON output
  -h, --help         this help`,
    unknownCommand: (cmd) => `unknown command ${JSON.stringify(cmd)}`,
    unknownOption: (a) => `unknown option ${a}`,
    noValue: (name) => `--${name} takes no value`,
    needsValue: (name) => `--${name} needs a value`,
    badChoice: (name, choices, got) => `--${name} must be ${choices.join(' or ')}${got === undefined ? '' : `, got ${JSON.stringify(got)}`}`,
    badLimit: (got) => `--limit must be a positive integer, got ${JSON.stringify(got)}`,
    badBudgets: `--budgets must be a JSON object like '{"user":{"userGlobal":2000,"workspace":2000}}'`,
    noArguments: (cmd, hint) => `${cmd} takes no positional arguments${hint ? ` (${hint})` : ''}`,
    stdinNeedsYes: 'import from stdin needs --yes (the terminal cannot both feed data and answer the approval)',
    cannotLoad: (file, msg) => `cannot load the dsh-memento provider (${file}): ${msg}`,
    noTerminal: 'no terminal to ask for approval on; pass --yes to approve this write non-interactively',
    approveHeader: (p) => `\nApprove memory write: ${p.action} (${p.track === 'batch' ? `batch of ${p.count} entries` : `${p.track}/${p.scope}`})${p.source ? ` source ${p.source}` : ''}`,
    approvePrompt: 'Approve? [y/N] ',
    gateWarning: (action, w) => `warning (${action}): ${w}`,
    notEmpty: (dir) => `${dir} is not empty; pass --force to write into it`,
    needsOutDir: (id, names) => `adapter ${id} writes several files (${names.join(', ')}): pass --out <dir>`,
    exportedFiles: (n, id, dir, k) => `exported ${n} entries via ${id} into ${dir} (${k} files)`,
    exportedFile: (n, id, file) => `exported ${n} entries via ${id} to ${file}`,
    exportedParts: (n, k, dir) => `exported ${n} entries into ${dir}${k > 1 ? ` as ${k} parts and a manifest (each part imports on its own; import the directory to restore all in one approval)` : ''}`,
    exported: (n, file) => `exported ${n} entries to ${file}`,
    importAsking: (n, ms) => `import: ${n} entries validated; asking for one approval (${ms} ms)`,
    importWritten: (n, ms) => `import: ${n} entries written in one transaction (${ms} ms)`,
    digestUsage: 'digest needs files or --sessions: dsh-memento digest <file...> | digest --sessions',
    digestDry: (files, n, skipped) => `Digest of ${files} file(s): ${n} new candidate(s), ${skipped} skipped (dry run; nothing recorded).`,
    digested: (files, n, before, skipped) => `Digest of ${files} file(s): ${n} proposal(s) recorded, ${before} proposed before, ${skipped} skipped. Nothing was written to memory; review with: dsh-memento proposals`,
    digestSkipped: (reason, text) => `  skipped (${reason}): ${text}`,
    mirrorNeeds: (what) => `mirror ${what}`,
    mirroredFile: (n, file, changed) => `Mirrored ${n} entries into the dsh-memento block of ${file}${changed ? '' : ' (unchanged)'}.`,
    mirroredRoot: (n, r) => `Mirrored ${n} entries into ${r.dir} (${r.written.length} files written, ${r.removed.length} stale notes removed; index ${r.usage.lines}/${r.usage.lineCap} lines, ${r.usage.bytes}/${r.usage.byteCap} bytes).`,
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
  proposalsHeader: '待审批记忆提案（由用户裁决；用 /memory proposals 命令 approve 或 dismiss）',
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
  ].join('\n'),
  param: {
    action: 'add | replace | remove | consolidate | query',
    track: 'user | agent（写入默认 user）',
    scope: 'user-global | workspace（写入默认 workspace）',
    text: '新文本（add、replace、consolidate）或子串过滤（query）',
    match: '目标条目的唯一子串，不区分大小写（replace、remove）',
    matches: 'consolidate：1..20 个唯一子串，每个对应一个要合并的条目',
    limit: 'query 每页条数（默认 20，最多 1000）',
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
    recallNone: '记忆：没有匹配的条目',
    recallMatches: (n, total, truncated) => `记忆：${n} 条匹配${truncated ? `（共 ${total} 条）` : ''}`,
    historyUnavailable: '历史：本配置中没有 session-query 服务',
    historyFailed: (e) => `历史：session-query 失败（${e}）`,
    historyNone: '历史：没有匹配的会话',
    historySession: (id, m) => `- 会话 ${id}：${m} 个事件匹配`,
  },
  panel: { open: '🧠 记忆', title: 'dsh-memento 记忆', refresh: '刷新', close: '关闭', filter: '过滤条目…', entries: '条目', budgets: '预算', audit: '最近审计', proposals: '待审批提案', none: '无。', truncated: '显示 {total} 条中的前 {n} 条。', agent: '代理', failed: '加载失败：' },
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
      head: (layer, need, free, limit, over) => `import：本次导入需要在 ${layer} 中占用 ${need} 字符，该层上限 ${limit}，剩余 ${free}：超出 ${over} 字符。未写入任何内容。`,
      sections: '最大的章节：',
      section: (name, where, chars, n, whole) => `  - ${name}${where ? `（${where}）` : ''}：${n} 条，共 ${chars} 字符${whole ? '，超过该层的全部预算' : ''}`,
      noSection: '（无标题）',
      ways: '可以这样做：',
    },
    secret: {
      head: (k, n) => `import：${n} 条中有 ${k} 条看起来包含凭据；记忆会注入之后的每个提示，因此未写入任何内容：`,
      entry: (where, section, kind, field, excerpt) => `  - ${where}${section ? `（${section}）` : ''}：${kind}${field === 'text' ? `："${excerpt}"` : `（在 ${field} 中）`}`,
      leftOut: (k) => `已略过 ${k} 条看起来包含凭据的条目：`,
      leftOutShort: (k) => `已略过 ${k} 条疑似凭据的条目。`,
    },
    warning: (w) => `警告：${w.line ? `第 ${w.line} 行：` : ''}${w.message}`,
    unknown: (verb, usage) => `未知子命令 "${verb}"。${usage}`,
    failed: (msg) => `memory 命令失败：${msg}`,
    usageLine: (need, synopsis) => `${need}：${synopsis}`,
    need: { query: 'query 需要一个词', add: 'add 需要文本', remove: 'remove 需要唯一子串', replace: 'replace 需要唯一子串和新文本', consolidate: 'consolidate 用法', proposals: 'proposals 用法', export: 'export 不带参数', import: 'import 从导出文档恢复条目', importAdapter: 'import --adapter 只接受一个文件或目录', exportParts: '存储中的条目超过 1000 条，超出单个导出文档的上限；请把它们作为分片连同清单写入一个目录', consolidateCount: 'consolidate 需要 1..20 个唯一子串（=> 左侧）', consolidateText: 'consolidate 需要新文本（=> 右侧，或 --text）' },
    '/memory': {
      ...en.cmd['/memory'],
      description: '查看/管理 dsh-memento 记忆：list | query <词> | add [--track=user|agent] [--scope=user-global|workspace] <文本> | replace <子串> => <新文本> | remove <子串> | consolidate <子串...> => <新文本> | proposals [approve|dismiss <id>] | budgets | audit [verify] | adapters | export [--adapter=<id>] | import [--adapter=<id>] <路径>',
      usage: '用法：/memory list | query <词> | add <文本> | replace <子串> => <新文本> | remove <子串> | consolidate <子串...> => <新文本> | proposals [approve|dismiss <id>] | budgets | audit [verify] | adapters | export [--adapter=<id>] | import [--adapter=<id>] <路径>',
      synopsis: {
        ...en.cmd['/memory'].synopsis,
        query: '/memory query <词>',
        add: '/memory add [--track=user|agent] [--scope=user-global|workspace] <文本>',
        remove: '/memory remove [--track=user|agent] [--scope=user-global|workspace] <子串>',
        replace: '/memory replace [--track=user|agent] [--scope=user-global|workspace] <子串> => <新文本>',
        consolidate: '/memory consolidate [--track=user|agent] [--scope=user-global|workspace] <子串1> [<子串2> ...] => <新文本>',
        import: '/memory import [--dry-run] [--skip-flagged] <路径> | /memory import \'{"plugin":"dsh-memento",...}\' | /memory import --adapter=<id> [--track=T] [--scope=S] <路径|内联 JSON>',
        importAdapter: '/memory import --adapter=<id> <路径|内联 JSON>',
        exportParts: 'dsh-memento export --out-dir <目录>（在终端中运行；/memory import <目录> 一次批准恢复所有分片）',
      },
      budgetWays: {
        raise: (track, key, n) => `  - 在 dsh-memento 插件配置中把 budgets.${track}.${key} 提高到至少 ${n}，然后重新导入`,
        move: (room) => `  - 导入到另一层：--track=user|agent --scope=user-global|workspace${room.length ? `（有空间的层：${room.join('、')} 字符）` : ''}`,
        dryRun: '  - 先查看每个条目和各层总量：/memory import --dry-run <路径>；然后缩短或略去源文件中最大的章节',
      },
      secretWays: (rest) => `不含这些条目导入其余 ${rest} 条：/memory import --skip-flagged <路径>（或在插件配置中把 secretPolicy 设为 warn，逐条在审批中确认）。`,
      proposalsFooter: '批准：/memory proposals approve <id>；驳回：/memory proposals dismiss <id>',
      adaptersFooter: '导入：/memory import --adapter=<id> <路径|内联 JSON>；导出：/memory export --adapter=<id>',
    },
  },
}

/** The string bundle for a language; anything but `zh` is English. */
export function strings(language) {
  return language === 'zh' ? zh : en
}
