#!/bin/bash
# Build the pipeline-statistics Vulkan layer (ruda_vkstats.c) into DIR (default build/vkstats)
# with its manifest. Needs a C compiler and the Vulkan headers (Debian: libvulkan-dev). Enable
# it for a process with: VK_LAYER_PATH=DIR VK_INSTANCE_LAYERS=VK_LAYER_RUDA_vkstats
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-build/vkstats}
mkdir -p "$dir"
${CC:-cc} -O2 -fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror \
  -o "$dir/libruda_vkstats.so" "$here/ruda_vkstats.c"
cat > "$dir/ruda_vkstats.json" <<'JSON'
{
  "file_format_version": "1.1.2",
  "layer": {
    "name": "VK_LAYER_RUDA_vkstats",
    "type": "GLOBAL",
    "library_path": "./libruda_vkstats.so",
    "api_version": "1.3.0",
    "implementation_version": "1",
    "description": "ruda: records each compute pipeline's executable statistics"
  }
}
JSON
echo "$dir"
