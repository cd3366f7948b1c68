#!/usr/bin/env bash
# Checks the Node LTS lines (22 and 24 by default; others as arguments: 26 …) on a fresh clone of
# this repository's HEAD, each with its Node from scripts/lts-node.sh (the machine's own when it is
# that line, else taken from npm):
#   1. `npm ci` with that Node first on PATH: no EBADENGINE warning or error;
#   2. better-sqlite3 opens a database and runs a query;
#   3. the typecheck, the import check, and the test files that exercise the runtime the most
#      (SQLite and PostgreSQL stores, Redis, spawned CLIs and `npm start`, the openai SDK, the README tour).
# CI (.ci/run) runs the whole suite on the image's line (.nvmrc); this script adds the other lines.
# It needs the local PostgreSQL and Redis, like the tests. Usage: bash scripts/check-node-lts.sh [22 24]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
versions=("$@")
[ ${#versions[@]} -eq 0 ] && versions=(22 24)
tests=(
  src/config/load-config.test.ts
  src/mock-upstream/
  src/credits/credit-ledger.test.ts
  src/store/
  test/metering/credits-reconcile-cli.test.ts
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
  if ! node_home="$(bash "$root/scripts/lts-node.sh" "$version" 2>"$work/node-$version.log")"; then
    cat "$work/node-$version.log" >&2
    failed+=("$version: no Node $version")
    continue
  fi
  clone="$work/clone-$version"
  git clone --quiet --no-hardlinks "$root" "$clone"
  run() { (cd "$clone" && PATH="$node_home/bin:$PATH" "$@"); }
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
