#!/usr/bin/env bash
# The package for both ways users install it, from the seven addons `npm run build:targets` made:
#
#   dist/dsh-memento-<v>.tgz                        the full package: every platform's addon inside,
#                                                   for `dsh plugin add ./x.tgz`, git and offline installs
#   dist/registry/dsh-memento-<platform>-<v>.tgz    the seven platform packages (os/cpu/libc set)
#   dist/registry/dsh-memento-<v>.tgz               the registry's root: no addon, exact-version
#                                                   optionalDependencies on the seven
#
# Publish the platform packages before the root: a root whose platform package is missing installs
# silently and fails only at load.
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(node -p "require('./package.json').version")
platforms=$(node --input-type=module -e "import { PLATFORMS } from './lib/platform.mjs'; console.log(PLATFORMS.join(' '))")
for p in $platforms; do
  [ -f "npm/$p/memento.$p.node" ] && cmp -s "npm/$p/memento.$p.node" "memento.$p.node" \
    || { echo "pack: memento.$p.node is missing or stale: run \`npm run build:targets\` first" >&2; exit 1; }
done

rm -rf dist && mkdir -p dist/registry
npm pack --silent --pack-destination dist >/dev/null
for p in $platforms; do
  [ "$(node -p "require('./npm/$p/package.json').version")" = "$version" ] \
    || { echo "pack: npm/$p/package.json is not at version $version" >&2; exit 1; }
  npm pack --silent --pack-destination dist/registry "./npm/$p" >/dev/null
done

# The registry root is the full package less its addons, plus the optional dependencies.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
tar xzf "dist/dsh-memento-$version.tgz" -C "$stage"
rm "$stage"/package/memento.*.node
PLATFORMS="$platforms" VERSION="$version" node -e "
  const fs = require('fs'), file = process.argv[1], pkg = JSON.parse(fs.readFileSync(file, 'utf8'))
  pkg.optionalDependencies = Object.fromEntries(process.env.PLATFORMS.split(' ').map((p) => ['dsh-memento-' + p, process.env.VERSION]))
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n')
" "$stage/package/package.json"
npm pack --silent --pack-destination dist/registry "$stage/package" >/dev/null

for f in dist/*.tgz dist/registry/*.tgz; do echo "pack: $(du -h "$f" | cut -f1) $f"; done
