// The files an export or a mirror writes. Memory can hold private facts, so each one is the
// user's alone, like the store: 0600, and 0700 for a directory we create. Someone who can write
// into the export directory must not be able to redirect a write: a file is created exclusively
// (a file or symlink already at its path makes the open fail; a link is never followed), and is
// replaced only with `force`, by unlinking what is at the path (a link itself, never its target).
// A directory inside the export directory that is a symlink is refused. Windows has no POSIX
// modes: they are ignored there, and 'wx' works the same.
//
// Not covered: a directory swapped for a link while the export runs, after its check and before
// a file in it is opened (Node has no openat). Winning that race still overwrites nothing without
// `force`; with it, the file replaced could be one in another directory the user can write.

import fs from 'node:fs'
import path from 'node:path'
import { invalidInput, isMemoryError } from './errors.mjs'

/** A failure as INVALID_INPUT naming the path (our own refusals pass through). */
const named = (p, e) =>
  isMemoryError(e) ? e : invalidInput(`cannot write ${p}: ${e.code === 'ENOENT' ? 'its directory does not exist' : e.message}`, { path: p })

/**
 * `root/rel` as a real directory: `root` is created (0700) when missing and may itself be a link
 * the user chose; each directory below it is created 0700, or refused when it is a symlink or not
 * a directory.
 * @param {string} root
 * @param {string} [rel] a relative directory path ('' or '.' for root itself)
 * @returns {string} the directory's path
 */
export function privateDir(root, rel = '') {
  let dir = root
  try {
    fs.mkdirSync(root, { recursive: true, mode: 0o700 })
    for (const part of rel.split(/[\\/]/).filter((x) => x && x !== '.')) {
      dir = path.join(dir, part)
      const st = fs.lstatSync(dir, { throwIfNoEntry: false })
      if (!st) fs.mkdirSync(dir, { mode: 0o700 })
      else if (st.isSymbolicLink() || !st.isDirectory()) {
        const what = st.isSymbolicLink() ? 'is a symbolic link, and dsh-memento never writes through one' : 'is not a directory'
        throw invalidInput(`${dir} ${what}: remove it, or write to another directory`, { path: dir })
      }
    }
  } catch (e) {
    throw named(dir, e)
  }
  return dir
}

/** A new file, 0600; with `force`, what is at the path (a file, or a link itself) is unlinked first. */
function create(file, force) {
  try {
    return fs.openSync(file, 'wx', 0o600)
  } catch (e) {
    if (e.code !== 'EEXIST') throw e
    if (fs.lstatSync(file).isDirectory()) throw invalidInput(`${file} is a directory; give a file path`, { path: file })
    if (!force) throw invalidInput(`${file} already exists; pass --force to replace it`, { path: file })
    fs.unlinkSync(file)
    return fs.openSync(file, 'wx', 0o600)
  }
}

/**
 * Write `content` to a new `file` (0600), never through a link or over what is there; with
 * `force`, a file or symlink at the path is replaced (the link itself, never its target).
 * @param {string} file
 * @param {string | Uint8Array} content
 * @param {{force?: boolean}} [opts]
 */
export function writePrivateFile(file, content, { force = false } = {}) {
  let fd
  try {
    fd = create(file, force)
    fs.writeFileSync(fd, content)
  } catch (e) {
    throw named(file, e)
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/**
 * Write `files` (relative path -> content, in the order given) into `root`: each file as
 * writePrivateFile writes it, in a directory privateDir checks or makes.
 * @param {string} root
 * @param {Record<string, string>} files
 * @param {{force?: boolean}} [opts]
 */
export function writePrivateFiles(root, files, opts) {
  for (const [name, content] of Object.entries(files)) {
    writePrivateFile(path.join(privateDir(root, path.dirname(name)), path.basename(name)), content, opts)
  }
}
