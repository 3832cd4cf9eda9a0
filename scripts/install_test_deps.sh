#!/usr/bin/env bash
# What the tests need beyond the Python packages of the `test` extra: lavapipe (Mesa's software
# Vulkan driver) and the Vulkan loader, so the WebGPU backend and the WGSL kernels run on a
# machine without a GPU (Debian: mesa-vulkan-drivers, libvulkan1).
# Installed only when missing; needs root (as CI and the development machines run).
set -euo pipefail
missing=()
for pkg in mesa-vulkan-drivers libvulkan1; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install ${missing[*]} (Debian) to run the WebGPU tests on lavapipe" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# wgpu-native wants a runtime directory; a headless CI has none.
mkdir -p /tmp/ruda-xdg && chmod 700 /tmp/ruda-xdg
