#!/usr/bin/env bash
# wgprim set-up: the one install recipe, used by `npm run main`, `npm test` and .ci/run.
#
#   bash scripts/setup.sh [--main]   what `npm run main` needs: node_modules and a WebGPU adapter
#                                    for Node (the default)
#   bash scripts/setup.sh --test     that, and Chromium for the browser test (`npm test`)
#   bash scripts/setup.sh --ci       every step of --test regardless (a fresh CI machine)
#
# Without --ci it does only what is missing (a fast no-op once set up). Steps:
#   1. npm ci, when node_modules/ is missing.
#   2. A WebGPU adapter for Node (Dawn, npm `webgpu`): probed; when there is none and we are root
#      with apt-get, install the software Vulkan driver (lavapipe). Dawn needs Mesa 25, so on
#      Debian 12 it comes from bookworm-backports (see ../shared/DESIGN.md, "Measured on our
#      hardware").
#   3. --test and --ci: Debian's Chromium at /usr/lib/chromium/chromium, for the browser test,
#      when missing and we are root with apt-get. It brings its own SwiftShader, so it needs no
#      Vulkan driver, and headless it needs none of the packages Debian recommends with it
#      (about 160: avahi, cups, udev, upower, a notification daemon, ...): installed without them.
# Without root or apt-get it installs nothing and says what is missing. Quiet unless a step fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

FORCE=0
BROWSER=0
for arg in "$@"; do
  case "$arg" in
    --main) ;;
    --test) BROWSER=1 ;;
    --ci) FORCE=1; BROWSER=1 ;;
    *) echo "usage: bash scripts/setup.sh [--main | --test | --ci]" >&2; exit 2 ;;
  esac
done

CHROMIUM=/usr/lib/chromium/chromium
export DEBIAN_FRONTEND=noninteractive
if [[ -z "${XDG_RUNTIME_DIR:-}" ]]; then
  export XDG_RUNTIME_DIR="/tmp/xdg-runtime-$(id -u)"
fi
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR" 2>/dev/null || true

LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
say() { echo "setup: $*" >&2; }
# Runs a command with its output kept aside; prints it only if the command fails.
quiet() {
  if ! "$@" >"$LOG" 2>&1; then
    say "FAILED: $*"
    tail -n 60 "$LOG" >&2
    exit 1
  fi
}
can_apt() { [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; }

APT_UPDATED=0
apt_update() {
  if (( APT_UPDATED == 0 )); then
    quiet apt-get update -q
    APT_UPDATED=1
  fi
}
apt_install() {
  quiet apt-get install -y -q -o Dpkg::Use-Pty=0 "$@"
}

# bookworm-backports as DESIGN.md describes: the first stanza of debian.sources (same URIs and
# Signed-By) with Suites: bookworm-backports and Components: main. Rewritten only if it differs.
add_backports() {
  local src=/etc/apt/sources.list.d/debian.sources dst=/etc/apt/sources.list.d/backports.sources stanza
  if [[ -f "$src" ]]; then
    stanza="$(awk '/^[[:space:]]*$/ { if (seen) exit; next } { seen = 1; print }' "$src" |
      sed -E 's/^Suites:.*/Suites: bookworm-backports/; s/^Components:.*/Components: main/')"
  else
    stanza="$(printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' 'Suites: bookworm-backports' \
      'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg')"
  fi
  if [[ ! -f "$dst" ]] || [[ "$(cat "$dst")" != "$stanza" ]]; then
    printf '%s\n' "$stanza" >"$dst"
    APT_UPDATED=0
  fi
}

install_vulkan_driver() {
  local codename=''
  [[ -r /etc/os-release ]] && codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  if [[ "$codename" == bookworm ]]; then
    say "installing the software Vulkan driver (Mesa lavapipe) from bookworm-backports"
    add_backports
    apt_update
    apt_install -t bookworm-backports mesa-vulkan-drivers libvulkan1
  else
    say "installing the software Vulkan driver (Mesa lavapipe; Dawn needs Mesa 25 or newer)"
    apt_update
    apt_install mesa-vulkan-drivers libvulkan1
  fi
}

install_chromium() {
  say "installing Debian's chromium without its recommended packages (for the browser test)"
  apt_update
  apt_install --no-install-recommends chromium
}

npm_ci() {
  [[ -f package-lock.json ]] || { say "package-lock.json is missing"; exit 1; }
  say "npm ci"
  quiet npm ci --no-audit --no-fund --loglevel=error
}

# Prints the adapter Dawn finds (vendor / architecture / device), or fails when there is none.
probe_adapter() {
  [[ -d node_modules/webgpu ]] || return 1
  timeout 60 node --input-type=module -e '
    import { create } from "webgpu";
    const gpu = create([]);
    const a = await gpu.requestAdapter();
    if (!a) process.exit(3);
    const i = a.info;
    console.log([i.vendor, i.architecture, i.device].map((s) => s || "-").join(" / "));
    process.exit(0);
  ' 2>/dev/null
}

if (( FORCE )); then
  if can_apt; then
    install_vulkan_driver
    install_chromium
  else
    say "--ci needs root and apt-get"
    exit 1
  fi
  npm_ci
else
  if [[ ! -f node_modules/.package-lock.json ]]; then npm_ci; fi
  if ! probe_adapter >/dev/null; then
    if can_apt; then
      install_vulkan_driver
    else
      say "WARNING: Dawn finds no WebGPU adapter, and without root and apt-get nothing was installed."
      say "  Install a Vulkan driver (with no GPU: Mesa 25+ mesa-vulkan-drivers, i.e. lavapipe; Debian 12: from bookworm-backports)."
    fi
  fi
  if (( BROWSER )) && [[ ! -x "$CHROMIUM" ]]; then
    if can_apt; then
      install_chromium
    else
      say "NOTE: no Chromium at $CHROMIUM (apt-get install chromium): the browser test will be skipped outside CI."
    fi
  fi
fi

if adapter="$(probe_adapter)"; then
  if (( BROWSER )); then
    say "ready: WebGPU adapter ${adapter}; chromium $([[ -x "$CHROMIUM" ]] && echo present || echo missing)"
  else
    say "ready: WebGPU adapter ${adapter}"
  fi
else
  say "WARNING: still no WebGPU adapter for Node (Dawn): GPU work in Node will fail with [wgprim:no-adapter]."
  (( FORCE )) && exit 1
fi
exit 0
