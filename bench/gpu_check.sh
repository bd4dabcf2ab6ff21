#!/usr/bin/env bash
# Issue 12's GPU checks, prepared for one call on a machine with an NVIDIA GPU. First run on an H200
# on 2026-12-04 (README's GPU section has its figures). Two steps:
#
#   here, with the package registry (once):   bench/gpu_check.sh prepare
#       downloads into .whl/ (ignored through .git/info/exclude) the wheels the GPU image lacks
#       (Python 3.12, manylinux x86_64: otter-grader and the parts of its tree that grading imports,
#       pydantic, nbformat, pyseccomp, jsonschema, ...) and Debian's bubblewrap package; ~25 MB.
#   there, in one device call, carrying .whl:   bench/gpu_check.sh run
#       (e.g. run(command="bash bench/gpu_check.sh run", carry=[".whl"], timeout_s=540))
#
# `run` uses the GPU image's python3 (it holds CUDA torch; nothing can be installed from the network
# there), installs the wheels into it and puts this checkout on its path (a .pth file: the sandbox's
# `python -I` ignores PYTHONPATH), then:
#   1. facts: GPU, torch, bwrap, libseccomp, and one CUDA worker's `ready` facts at each level; then
#      bench/cuda_sandbox_probe.py: which piece of a worker's lock-down stops CUDA where it fails
#   2. make test-gpu's tests (tests/test_gpu.py -m gpu) + this issue's CPU-side tests
#   3. a batch of every assignment's examples, CPU-only course copy vs the CUDA course, same -j:
#      the issue's bound is CUDA adding at most 25%; nvidia-smi sampled for CUDA processes alive
#   4. the 16-core table (issue 20, CPU-only course): bench/bench_batch.py's start-up, a class at -j1
#      and -j2 (efficiency counting start-up), scaling -j 1..16, then ours against `otter run`
#   5. the CPU-side CUDA policy and sandbox tests (they also run in CI, so last)
# GPU_CHECK_NO_TABLE=1 leaves out 4 and 5 (a second visit: the table was measured on the first);
# GPU_CHECK_NO_PROBE=1 leaves out the probe of step 1 (its answer: worker.CUDA_NEEDS_PROC).
# GPU_CHECK_BREAKDOWN=1 adds bench/breakdown.py's start-up at -j1 and -j2 and its per-submission
# part (20 full marks, -j1), CPU-only course, after step 3.
# Everything goes to $OUT/gpu_check.log (or /tmp/gpu_check.log), a summary at its end.
set -uo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
cd "$HERE"
WHEELS="${GPU_WHEELS:-$HERE/.whl}"
JOBS="${GPU_CHECK_JOBS:-12}"

prepare() {
  mkdir -p "$WHEELS"
  if [ "$WHEELS" = "$HERE/.whl" ]; then   # travels with `carry`, never committed
    grep -qx '/.whl/' .git/info/exclude 2>/dev/null || { mkdir -p .git/info; echo '/.whl/' >> .git/info/exclude; }
  fi
  # Versions as in this project's CI venv; what the GPU image already has (KINDS.md) is left out.
  local pkgs=(
    otter-grader==7.0.0 pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0
    typing-inspection==0.4.5 nbformat==5.11.1 fastjsonschema==2.22.3 jsonschema==4.26.0
    jsonschema-specifications==2025.9.1 referencing==0.37.0 rpds-py==2026.9.1 traitlets==5.16.1
    jupyter-core==5.9.1 platformdirs==4.14.9 pyseccomp==0.1.2 dill==0.4.1 fica==0.4.1
    python-frontmatter==1.3.0 python-on-whales==0.81.0 jupytext==1.19.6 mdit-py-plugins==0.7.0
    nbconvert==7.17.2 nbclient==0.11.0 jupyter-client==8.10.0 pyzmq==27.3.0 tornado==6.6.1
    bleach==6.4.0 tinycss2==1.5.1 webencodings==0.6.1 beautifulsoup4==4.15.0 soupsieve==4.1.3
    defusedxml==0.7.1 mistune==3.4.0 pandocfilters==1.5.1 jupyterlab-pygments==0.3.0
    ipython==9.18.1 ipython-pygments-lexers==1.1.1 matplotlib-inline==0.2.2
    prompt-toolkit==3.0.53 wcwidth==0.9.4 jedi==0.20.1 parso==0.8.7 pexpect==4.9.0
    ptyprocess==0.7.0 stack-data==0.6.3 executing==2.3.0 asttokens==3.0.2 pure-eval==0.2.4
    ipywidgets==8.1.9 widgetsnbextension==4.0.16 jupyterlab-widgets==3.0.17 comm==0.2.3 ipylab==1.1.0
    ipykernel==7.4.0 debugpy==1.8.22 nest-asyncio2==1.7.4   # otter run executes notebooks in a kernel
  )
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d "$WHEELS" "${pkgs[@]}" || exit 1
  if ! ls "$WHEELS"/bubblewrap_*.deb >/dev/null 2>&1; then
    (cd "$WHEELS" && apt-get download bubblewrap strace libunwind8 >/dev/null 2>&1) \
      || echo "note: no bubblewrap .deb (apt-get download failed): the bwrap level runs only if the image has bwrap"
  fi
  du -sh "$WHEELS"
}

setup() {   # the wheels and bwrap, into the GPU image's interpreter (PATH: bwrap from the .deb)
  local PY="$1"
  if [ -z "${REHEARSE:-}" ]; then
    # the wheels, into the interpreter the sandbox runs (its own site-packages: `python -I` sees them)
    PIP_BREAK_SYSTEM_PACKAGES=1 "$PY" -m pip install -q --no-index --no-deps --no-compile "$WHEELS"/*.whl || { echo "wheels did not install"; exit 4; }
    local site
    site="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    echo "$HERE" > "$site/attention_autograder_checkout.pth"
  fi
  if ! command -v bwrap >/dev/null && ls "$WHEELS"/bubblewrap_*.deb >/dev/null 2>&1; then
    dpkg -x "$WHEELS"/bubblewrap_*.deb /tmp/bwrap-pkg && export PATH="/tmp/bwrap-pkg/usr/bin:$PATH"
  fi
  echo "bwrap: $(command -v bwrap || echo none)"
}

run() {
  local out="${OUT:-/tmp}" log
  log="$out/gpu_check.log"
  mkdir -p "$out"
  exec > >(tee "$log") 2>&1
  export PYTHONUNBUFFERED=1
  local PY="${GPU_PYTHON:-python3}" summary=()
  say() { echo "== $*"; }
  note() { summary+=("$*"); echo ">> $*"; }

  say "facts"
  if [ -z "${REHEARSE:-}" ]; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || { echo "no nvidia-smi"; exit 3; }
  fi
  uname -r; id -u
  "$PY" -c 'import sys, torch; print(sys.version.split()[0], torch.__version__, "cuda", torch.version.cuda, torch.cuda.is_available())' \
    || exit 3
  setup "$PY"
  if [ -n "${SETUP_ONLY:-}" ]; then return 0; fi
  "$PY" -c 'import ctypes.util; print("libseccomp:", ctypes.util.find_library("seccomp"))'
  "$PY" - <<'EOF'
import os, time
from autograder.sandbox.isolation import BWRAP_PROBLEM, bwrap_works
from autograder.results import Isolation
from autograder.sandbox import SandboxPolicy, Zygote
levels = [Isolation.bwrap] if bwrap_works() else []
print("bwrap usable:", bool(levels), BWRAP_PROBLEM[-1:] if BWRAP_PROBLEM else "")
levels += [Isolation.fallback, Isolation.container] if os.geteuid() == 0 else []
for level in levels + [Isolation.rlimits]:
    z = Zygote(level); z.start()
    try:
        for _ in range(3):
            t = time.perf_counter(); s = z.spawn(SandboxPolicy(cuda=True)); spawn = time.perf_counter() - t
            t = time.perf_counter(); s.close(); close = time.perf_counter() - t
            print(f"{level.value}: ready {s.facts} spawn {spawn:.3f} s, close+exit {close:.3f} s")
        t = time.perf_counter(); s = z.spawn(SandboxPolicy()); spawn = time.perf_counter() - t; s.close()
        print(f"{level.value}: without CUDA spawn {spawn:.3f} s")
    finally:
        z.close()
EOF

  if [ -z "${GPU_CHECK_NO_PROBE:-}" ]; then
  say "which part of a worker's lock-down stops CUDA (bench/cuda_sandbox_probe.py; the first run's bwrap and rlimits failed)"
  # the image has no strace: Debian's, carried in $WHEELS (prepare), traces the failed system calls
  if ! command -v strace >/dev/null && ls "$WHEELS"/strace_*.deb >/dev/null 2>&1; then
    for deb in "$WHEELS"/strace_*.deb "$WHEELS"/libunwind8_*.deb; do dpkg -x "$deb" /tmp/strace-pkg; done
    printf '#!/bin/sh\nLD_LIBRARY_PATH=/tmp/strace-pkg/usr/lib/x86_64-linux-gnu exec /tmp/strace-pkg/usr/bin/strace "$@"\n' \
      > /tmp/strace-pkg/strace && chmod +x /tmp/strace-pkg/strace
  fi
  STRACE="$(command -v strace || { [ -x /tmp/strace-pkg/strace ] && echo /tmp/strace-pkg/strace; })" OUT="$out" \
    timeout 240 "$PY" bench/cuda_sandbox_probe.py || note "cuda_sandbox_probe: FAILED or timed out"
  fi

  say "batch of the examples, -j $JOBS: CPU-only course copy vs the CUDA course"
  local cpu_course=/tmp/cpu-course
  rm -rf "$cpu_course" /tmp/out-cpu /tmp/out-cuda; mkdir -p "$cpu_course"   # a batch resumes: start empty
  cp -r assignments reference "$cpu_course/"
  sed 's/^devices: .*/devices: [cpu]/' grading.yml > "$cpu_course/grading.yml"
  ( while true; do nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | grep -c . ; sleep 0.5; done ) \
    > /tmp/cuda-apps.txt & local sampler=$!
  local slug t0 t1 t2 total_cpu=0 total_cuda=0   # milliseconds (no bc there, perhaps)
  ms() { echo $(( $(date +%s%N) / 1000000 )); }
  for slug in sdpa-from-scratch scaled-attention attention-pipeline; do
    t0=$(ms)
    AUTOGRADER_COURSE="$cpu_course" timeout 120 "$PY" -m autograder.cli batch "examples/submissions/$slug" -a "$slug" \
      -o "/tmp/out-cpu/$slug" -j "$JOBS" --seed 5 | tail -1
    t1=$(ms)
    timeout 120 "$PY" -m autograder.cli batch "examples/submissions/$slug" -a "$slug" -o "/tmp/out-cuda/$slug" \
      -j "$JOBS" --seed 5 | tail -1
    t2=$(ms)
    total_cpu=$(( total_cpu + t1 - t0 )); total_cuda=$(( total_cuda + t2 - t1 ))
    note "batch $slug: cpu-only $(( t1 - t0 )) ms, with cuda $(( t2 - t1 )) ms"
    "$PY" - "$slug" <<'EOF'
import json, sys
from pathlib import Path
slug = sys.argv[1]
files = sorted(Path(f"/tmp/out-cuda/{slug}/results").glob("*.json"))
cuda = [t for f in files for t in json.loads(f.read_text())["tests"] if "[cuda]" in t["name"]]
infra = {json.loads(f.read_text())["extra_data"].get("infra") for f in files} - {None}
gpu_only = sum("misconception:gpu_only_failure" in t["tags"] for t in cuda)
print(f"{slug}: {len(files)} results, {len(cuda)} CUDA cases, {sum(t['output'] == 'passed' for t in cuda)} passed, "
      f"{sum('not_run' in t['tags'] for t in cuda)} not run, {gpu_only} gpu_only_failure; infra: {infra or 'none'}")
# the CPU cases must score the same with and without the GPU: the same seed, the same submissions
def cpu_cases(folder):
    return {f.name: sorted((t["name"], t["score"]) for t in json.loads(f.read_text())["tests"] if "[cuda]" not in t["name"])
            for f in Path(folder).glob("*.json")}
cpu_only, with_cuda = cpu_cases(f"/tmp/out-cpu/{slug}/results"), cpu_cases(f"/tmp/out-cuda/{slug}/results")
differ = [name for name in cpu_only if cpu_only[name] != with_cuda.get(name)]
print(f"{slug}: CPU cases scored alike with and without CUDA in {len(cpu_only) - len(differ)} of {len(cpu_only)}"
      + (f"; differ: {', '.join(differ[:5])}" if differ else ""))
EOF
  done
  kill "$sampler" 2>/dev/null
  note "batches: cpu-only ${total_cpu} ms, with cuda ${total_cuda} ms, ratio $(( 1000 * total_cuda / (total_cpu > 0 ? total_cpu : 1) ))/1000 (issue 12: at most 1250/1000)"
  note "CUDA processes alive at once (nvidia-smi samples): max $(sort -n /tmp/cuda-apps.txt | tail -1), after the batches: $(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | grep -c .)"

  if [ -n "${GPU_CHECK_BREAKDOWN:-}" ]; then
  say "where the start-up goes at -j1 and -j2 (bench/breakdown.py, CPU-only course)"
  for j in 1 2; do
    AUTOGRADER_COURSE="$cpu_course" timeout 120 "$PY" bench/breakdown.py --skip submissions -j "$j" --runs 3 \
      || note "breakdown -j$j: FAILED or timed out"
  done
  AUTOGRADER_COURSE="$cpu_course" timeout 120 "$PY" bench/breakdown.py --skip startup -n 20 \
    || note "breakdown per submission: FAILED or timed out"
  fi

  say "make test-gpu (tests/test_gpu.py) at the levels available"
  if timeout 240 "$PY" -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py -rs -s --durations=5; then note "test-gpu: passed"
  else note "test-gpu: FAILED (see above)"; fi
  if [ -n "${GPU_CHECK_NO_TABLE:-}" ]; then :; else
  say "the 16-core table (issue 20): CPU-only course, bench/bench_batch.py"
  AUTOGRADER_COURSE="$cpu_course" timeout "${GPU_CHECK_BENCH_S:-200}" "$PY" bench/bench_batch.py --skip otter \
    --startup-runs 3 --class-n 40 --class-repeat 2 --scaling-n "${GPU_CHECK_SCALING_N:-64}" \
    --scaling-j ${GPU_CHECK_SCALING_J:-1 2 4 8 16} --scaling-repeat 1 \
    && note "bench_batch: see the table above" || note "bench_batch: FAILED or timed out"
  say "against otter run, 2 at a time, 24 submissions, once (CPU-only course)"
  AUTOGRADER_COURSE="$cpu_course" timeout "${GPU_CHECK_OTTER_S:-120}" "$PY" bench/bench_batch.py \
    --skip startup,class,scaling -n 24 -j 2 --otter-repeat 1 \
    && note "otter: see the ratio above" || note "otter: FAILED or timed out"
  fi

  if [ -z "${GPU_CHECK_NO_TABLE:-}" ]; then
  say "this issue's CPU-side tests, on the GPU machine"
  if timeout 200 "$PY" -m pytest -q -p no:cacheprovider tests/test_cuda_policy.py tests/test_sandbox.py -k "cuda or close or blocked" -rs; then
    note "cuda policy + sandbox tests: passed"
  else note "cuda policy + sandbox tests: FAILED"; fi
  fi
  say "summary"
  printf '%s\n' "${summary[@]}"
}

case "${1:-}" in
  prepare) prepare ;;
  run) run ;;
  # the same on a machine without a GPU, with an interpreter that already has everything
  # (GPU_PYTHON=.venv/bin/python): checks the script itself, not the GPU
  rehearse) REHEARSE=1 run ;;
  # only the wheels and bwrap, for a command of one's own after it: `. bench/gpu_check.sh setup; ...`
  setup) SETUP_ONLY=1 run ;;
  *) echo "usage: bench/gpu_check.sh prepare|run|rehearse|setup" >&2; exit 2 ;;
esac
