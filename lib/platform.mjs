// The platforms the package carries a prebuilt addon for, by their napi-rs names, and the
// error a user gets on any other: what the platform is and what to do.

/** Every platform a `memento.<platform>.node` is built for (`npm run build:targets`). */
export const PLATFORMS = Object.freeze([
  'linux-x64-gnu',
  'linux-x64-musl',
  'linux-arm64-gnu',
  'linux-arm64-musl',
  'darwin-x64',
  'darwin-arm64',
  'win32-x64-msvc',
])

/** This process's platform under the napi-rs name the loader looks for. */
export function currentPlatform() {
  const { platform, arch } = process
  if (platform === 'win32') return `win32-${arch}-msvc`
  if (platform !== 'linux') return `${platform}-${arch}`
  const glibc = process.report?.getReport?.().header?.glibcVersionRuntime
  return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`
}

/** The load failure of the native binding, as an error that says what to do. */
export function bindingMissing(cause, packageDir) {
  const platform = currentPlatform()
  const library = { win32: 'dsh_memento.dll', darwin: 'libdsh_memento.dylib' }[process.platform] ?? 'libdsh_memento.so'
  const build =
    `With Rust installed you can build it: \`cargo build --release\` in ${packageDir}, then copy ` +
    `target/release/${library} to memento.${platform}.node there.`
  const causes = []
  for (let e = cause; e && causes.length < 8; e = e.cause) causes.push(String(e.message ?? e).split('\n')[0])
  const shipped = PLATFORMS.includes(platform)
  const message = shipped
    ? `dsh-memento: the native binding for ${platform} did not load (Node ${process.version}): ` +
      `${causes.slice(1).join('; ') || causes[0]}. Reinstall with optional dependencies (they bring ` +
      `dsh-memento-${platform}) or from the full package tarball, which carries every platform. ${build}`
    : `dsh-memento: no prebuilt native binding for ${platform} (Node ${process.version}); the prebuilt ` +
      `platforms are ${PLATFORMS.join(', ')}. ${build}`
  const error = new Error(message, { cause })
  error.code = 'NATIVE_BINDING_MISSING'
  error.details = { platform, supported: PLATFORMS }
  return error
}
