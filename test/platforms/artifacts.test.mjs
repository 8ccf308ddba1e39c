// Static checks of the seven prebuilt addons (`npm run build:targets`): each is a binary of its
// platform's format and architecture, links only what every machine of that platform has, and
// asks for no newer OS than the README promises. darwin cannot be run here, so for it these are
// the only checks; the others also run under emulation (test/platforms/*.sh).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { PLATFORMS } from '../../lib/platform.mjs'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const file = (p) => `${ROOT}npm/${p}/memento.${p}.node`
const run = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 << 20 })

test('every platform package carries its addon, the same file as the root copy', () => {
  for (const p of PLATFORMS) {
    const pkg = JSON.parse(readFileSync(`${ROOT}npm/${p}/package.json`, 'utf8'))
    assert.equal(pkg.main, `memento.${p}.node`, p)
    assert.ok(readFileSync(file(p)).equals(readFileSync(`${ROOT}memento.${p}.node`)), `${p}: root copy differs`)
  }
})

const ELF = {
  'linux-x64-gnu': { machine: 'Advanced Micro Devices X86-64', libc: 'gnu' },
  'linux-arm64-gnu': { machine: 'AArch64', libc: 'gnu' },
  'linux-x64-musl': { machine: 'Advanced Micro Devices X86-64', libc: 'musl' },
  'linux-arm64-musl': { machine: 'AArch64', libc: 'musl' },
}

for (const [p, want] of Object.entries(ELF)) {
  test(`${p}: an ELF shared object of its architecture, linking only the C runtime`, () => {
    const header = run('readelf', ['-h', file(p)])
    assert.match(header, /Class:\s+ELF64/)
    assert.match(header, /Type:\s+DYN/)
    assert.equal(/Machine:\s+(.+)/.exec(header)[1].trim(), want.machine)
    const needed = [...run('readelf', ['-d', file(p)]).matchAll(/\(NEEDED\)\s+Shared library: \[(.+)\]/g)].map((m) => m[1])
    if (want.libc === 'gnu') {
      for (const lib of needed)
        assert.match(lib, /^(libc|libm|libdl|libpthread|librt|libgcc_s|ld-linux-[\w-]+)\.so(\.\d+)*$/, `${p} links ${lib}`)
      // zig's `.2.17` target: no symbol version newer than glibc 2.17 (CentOS 7, Debian 8).
      const versions = [...run('readelf', ['-V', file(p)]).matchAll(/GLIBC_(\d+)\.(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])])
      assert.ok(versions.length > 0, `${p}: no glibc symbol versions`)
      const newest = versions.reduce((a, b) => (b[0] > a[0] || (b[0] === a[0] && b[1] > a[1]) ? b : a))
      assert.ok(newest[0] === 2 && newest[1] <= 17, `${p} needs glibc ${newest.join('.')}`)
    } else {
      // musl's loader answers `libc.so` itself (a reserved name): nothing beyond musl is needed.
      assert.deepEqual(needed, ['libc.so'], `${p} links ${needed}`)
    }
  })
}

/** The parts of a Mach-O dylib these checks need: CPU, file type, minimum macOS, linked dylibs. */
function machO(buf) {
  assert.equal(buf.readUInt32LE(0), 0xfeedfacf, 'not a 64-bit little-endian Mach-O')
  const out = { cpu: buf.readUInt32LE(4), type: buf.readUInt32LE(12), dylibs: [], minos: null, signed: false }
  const count = buf.readUInt32LE(16)
  let at = 32
  for (let i = 0; i < count; i++) {
    const cmd = buf.readUInt32LE(at)
    const size = buf.readUInt32LE(at + 4)
    if (cmd === 0x32) out.minos = buf.readUInt32LE(at + 12) // LC_BUILD_VERSION: platform, minos
    if (cmd === 0x24) out.minos = buf.readUInt32LE(at + 8) // LC_VERSION_MIN_MACOSX: version
    if (cmd === 0xc || cmd === 0x80000018) {
      // LC_LOAD_DYLIB / LC_LOAD_WEAK_DYLIB: the name's offset, then the NUL-terminated name
      const name = buf.subarray(at + buf.readUInt32LE(at + 8), at + size)
      out.dylibs.push(name.subarray(0, name.indexOf(0)).toString())
    }
    if (cmd === 0x1d) out.signed = true // LC_CODE_SIGNATURE (arm64 macOS loads only signed code)
    at += size
  }
  return out
}

// Apple silicon runs only signed code (an ad-hoc signature will do); Intel Macs need none.
const MACH = {
  'darwin-x64': { cpu: 0x01000007, minos: '10.13', signed: false },
  'darwin-arm64': { cpu: 0x0100000c, minos: '11.0', signed: true },
}

for (const [p, want] of Object.entries(MACH)) {
  test(`${p}: a Mach-O dylib for macOS ${want.minos}+, linking only system libraries`, () => {
    const m = machO(readFileSync(file(p)))
    assert.equal(m.cpu, want.cpu, 'CPU type')
    assert.equal(m.type, 6, 'MH_DYLIB')
    assert.ok(m.minos !== null, 'no minimum macOS version')
    assert.equal(`${m.minos >>> 16}.${(m.minos >>> 8) & 0xff}`, want.minos)
    if (want.signed) assert.ok(m.signed, 'no code signature')
    assert.ok(m.dylibs.includes('/usr/lib/libSystem.B.dylib'), m.dylibs.join(', '))
    for (const lib of m.dylibs) assert.match(lib, /^(\/usr\/lib\/|\/System\/Library\/)/, `${p} links ${lib}`)
  })
}

test('win32-x64-msvc: a PE DLL for x64 importing only Windows system DLLs', () => {
  const dump = run('x86_64-w64-mingw32-objdump', ['-p', file('win32-x64-msvc')])
  assert.match(dump, /file format pei-x86-64/)
  assert.match(dump, /Characteristics[\s\S]*?DLL/)
  const dlls = [...dump.matchAll(/DLL Name: (.+)/g)].map((m) => m[1].trim().toLowerCase())
  assert.ok(dlls.includes('kernel32.dll'), dlls.join(', '))
  const system = /^(kernel32|ntdll|advapi32|bcrypt|bcryptprimitives|userenv|ws2_32|msvcrt|ucrtbase|shell32|ole32|api-ms-win-[\w-]+)\.dll$/
  for (const dll of dlls) assert.match(dll, system, `imports ${dll}`)
})
