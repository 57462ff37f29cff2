#!/usr/bin/env bash
# Regenerates test/corpus/ from the shared corpus (corpus/README.md there
# describes the files): every <model>.graph.json becomes a binary
# test/corpus/<model>.pb (converted and validated by partition_tool itself),
# every <model>.ref.json is re-serialized compactly, and op_classes.json and
# the *.flow.dimacs networks are copied unchanged. scale/ is mirrored.
#
# Usage: scripts/import_corpus.sh [SOURCE_DIR] [TOOL]
#   SOURCE_DIR  default /work/shared/corpus
#   TOOL        default build/app/partition_tool (build it first)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-/work/shared/corpus}
tool=${2:-$root/build/app/partition_tool}
dst=$root/test/corpus

[[ -d $src ]] || { echo "import_corpus: no corpus at $src" >&2; exit 2; }
[[ -x $tool ]] || { echo "import_corpus: build $tool first" >&2; exit 2; }

for sub in "" scale; do
  mkdir -p "$dst/$sub"
  for graph in "$src/$sub"/*.graph.json; do
    [[ -e $graph ]] || continue
    model=$(basename "$graph" .graph.json)
    "$tool" convert "$graph" "$dst/$sub/$model.pb"
    ref="$src/$sub/$model.ref.json"
    if [[ -e $ref ]]; then
      python3 -c 'import json, sys
with open(sys.argv[1]) as f: data = json.load(f)
with open(sys.argv[2], "w") as f: json.dump(data, f, separators=(",", ":"))' "$ref" "$dst/$sub/$model.ref.json"
    fi
  done
  for extra in "$src/$sub"/*.flow.dimacs "$src/$sub"/op_classes.json; do
    [[ -e $extra ]] && install -m 0644 "$extra" "$dst/$sub/"
  done
done
echo "import_corpus: wrote $(find "$dst" -type f ! -name README.md | wc -l) files under $dst"
