// Key derivation and the default store path on the platform this runs on, against the JS
// reference dsh-memento's rules: a workspace key is `path.resolve(cwd)` (lowercased on win32,
// where paths are case-insensitive), an agent key the trimmed preset (lowercased on win32), and
// the default store `<os.homedir()>/.dsh/dsh-memento/memory.db`. Runs on every platform
// (test/platforms/wine.sh runs it on Windows).
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { NATIVE_BUILT, NATIVE_SKIP, ROOT } from './support/faults/common.mjs'

const WIN = process.platform === 'win32'
const skip = NATIVE_SKIP
const { workspaceKeyOf, agentKeyOf } = NATIVE_BUILT ? await import('../index.mjs') : {}

/** The JS reference plugin's workspace key. */
const reference = (cwd) => (WIN ? path.resolve(cwd).toLowerCase() : path.resolve(cwd))

/** The drive of the process cwd on win32 (`Z:` under Wine), for drive-relative inputs. */
const drive = WIN ? path.resolve('/').slice(0, 2) : ''

const INPUTS = [
  // relative
  '.',
  'proj',
  './proj/a',
  'proj/a/',
  'a/../b',
  '..',
  '../..',
  'a/./b/.',
  // absolute POSIX-style (on win32: rooted on the current drive)
  '/',
  '/a',
  '/a/b/',
  '/a/b//',
  '/a//b',
  '/a/b/../c/',
  '/a/b/../../..',
  '/..',
  '/a/./b',
  '/srv/My Proj',
  // mixed and backslash separators
  '/a\\b/c',
  'a\\b',
  '\\a\\b\\',
  '/a/b\\..\\c',
  // drive letters
  'C:\\',
  'C:/',
  'c:\\Users\\Dev\\Proj\\',
  'C:\\a\\..\\..\\b',
  'C:/mixed\\Seps/',
  'D:\\Proj\\A\\',
  'd:\\proj\\a',
  ...(WIN ? [`${drive}rel\\dir`, `${drive}`] : []),
  // UNC
  '\\\\server\\share',
  '\\\\server\\share\\',
  '\\\\Server\\Share\\Dir\\Sub\\..',
  '//server/share/x/',
  '\\\\?\\C:\\Long\\Path',
  // non-ASCII
  '/home/Élodie/Café',
  'C:\\Users\\ÉLODIE\\Проект',
]

describe('workspaceKeyOf follows the JS reference plugin', { skip }, () => {
  test(`equals ${WIN ? 'path.resolve(cwd).toLowerCase()' : 'path.resolve(cwd)'} for ${INPUTS.length} cwds`, () => {
    const wrong = []
    for (const cwd of INPUTS) {
      const got = workspaceKeyOf(cwd)
      if (got !== reference(cwd)) wrong.push(`${JSON.stringify(cwd)}: ${JSON.stringify(got)}, reference ${JSON.stringify(reference(cwd))}`)
    }
    assert.deepEqual(wrong, [])
  })

  test('no cwd is no workspace', () => {
    assert.equal(workspaceKeyOf(''), '')
    assert.equal(workspaceKeyOf(undefined), '')
  })

  test('known keys', () => {
    if (WIN) {
      assert.equal(workspaceKeyOf('D:\\Proj\\A\\'), 'd:\\proj\\a')
      assert.equal(workspaceKeyOf('d:/proj/a'), 'd:\\proj\\a')
      assert.equal(workspaceKeyOf('\\\\Server\\Share\\Dir\\'), '\\\\server\\share\\dir')
      assert.equal(workspaceKeyOf('/a/b/../c/'), `${drive.toLowerCase()}\\a\\c`)
      assert.equal(workspaceKeyOf('C:\\'), 'c:\\')
    } else {
      assert.equal(workspaceKeyOf('/a/b/../c/'), '/a/c')
      assert.equal(workspaceKeyOf('/Proj/A/'), '/Proj/A')
      assert.equal(workspaceKeyOf('/'), '/')
      assert.equal(workspaceKeyOf('proj'), path.join(process.cwd(), 'proj'))
    }
  })

  test(WIN ? 'one key for one folder whatever its case and separators' : 'keys are case-sensitive', () => {
    if (WIN) {
      const keys = new Set(['D:\\Proj\\A\\', 'd:\\proj\\a', 'D:/PROJ/a/', 'd:\\Proj\\.\\A', 'D:\\Proj\\B\\..\\A'].map(workspaceKeyOf))
      assert.deepEqual([...keys], ['d:\\proj\\a'])
    } else {
      assert.equal(new Set(['/Proj/A', '/proj/a'].map(workspaceKeyOf)).size, 2)
    }
  })
})

describe('agentKeyOf follows the JS reference plugin', { skip }, () => {
  test(`trims${WIN ? ' and lowercases' : ''}`, () => {
    const fold = (s) => (WIN ? s.toLowerCase() : s)
    for (const preset of ['coder', ' coder ', '\tCoder\n', 'Code Reviewer', '  ', ''])
      assert.equal(agentKeyOf(preset), fold(preset.trim()), JSON.stringify(preset))
    assert.equal(agentKeyOf(' Coder '), WIN ? 'coder' : 'Coder')
    assert.equal(agentKeyOf(undefined), '')
  })
})

describe('the default store path', { skip }, () => {
  /** resolveDbPath('') and os.homedir() in a child whose environment is `env`. */
  function inChild(env) {
    const script = `import { resolveDbPath, dshHome } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'index.mjs')).href)}
import os from 'node:os'
process.stdout.write(JSON.stringify({ db: resolveDbPath(''), home: os.homedir(), dsh: dshHome() }))`
    return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' }))
  }
  /** This environment less the named variables (matched case-insensitively, as Windows does). */
  const without = (...names) => Object.fromEntries(Object.entries(process.env).filter(([k]) => !names.includes(k.toUpperCase())))
  const withoutDshHome = () => without('DSH_HOME')

  test('without $DSH_HOME it is <os.homedir()>/.dsh/dsh-memento/memory.db', () => {
    const { db, home, dsh } = inChild(withoutDshHome())
    assert.equal(home, os.homedir())
    assert.equal(db, path.join(os.homedir(), '.dsh', 'dsh-memento', 'memory.db'))
    assert.equal(dsh, path.join(os.homedir(), '.dsh'), "the dsh home the CLI reads session logs from is the store's")
    if (WIN) {
      // The profile (%USERPROFILE%), not `\.dsh\...` on the current drive.
      assert.match(db, /^([A-Za-z]:\\|\\\\[^\\]+\\[^\\]+\\)/, db)
      assert.ok(!db.startsWith('\\.dsh') && !/^[A-Za-z]:\\\.dsh\\/.test(db), db)
    }
  })

  test(`it follows the home directory as os.homedir() does (${WIN ? '%USERPROFILE%' : '$HOME'})`, () => {
    const other = WIN ? 'C:\\Users\\Someone Else' : '/home/someone-else'
    const env = { ...without('DSH_HOME', WIN ? 'USERPROFILE' : 'HOME'), [WIN ? 'USERPROFILE' : 'HOME']: other }
    const { db, home, dsh } = inChild(env)
    assert.equal(home, other)
    assert.equal(dsh, path.join(other, '.dsh'))
    assert.equal(db, path.join(other, '.dsh', 'dsh-memento', 'memory.db'))
  })

  test('with $DSH_HOME, the store and the session logs are under it', () => {
    const home = WIN ? 'C:\\dsh home' : '/tmp/dsh home'
    const { db, dsh } = inChild({ ...withoutDshHome(), DSH_HOME: home })
    assert.equal(dsh, home)
    assert.equal(db, path.join(home, 'dsh-memento', 'memory.db'))
  })
})
