// A read-only npm registry on loopback serving the tarballs of one folder (`dist/registry`), so
// that pnpm resolves the root's optionalDependencies exactly as it would from the real registry.
// The metadata of any other package (the root's own dependencies: the MCP SDK and its tree) is
// the real registry's (`npm config get registry`, or $MEMENTO_UPSTREAM_REGISTRY), its tarballs
// fetched from there; a tarball it does not hold is a 404. Prints `registry listening on <port>`.
//
//   node test/platforms/registry.mjs <folder-of-tgz>
import { createServer } from 'node:http'
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

const dir = process.argv[2]
const upstream = (
  process.env.MEMENTO_UPSTREAM_REGISTRY || execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim()
).replace(/\/$/, '')
const packages = new Map()
for (const f of readdirSync(dir).filter((f) => f.endsWith('.tgz'))) {
  const tgz = readFileSync(join(dir, f))
  const manifest = JSON.parse(execFileSync('tar', ['xzOf', join(dir, f), 'package/package.json'], { encoding: 'utf8' }))
  packages.set(manifest.name, { file: f, tgz, manifest })
}

/** Another package's metadata, as the real registry answers it. */
async function relay(name, req, res) {
  try {
    const r = await fetch(`${upstream}/${name.replace('/', '%2f')}`, { headers: { accept: req.headers.accept ?? 'application/json' } })
    res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await r.arrayBuffer()))
  } catch (e) {
    res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(e?.message ?? e) }))
  }
}

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://registry')
  const name = decodeURIComponent(url.pathname.slice(1))
  const tarball = /^-\/(.+\.tgz)$/.exec(name)
  const hit = tarball ? [...packages.values()].find((p) => p.file === tarball[1]) : packages.get(name)
  if (!hit && !tarball) return void relay(name, req, res)
  if (!hit) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}')
    return
  }
  if (tarball) {
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(hit.tgz)
    return
  }
  const { manifest, tgz, file } = hit
  const dist = {
    tarball: `http://${req.headers.host}/-/${file}`,
    shasum: createHash('sha1').update(tgz).digest('hex'),
    integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`,
  }
  const body = { name: manifest.name, 'dist-tags': { latest: manifest.version }, versions: { [manifest.version]: { ...manifest, dist } } }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
})
server.listen(0, '127.0.0.1', () => console.log(`registry listening on ${server.address().port}`))
