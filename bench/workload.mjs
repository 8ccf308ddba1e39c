// The benchmark's data and workload, generated deterministically from an entry index so that
// neither the worker (which seeds the provider) nor the parent (which writes the floor's input
// file) has to hold 100k texts in memory, and both see exactly the same data. Two shapes:
//
// "workspaces" (`entryInput`, `plan`): realistic at the protocol's DEFAULT budgets,
// although the bench opens the store with budgets of 10^9 so that the write loops never hit
// BUDGET_EXCEEDED:
//   - 45 user-global entries (15 user, 30 agent): the store-wide user-global layers;
//   - then workspaces of 45 entries each: 15 user/workspace (≈1,700 of 2,000 units) and
//     30 agent/workspace (≈3,450 of 4,000 units). 10k entries → 221 workspaces, 100k → 2,221.
//   - agent keys: user-track entries are shared (''), agent-track entries are one third shared
//     and two thirds split over 4 agent presets; so a session (agent, workspace) sees ≈ 90
//     entries: a full default-budget snapshot.
//   Texts: 80–150 UTF-16 units, English/CJK mixed.
// "large-layers" (`SHAPES['large-layers']`): ONE workspace whose four layers hold n/4
// entries each (budgets raised out of the way), texts of exactly 80 UTF-16 units, half of them
// mostly Chinese; same agent keys rule within each layer, so a session sees ≈ 3/4 of the store.
//
// In both, every entry carries a unique ASCII token (`Q` + 6 base36 chars, stored upper-case,
// queried lower-case: exercises ASCII folding) that the targeted writes and the rare query
// match, and half of them a rare 2-character CJK name from CJK Extension A (never used by the
// common vocabulary), so "rare" needles have 1 (or very few) hits. About 30% contain `tests`.

export const AGENTS = ['coder', 'reviewer', 'planner', 'writer']
export const GLOBAL_USER = 15
export const GLOBAL_AGENT = 30
export const GLOBAL = GLOBAL_USER + GLOBAL_AGENT
export const PER_WS = 45
export const WS_USER = 15
export const COMMON_WORD = 'tests'
const TAGS = ['build', 'style', 'infra', 'pref', 'lang', 'ci', 'db']

const EN = [
  'Prefers pnpm over npm for every install',
  'run the integration tests before pushing',
  'the CI pipeline caches node_modules by lockfile hash',
  'use tabs in Makefiles and two spaces elsewhere',
  'deploys go through the staging cluster first',
  'keep commit messages in the imperative mood',
  'the database migrations live in db/migrations',
  'avoid mocking the clock in unit tests',
  'the API gateway times out after 30 seconds',
  'lint with clippy -D warnings before review',
  'answers should be short and cite file paths',
  'the release branch is cut every second Tuesday',
  'logs are shipped as JSON lines to the collector',
  'feature flags are read once at startup',
  'the user works in UTC+8 and prefers mornings',
  'snapshot tests must be updated deliberately',
  'use rg instead of grep for code search',
  'the monorepo builds with turbo and a remote cache',
  'never force-push to main; open a PR instead',
  'the docs site is generated from the README files',
]
const EN_NO_TESTS = EN.filter((s) => !s.includes(COMMON_WORD))
const EN_TESTS = EN.filter((s) => s.includes(COMMON_WORD))
const CJK = [
  '用户偏好简洁的回答',
  '项目使用中文注释',
  '构建前先运行测试',
  '部署需要经过预发布环境',
  '数据库迁移放在固定目录',
  '代码评审要求至少两人通过',
  '不要在主分支上直接提交',
  '日志统一输出为结构化格式',
  '接口超时时间为三十秒',
  '发布周期为两周一次',
  '记住这个仓库的约定',
  '文档由自述文件生成',
]

/** A small, fast, seedable PRNG (mulberry32). */
export function prng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A bijective scramble of a 31-bit index (so tokens look random but never collide). */
function scramble(i) {
  let x = (i + 0x1234567) & 0x7fffffff
  for (let r = 0; r < 3; r++) {
    x = Math.imul(x ^ (x >>> 13), 0x5bd1e995) & 0x7fffffff
    x ^= x >>> 11
  }
  return x
}

/** The unique token of text number `i` (entries 0..n-1, then writes use n+…): `Q` + 6 base36. */
export function token(i) {
  // 36^6 = 2.18e9 > 2^31: the scramble is injective on 31 bits, so tokens are unique.
  return `Q${scramble(i).toString(36).toUpperCase().padStart(6, '0')}`
}

/** The rare CJK pair of text `i` (half of the texts), from CJK Extension A (U+3400–U+4DBF). */
export function cjkPair(i) {
  if (i % 2 !== 0) return null
  const x = scramble(i ^ 0x55aa55)
  const a = 0x3400 + (x % 6592)
  const b = 0x3400 + (Math.floor(x / 6592) % 6592)
  return String.fromCharCode(a) + String.fromCharCode(b)
}

/** Text number `i`: 80–150 UTF-16 units, deterministic. */
export function textOf(i) {
  const r = prng(i * 2654435761)
  const target = 80 + Math.floor(r() * 71)
  const tests = r() < 0.3
  const pair = cjkPair(i)
  const parts = [`[${token(i)}]`]
  if (pair) parts.push(`联系人${pair}`)
  if (tests) parts.push(EN_TESTS[Math.floor(r() * EN_TESTS.length)])
  let text = parts.join(' ')
  let guard = 0
  while (text.length < target && guard++ < 20) {
    const piece = r() < 0.6 ? EN_NO_TESTS[Math.floor(r() * EN_NO_TESTS.length)] : CJK[Math.floor(r() * CJK.length)]
    text += (r() < 0.5 ? '; ' : '，') + piece
  }
  if (text.length > 150) text = text.slice(0, 150).trimEnd()
  return text
}

function tagsOf(i) {
  const r = prng(i * 40503 + 7)
  const x = r()
  if (x < 0.6) return []
  const a = TAGS[Math.floor(r() * TAGS.length)]
  if (x < 0.85) return [a]
  const b = TAGS[Math.floor(r() * TAGS.length)]
  return a === b ? [a] : [a, b]
}

/** Workspace key of workspace number `w`. */
export function wsKey(w) {
  return `/work/repos/proj-${String(w).padStart(5, '0')}`
}

/** Number of workspaces an n-entry store has. */
export function workspaces(n) {
  return Math.max(1, Math.ceil(Math.max(0, n - GLOBAL) / PER_WS))
}

/** Layout of entry `i` (no text): {track, scope, workspaceKey, agentKey, ws, k}. */
export function layoutOf(i) {
  if (i < GLOBAL) {
    const user = i < GLOBAL_USER
    return {
      track: user ? 'user' : 'agent',
      scope: 'user-global',
      workspaceKey: '',
      agentKey: user || i % 3 === 0 ? '' : AGENTS[i % 4],
      ws: -1,
      k: i,
    }
  }
  const w = Math.floor((i - GLOBAL) / PER_WS)
  const k = (i - GLOBAL) % PER_WS
  const user = k < WS_USER
  return {
    track: user ? 'user' : 'agent',
    scope: 'workspace',
    workspaceKey: wsKey(w),
    agentKey: user || k % 3 === 0 ? '' : AGENTS[(w + k) % 4],
    ws: w,
    k,
  }
}

/** Seed input of entry `i` (the protocol's EntryInput). */
export function entryInput(i) {
  const l = layoutOf(i)
  return {
    track: l.track,
    scope: l.scope,
    text: textOf(i),
    tags: tagsOf(i),
    workspaceKey: l.workspaceKey,
    agentKey: l.agentKey,
  }
}

/** Index of entry (w, k) in the store. */
export function indexOf(w, k) {
  return GLOBAL + w * PER_WS + k
}

/**
 * The measured workload for an n-entry store and `iters` iterations per operation: which
 * entries each write targets (disjoint sets, so no write invalidates another's target), the
 * needles of each query shape, and the new texts. Texts of new entries use indices ≥ n.
 */
export function plan(n, iters) {
  const W = workspaces(n)
  const wsCount = Math.max(1, Math.floor((n - GLOBAL) / PER_WS)) // complete workspaces
  const r = prng(n * 31 + iters)
  const pick = (max) => Math.floor(r() * max)
  let fresh = n + 1000
  const newText = () => fresh++
  const writer = (ws, agentKey, sid) => ({ sessionId: sid, cwd: ws, agentPreset: agentKey || 'coder' })

  // Query needles: rare ASCII tokens (lower-case), rare CJK pairs, common word.
  const rare = []
  const cjk = []
  for (let q = 0; q < iters; q++) {
    rare.push(token(pick(n)).toLowerCase())
    let i = pick(n)
    if (i % 2) i = i - 1
    cjk.push(cjkPair(i))
  }
  const sessionWs = 0
  const session = { agentKey: 'coder', workspaceKey: wsKey(sessionWs) }

  // add: a new agent/workspace entry in workspace j % W, agent 'coder'.
  const adds = []
  for (let j = 0; j < iters; j++) {
    const ws = wsKey(j % wsCount)
    adds.push({
      input: { track: 'agent', scope: 'workspace', text: textOf(newText()), tags: ['bench'], workspaceKey: ws, agentKey: 'coder' },
      write: writer(ws, 'coder', `bench-add-${j}`),
    })
  }
  // seed: batches of 100 new entries, each batch in a fresh workspace (60 user + 40 agent).
  const seedBatches = []
  const batches = Math.max(3, Math.floor(iters / 10))
  for (let b = 0; b < batches; b++) {
    const ws = `/work/repos/seeded-${String(b).padStart(4, '0')}`
    const inputs = []
    for (let e = 0; e < 100; e++) {
      inputs.push({
        track: e < 60 ? 'user' : 'agent',
        scope: 'workspace',
        text: textOf(newText()),
        tags: [],
        workspaceKey: ws,
        agentKey: '',
      })
    }
    seedBatches.push({ inputs, write: writer(ws, 'coder', `bench-seed-${b}`) })
  }
  // replace: agent-track entries owned by an agent (k ≥ 15, k % 3 ≠ 0), workspace j % W.
  // remove: user-track shared entries (k < 15), consolidate: pairs of shared agent-track
  // entries (k ≥ 15, k % 3 = 0) of one workspace. Disjoint sets.
  const replaces = []
  const removes = []
  const consolidates = []
  const agentOwned = []
  const shared = []
  for (let k = WS_USER; k < PER_WS; k++) (k % 3 === 0 ? shared : agentOwned).push(k)
  for (let j = 0; j < iters; j++) {
    const w = j % wsCount
    const slot = Math.floor(j / wsCount)
    {
      const k = agentOwned[slot % agentOwned.length]
      const i = indexOf(w, k)
      const l = layoutOf(i)
      replaces.push({
        index: i,
        input: {
          track: l.track,
          scope: l.scope,
          match: token(i).toLowerCase(),
          text: textOf(newText()),
          workspaceKey: l.workspaceKey,
          agentKey: l.agentKey,
        },
        write: writer(l.workspaceKey, l.agentKey, `bench-replace-${j}`),
      })
    }
    {
      const k = slot % WS_USER
      const i = indexOf(w, k)
      const l = layoutOf(i)
      removes.push({
        index: i,
        input: { track: l.track, scope: l.scope, match: token(i).toLowerCase(), workspaceKey: l.workspaceKey },
        write: writer(l.workspaceKey, 'coder', `bench-remove-${j}`),
      })
    }
    {
      const k1 = shared[(2 * slot) % shared.length]
      const k2 = shared[(2 * slot + 1) % shared.length]
      const a = indexOf(w, k1)
      const b = indexOf(w, k2)
      const l = layoutOf(a)
      consolidates.push({
        indices: [a, b],
        input: {
          track: l.track,
          scope: l.scope,
          matches: [token(a).toLowerCase(), token(b).toLowerCase()],
          text: textOf(newText()),
          workspaceKey: l.workspaceKey,
          agentKey: '',
        },
        write: writer(l.workspaceKey, 'coder', `bench-consolidate-${j}`),
      })
    }
  }
  // Warm-up adds (untimed; generated last, so the items above do not depend on them): 2 per
  // timed add, spread over the workspaces like the adds, so that each write round starts with
  // the read model and the page cache warmed by writes like the ones it times.
  const warmAdds = []
  for (let j = 0; j < 2 * iters; j++) {
    const ws = wsKey((7 * j + 3) % wsCount)
    warmAdds.push({
      input: { track: 'agent', scope: 'workspace', text: textOf(newText()), tags: ['bench'], workspaceKey: ws, agentKey: 'coder' },
      write: writer(ws, 'coder', `bench-warm-${j}`),
    })
  }
  return { n, iters, W, rare, cjk, common: COMMON_WORD, session, adds, seedBatches, replaces, removes, consolidates, warmAdds }
}

// ---------------------------------------------------------------------------------------------
// "large-layers": one workspace, four layers of n/4 entries each.

/** The one workspace of the large-layers shape. */
export const LARGE_WS = wsKey(0)
const LAYERS = [
  ['user', 'user-global'],
  ['user', 'workspace'],
  ['agent', 'user-global'],
  ['agent', 'workspace'],
]
const LARGE_UNITS = 80

/** Layout of large-layers entry `i`: layer `i % 4`; agent keys as in the workspaces shape. */
function largeLayoutOf(i) {
  const [track, scope] = LAYERS[i % 4]
  const j = i >> 2
  return {
    track,
    scope,
    workspaceKey: scope === 'workspace' ? LARGE_WS : '',
    agentKey: track === 'user' || j % 3 === 0 ? '' : AGENTS[j % 4],
  }
}

/** Large-layers text `i`: exactly 80 UTF-16 units (all BMP), half of them mostly Chinese. */
function largeTextOf(i) {
  const r = prng(i * 2654435761 + 977)
  const chinese = r() < 0.5
  const parts = [`[${token(i)}]`]
  const pair = cjkPair(i)
  if (pair) parts.push(`联系人${pair}`)
  if (r() < 0.3) parts.push(chinese ? '提交前先跑 tests' : EN_TESTS[Math.floor(r() * EN_TESTS.length)])
  let text = parts.join(' ')
  while (text.length < LARGE_UNITS) {
    text += chinese ? `，${CJK[Math.floor(r() * CJK.length)]}` : `; ${EN_NO_TESTS[Math.floor(r() * EN_NO_TESTS.length)]}`
  }
  text = text.slice(0, LARGE_UNITS)
  return /\s$/.test(text) ? `${text.slice(0, -1)}.` : text
}

function largeEntryInput(i) {
  return { ...largeLayoutOf(i), text: largeTextOf(i), tags: tagsOf(i) }
}

/**
 * The large-layers workload, shaped like `plan`'s (the floor reads both): adds and seeds spread
 * over the four layers, and disjoint write targets drawn at random from the whole store — remove
 * user-track entries, replace agent-owned ones, consolidate pairs of shared agent entries of one
 * layer — so every targeted write searches a layer of n/4 entries.
 */
function largePlan(n, iters) {
  const r = prng(n * 37 + iters)
  const pick = (max) => Math.floor(r() * max)
  const shuffled = (xs) => {
    for (let k = xs.length - 1; k > 0; k--) {
      const m = pick(k + 1)
      ;[xs[k], xs[m]] = [xs[m], xs[k]]
    }
    return xs
  }
  let fresh = n + 1000
  const writer = (agentPreset, sid) => ({ sessionId: sid, cwd: LARGE_WS, agentPreset })
  const newInput = (j, tags) => {
    const [track, scope] = LAYERS[j % 4]
    return {
      track,
      scope,
      text: largeTextOf(fresh++),
      tags,
      workspaceKey: scope === 'workspace' ? LARGE_WS : '',
      agentKey: track === 'agent' ? 'coder' : '',
    }
  }
  const rare = []
  const cjk = []
  for (let q = 0; q < iters; q++) {
    rare.push(token(pick(n)).toLowerCase())
    cjk.push(cjkPair(pick(n) & ~1))
  }
  const session = { agentKey: 'coder', workspaceKey: LARGE_WS }
  const adds = Array.from({ length: iters }, (_, j) => ({ input: newInput(j, ['bench']), write: writer('coder', `bench-add-${j}`) }))
  const seedBatches = Array.from({ length: Math.max(3, Math.floor(iters / 10)) }, (_, b) => ({
    inputs: Array.from({ length: 100 }, (_, e) => ({ ...newInput(e, []), agentKey: '' })),
    write: writer('coder', `bench-seed-${b}`),
  }))
  const users = []
  const owned = []
  const shared = [[], []]
  for (let i = 0; i < n; i++) {
    const l = largeLayoutOf(i)
    if (l.track === 'user') users.push(i)
    else if (l.agentKey) owned.push(i)
    else shared[l.scope === 'workspace' ? 1 : 0].push(i)
  }
  shuffled(users)
  shuffled(owned)
  shared.forEach(shuffled)
  const targetOf = (i) => {
    const l = largeLayoutOf(i)
    return { track: l.track, scope: l.scope, match: token(i).toLowerCase(), workspaceKey: l.workspaceKey }
  }
  const replaces = []
  const removes = []
  const consolidates = []
  for (let j = 0; j < iters; j++) {
    const o = owned[j % owned.length]
    const owner = largeLayoutOf(o).agentKey
    replaces.push({
      index: o,
      input: { ...targetOf(o), text: largeTextOf(fresh++), agentKey: owner },
      write: writer(owner, `bench-replace-${j}`),
    })
    const u = users[j % users.length]
    removes.push({ index: u, input: targetOf(u), write: writer('coder', `bench-remove-${j}`) })
    const pool = shared[j % 2]
    const k = Math.floor(j / 2)
    const [a, b] = [pool[(2 * k) % pool.length], pool[(2 * k + 1) % pool.length]]
    const { match: ma, ...layer } = targetOf(a)
    consolidates.push({
      indices: [a, b],
      input: { ...layer, matches: [ma, targetOf(b).match], text: largeTextOf(fresh++), agentKey: '' },
      write: writer('coder', `bench-consolidate-${j}`),
    })
  }
  const warmAdds = Array.from({ length: 2 * iters }, (_, j) => ({
    input: newInput(j, ['bench']),
    write: writer('coder', `bench-warm-${j}`),
  }))
  return { n, iters, W: 1, rare, cjk, common: COMMON_WORD, session, adds, seedBatches, replaces, removes, consolidates, warmAdds }
}

/** The two shapes by name: each an entry generator and a workload plan over it. */
export const SHAPES = {
  workspaces: { entryInput, plan },
  'large-layers': { entryInput: largeEntryInput, plan: largePlan },
}
