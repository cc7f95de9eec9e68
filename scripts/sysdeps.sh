#!/usr/bin/env bash
# Installs the Debian packages Qt, OpenGL (Mesa) and Xvfb need, only those that are missing.
# As root it runs apt-get; otherwise it prints the exact command and fails, because the editor
# and the GUI tests cannot run without them.
set -euo pipefail

packages=(
  libgl1 libegl1 libgl1-mesa-dri libfontconfig1 libxkbcommon0 libxkbcommon-x11-0 libglib2.0-0
  libdbus-1-3 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-image0
  libxcb-randr0 libxcb-render-util0 libxcb-xinerama0 libxcb-xkb1 xvfb xauth
)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing=()
for p in "${packages[@]}"; do
  # Debian 13 renamed some libraries with a t64 suffix; either name satisfies the need.
  installed "$p" || installed "${p}t64" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "rigedit needs these Debian packages: ${missing[*]}" >&2
  echo "Install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "Installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
resolved=()
for p in "${missing[@]}"; do
  if apt-cache show "$p" >/dev/null 2>&1; then resolved+=("$p"); else resolved+=("${p}t64"); fi
done
apt-get install -y -qq --no-install-recommends "${resolved[@]}"
