#!/bin/sh
# Install torch with the build that fits this machine. Used by `make install` and by the Gradescope
# image's setup.sh, so both follow one rule.
#
#   install_torch.sh PIP SPEC [PIP OPTIONS...]      e.g. install_torch.sh .venv/bin/pip torch==2.13.0
#
#   TORCH=auto (default)   the CUDA build where `nvidia-smi -L` lists a GPU, the CPU build everywhere
#                          else (an image with NVIDIA's tools and no GPU or driver lists none)
#   TORCH=cpu | cuda       force one
#   TORCH_INDEX_URL=URL    where the chosen build comes from (default: PyTorch's CPU wheel index for
#                          cpu; pip's own index for cuda, where plain `torch==X` is the CUDA build)
#
# The CPU build comes from PyTorch's CPU index, with a short timeout. Where that index cannot be
# reached (CI that reaches only its package registry), pip's own configured index is used, but only
# if what it would install is not the CUDA build (no nvidia-* packages in its plan): a machine
# without a GPU never downloads the multi-GB CUDA build by accident.
set -eu
PIP="$1"
SPEC="$2"
shift 2
want="${TORCH:-auto}"
if [ "$want" = auto ]; then
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then want=cuda
  else want=cpu; fi
fi
index="${TORCH_INDEX_URL:-}"
case "$want" in
  cuda)
    if [ -n "$index" ]; then
      echo "torch: $SPEC, CUDA build, from $index"
      "$PIP" install -q "$SPEC" --index-url "$index" "$@"
    else
      echo "torch: $SPEC, CUDA build, from pip's own index"
      "$PIP" install -q "$SPEC" "$@"
    fi
    ;;
  cpu)
    index="${index:-https://download.pytorch.org/whl/cpu}"
    # One quick look first: where the index cannot even be reached (no DNS, a closed network), pip
    # would retry it for every package (about 100 warnings) before failing.
    py="$(dirname "$PIP")/python"
    [ -x "$py" ] || py=python3
    if "$py" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=8)" "$index/" >/dev/null 2>&1 \
       && "$PIP" install -q --timeout 20 --retries 1 "$SPEC" --index-url "$index" "$@"; then
      echo "torch: $SPEC, CPU build, from $index"
    else
      echo "torch: $index could not be used; trying pip's own index, for a CPU build only" >&2
      if ! plan=$("$PIP" install --dry-run --ignore-installed "$SPEC" "$@" 2>&1); then
        echo "$plan" | tail -5 >&2
        echo "error: torch could not be installed from $index nor from pip's own index" >&2
        exit 1
      fi
      if echo "$plan" | grep -i "would install" | grep -qi "nvidia-"; then
        echo "error: pip's own index offers only the CUDA build of $SPEC (several GB) and this machine" \
             "has no GPU. Set TORCH_INDEX_URL to a CPU wheel index, or TORCH=cuda to install it anyway." >&2
        exit 1
      fi
      "$PIP" install -q "$SPEC" "$@"
      echo "torch: $SPEC, CPU build, from pip's own index"
    fi
    ;;
  *)
    echo "error: TORCH must be auto, cpu or cuda (not '$want')" >&2
    exit 2
    ;;
esac
