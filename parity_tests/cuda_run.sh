#!/usr/bin/env bash
# jtport's parity on a CUDA GPU (not part of CI): Jittor with use_cuda=1 against torch.
#
#   parity_tests/cuda_run.sh [OUT_DIR]        (from a checkout, on the GPU machine)
#
# 1. per-API cases (parity_tests/api/cuda_cases.txt, ~110 across IEEE division and specials,
#    reductions, matmul, convolution, pooling with ties, norms, resampling, views written in
#    place): torch on CUDA (TF32 off) vs Jittor on CUDA, each case under a timeout
#    (python -m parity_tests.api.device_run);
# 2. the same run's elementwise/IEEE/reduction cases again with Jittor's CUDA kernels compiled
#    WITHOUT --use_fast_math (--precise), which Jittor 1.3.11 adds to every nvcc command;
# 3. one model spec, examples/upstream/neus.toml (a small MLP: few kernels), with the Jittor
#    side on CUDA (its torch side runs on the CPU), when SPEC_TORCH_ROOT/SPEC_JITTOR_ROOT name
#    an upstream NeuS checkout and its conversion (`jtport convert NeuS -o NeuS_jittor`).
# Everything is written to OUT_DIR (default build/parity/cuda_run) as it runs: log, api_*.jsonl
# (one line a case), api_*.json (summaries), neus.log.
#
# A machine with no network and no Jittor (a lent GPU box whose python3 has torch): put wheels
# for ITS Python into WHEELS (default .gpu/whl), made where pip works, e.g. for Python 3.12:
#   pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d .gpu/whl \
#     libcst==1.9.0 numpy==1.26.4 astunparse==1.6.3
#   pip wheel --no-deps -w .gpu/whl jittor==1.3.11.0
# They are installed with --target into /tmp/jtport-site (numpy 1.x for Jittor's process only:
# the torch side runs with its own PYTHONPATH). python3 then serves as .venv-torch too.
# CASES names another selection of case ids. BUDGET_S (default 530) bounds the whole run; each
# step gets what is left. DEVICE=cpu runs the same steps with CUDA off (torch on the CPU too): a
# dry run of this script on a machine without a GPU.
set -u
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
OUT=${1:-build/parity/cuda_run}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
T0=$(date +%s)
el() { echo "[+$(( $(date +%s) - T0 ))s] $*"; }
left() { echo $(( ${BUDGET_S:-530} - ($(date +%s) - T0) )); }
PY=${PYTHON:-python3}
DEVICE=${DEVICE:-cuda}
CASES=${CASES:-parity_tests/api/cuda_cases.txt}
USE_CUDA=$([ "$DEVICE" = cpu ] && echo 0 || echo 1)

el "start in $PWD"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || el "no nvidia-smi"
nvcc --version | tail -1; $PY --version

if ! $PY -c "import importlib.util as u, sys; sys.exit(not (u.find_spec('jittor') and u.find_spec('libcst')))"; then
  WHEELS=${WHEELS:-.gpu/whl}
  el "installing $(ls "$WHEELS"/*.whl | wc -l) wheels from $WHEELS into /tmp/jtport-site"
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/jtport-site \
    "$WHEELS"/*.whl || { el "wheel install failed"; exit 1; }
  export PYTHONPATH=/tmp/jtport-site:$PWD
else
  export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
fi
if [ ! -x .venv-torch/bin/python ]; then  # the torch side's interpreter: this python3 (it has torch)
  mkdir -p .venv-torch/bin
  printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v $PY)" > .venv-torch/bin/python; chmod +x .venv-torch/bin/python
fi

# CUDA 13 removed two cudaDeviceProp fields Jittor 1.3.11's helper_cuda.h reads: the fix `jtport doctor` prints
HEADER=$($PY -c "import porter.machine.cuda_extras as c, os; print(os.path.join(c.jittor_source_dir(), c.HELPER_CUDA))")
if [ "$DEVICE" != cpu ] && grep -q "deviceProp\.computeMode\|deviceProp\.clockRate" "$HEADER"; then
  el "patching $HEADER for CUDA 13"
  sed -i 's/deviceProp\.computeMode/cudaComputeModeDefault/g; s/deviceProp\.clockRate/1000000/g' "$HEADER"
fi
# porter.machine.env decides the rest (offline: use_cutt/use_cutlass/use_nccl=0; conv_opt=1 without cuDNN 8)
$PY -m porter.machine.env
export $($PY -m porter.machine.env --exports)

el "Jittor on $DEVICE: core build and a smoke test"
USE_CUDA=$USE_CUDA timeout "$(left)" $PY - <<'EOF' || { el "Jittor cannot run on $DEVICE here"; $PY -m porter.cli doctor; exit 2; }
import os, shims, jittor as jt, numpy as np
print("has_cuda", jt.has_cuda, "nvcc_flags", jt.flags.nvcc_flags)
assert jt.has_cuda or os.environ["USE_CUDA"] == "0", "Jittor found no CUDA"
x, w = jt.randn(2, 8, 16, 16), jt.randn(4, 8, 3, 3)
jt.flags.use_cuda = int(os.environ["USE_CUDA"])
y = jt.nn.conv2d(x, w, padding=1).numpy()
jt.flags.use_cuda = 0
print("conv2d on the device vs CPU, max abs", float(np.abs(jt.nn.conv2d(x, w, padding=1).numpy() - y).max()))
EOF

el "per-API cases on $DEVICE, Jittor's own CUDA flags (--use_fast_math)"
timeout "$(left)" $PY -m parity_tests.api.device_run --out "$OUT" --device "$DEVICE" --cases "$CASES" \
  --case-timeout "${CASE_TIMEOUT:-90}" --warm-timeout "${WARM_TIMEOUT:-240}"
el "rc=$?"

if [ "$DEVICE" != cpu ] && [ "$(left)" -gt 100 ]; then
  el "elementwise, IEEE and reduction cases, CUDA kernels without --use_fast_math"
  grep -E '^(ieee|pointwise|reduce):' "$CASES" > "$OUT/cuda_precise_cases.txt"
  timeout "$(( $(left) - 60 ))" $PY -m parity_tests.api.device_run --out "$OUT" --device cuda --precise \
    --cases "$OUT/cuda_precise_cases.txt" --case-timeout "${CASE_TIMEOUT:-90}" --warm-timeout 120
  el "rc=$?"
fi

if [ -n "${SPEC_TORCH_ROOT:-}" ] && [ "$(left)" -gt 40 ]; then
  el "spec examples/upstream/neus.toml, Jittor on $DEVICE"
  use_cuda=$USE_CUDA timeout "$(left)" $PY -m porter.cli parity examples/upstream/neus.toml \
    --torch-root "$SPEC_TORCH_ROOT" --jittor-root "$SPEC_JITTOR_ROOT" > "$OUT/neus.log" 2>&1
  el "rc=$?"; grep -v "^.\[38;5;2m\[i \|Compiling Operators" "$OUT/neus.log" | tail -40
fi
el done
