#!/usr/bin/env bash
# Checks the current Node LTS lines (22 and 24 by default; others as arguments: 26 …) on a fresh
# clone of this repository's HEAD, each with a Node taken from npm (the node-linux-<arch> package
# ships the binary and its C headers, so better-sqlite3's native build needs no other download):
#   1. `npm ci` with that Node first on PATH: no EBADENGINE warning, the native module built for its ABI;
#   2. better-sqlite3 opens a database and runs a query;
#   3. the typecheck, the import check, and the test files that exercise the runtime the most
#      (SQLite and PostgreSQL stores, Redis, spawned CLIs and `npm start`, the openai SDK, the README tour).
# CI (.ci/run) keeps the machine's Node; this script is how a developer checks the LTS lines.
# Measured 2026-11-26: Node 22 passes; Node 24 fails (better-sqlite3 12 aborts, docs/deploy.md).
# It needs the local PostgreSQL and Redis, like the tests. Usage: bash scripts/check-node-lts.sh [22 24]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
versions=("$@")
[ ${#versions[@]} -eq 0 ] && versions=(22 24)
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "check-node-lts: no node-linux package for $(uname -m)" >&2; exit 2 ;;
esac
tests=(
  src/config/load-config.test.ts
  src/mock-upstream/
  src/credits/credit-ledger.test.ts
  test/users/admin-bootstrap.test.ts
  test/mock-upstream/openai-sdk-structured.test.ts
  test/cli/
  test/config/reload-every-surface.test.ts
  test/readme/readme-tour.test.ts
  test/deploy/deploy-files.test.ts
)
work="$(mktemp -d "${TMPDIR:-/tmp}/node-lts-check.XXXXXX")"
failed=()
# Kept when a check fails, for its logs (install-N.log, tests-N.log) and clones.
trap '[ ${#failed[@]} -eq 0 ] && rm -rf "$work" || echo "check-node-lts: logs and clones kept in $work" >&2' EXIT
for version in "${versions[@]}"; do
  echo "=== Node $version"
  tool="$work/node-$version"
  npm install --prefix "$tool" --no-save --no-audit --no-fund --loglevel=error "node-linux-$arch@$version" >/dev/null
  node_home="$tool/node_modules/node-linux-$arch"
  clone="$work/clone-$version"
  git clone --quiet --no-hardlinks "$root" "$clone"
  run() { (cd "$clone" && PATH="$node_home/bin:$PATH" npm_config_nodedir="$node_home" "$@"); }
  echo "node $(run node -v), npm $(run npm -v)"
  started=$SECONDS
  if ! run npm ci --no-audit --no-fund >"$work/install-$version.log" 2>&1; then
    tail -30 "$work/install-$version.log"
    failed+=("$version: npm ci")
    continue
  fi
  echo "npm ci: $((SECONDS - started)) s"
  if grep -q EBADENGINE "$work/install-$version.log"; then
    grep -A4 EBADENGINE "$work/install-$version.log" | head -20
    failed+=("$version: engine warnings on install")
  else
    echo "npm ci: no engine warnings"
  fi
  run node -e "
    const Database = require('better-sqlite3');
    const db = new Database(':memory:');
    const row = db.prepare('select sqlite_version() as version, 6 * 7 as answer').get();
    if (row.answer !== 42) throw new Error('wrong answer');
    console.log('better-sqlite3 on ABI ' + process.versions.modules + ': SQLite ' + row.version);
  " || failed+=("$version: better-sqlite3")
  run npm run --silent typecheck || failed+=("$version: typecheck")
  run npm run --silent lint:deps >/dev/null || failed+=("$version: lint:deps")
  run npx vitest run "${tests[@]}" 2>&1 | tee "$work/tests-$version.log" | grep -E '^[0-9]+ passed, [0-9]+ failed' || true
  # Every test passed, none skipped, and no worker died (a native abort kills a worker mid-file).
  if ! grep -qE '^[0-9]+ passed, 0 failed, 0 skipped' "$work/tests-$version.log" ||
    grep -qE 'Unhandled Error|Assertion failed' "$work/tests-$version.log"; then
    grep -E 'FAIL|×|Assertion failed|Worker exited' "$work/tests-$version.log" | sort | uniq -c | head -20
    failed+=("$version: tests")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  printf 'check-node-lts: failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "check-node-lts: Node ${versions[*]}: install, better-sqlite3, typecheck, lint:deps and tests passed"
