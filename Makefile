# jtport: two virtualenvs that never share a process.
#   .venv        jittor + libcst + jtport (editable) + pytest + ruff: converter, shims, ported code
#   .venv-torch  torch + torchvision + numpy: the torch references only
# Jittor's import-time settings for this machine come from porter/machine/env.py (one place).

PY        ?= python3
VENV      := .venv
TVENV     := .venv-torch
# deferred (=): decided when a recipe runs, after `venvs` may have installed oneDNN (use_mkl)
JT_ENV     = $(shell $(PY) -m porter.machine.env --exports)
RUN        = env $(JT_ENV) PYTHONUNBUFFERED=1
JTPY       = $(RUN) $(VENV)/bin/python
JTPORT     = $(RUN) $(VENV)/bin/jtport
PYTEST_ARGS ?=
JT_VERSION = $(shell $(PY) -c 'from porter.machine.env import JITTOR_VERSION; print(JITTOR_VERSION)')

.PHONY: all demo test test-full unit lint parity docs bench doctor clean venvs mpi wheel-test

all: test

# The two environments build side by side: Jittor's first-import compile (CPU) overlaps the
# torch download (network).  Then oneDNN from PyPI into Jittor's cache (a no-op once there;
# also in venvs built before it existed), which turns use_mkl on (porter/machine/env.py).  Without it
# (no index, another platform) porter/machine/env.py keeps use_mkl=0: slower, but demo and test still run.
venvs:
	@$(MAKE) --no-print-directory -j2 --output-sync=target $(VENV)/.installed $(TVENV)/.installed
	@$(VENV)/bin/python -m porter.cli install-onednn || echo "make venvs: oneDNN is not installed \
	(the reason is above), so Jittor runs with use_mkl=0: its own CPU convolutions, 10-50x slower \
	than oneDNN's. To retry: $(VENV)/bin/jtport install-onednn [--wheels DIR]"

# Jittor itself goes to one folder per Jittor and Python version outside the checkout
# (-m porter.machine.env --jittor-site), which .venv reads through a .pth file: Jittor keys its compile
# cache on the path of its own files, so a Jittor inside .venv would recompile its core and every
# kernel in each new checkout (CI's fresh clone included).  Installed into a temporary folder and
# renamed, so two checkouts building at once do not mix.
$(VENV)/.installed: pyproject.toml
	$(PY) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q "jittor==$(JT_VERSION)" "pytest>=7" "ruff>=0.4"
	$(VENV)/bin/pip uninstall -q -y jittor
	@site=$$($(VENV)/bin/python -m porter.machine.env --jittor-site); \
	if [ ! -f "$$site/.complete" ]; then \
	  tmp="$$site.tmp.$$$$"; rm -rf "$$tmp"; \
	  $(VENV)/bin/pip install -q --no-deps --target "$$tmp" "jittor==$(JT_VERSION)" && touch "$$tmp/.complete" && \
	  { mkdir -p "$$(dirname "$$site")"; mv -T "$$tmp" "$$site" 2>/dev/null || rm -rf "$$tmp"; }; \
	fi; \
	test -f "$$site/.complete" || { echo "Jittor could not be installed in $$site"; exit 1; }; \
	echo "$$site" > "$$($(VENV)/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/jtport-jittor.pth"; \
	echo "Jittor $(JT_VERSION) at $$site (shared by every checkout)"
	$(VENV)/bin/pip install -q -e ".[test]"
	@echo "warming Jittor's compile cache (first time only: ~2 minutes)"
	$(JTPY) -c "import shims, jittor as jt; (jt.ones(2) * 2).sync(); print('jittor', jt.__version__, 'ready')"
	touch $@

$(TVENV)/.installed: requirements-torch.txt
	$(PY) -m venv $(TVENV)
	$(TVENV)/bin/pip install -q --upgrade pip
	$(TVENV)/bin/pip install -q -r requirements-torch.txt
	$(TVENV)/bin/python -c "import torch, torchvision; print('torch', torch.__version__, 'torchvision', torchvision.__version__)"
	touch $@

doctor: $(VENV)/.installed
	$(JTPORT) doctor

demo: venvs
	$(JTPORT) doctor
	$(JTPORT) convert examples/demo_project -o build/demo_jittor --overwrite --report build/demo_report.md
	cd build/demo_jittor && $(RUN) ../../$(VENV)/bin/python train.py
	$(JTPORT) parity --run examples/demo_project/train.py build/demo_jittor/train.py --steps 3 --html build/demo_parity.html --out build/demo_parity

# OpenMPI for the distributed tests (Jittor's data parallel runs under mpirun): installed from
# Debian's packages when missing and root; otherwise those tests skip and say why.  Before the
# venvs, so Jittor's first import builds its MPI ops with the rest.
mpi:
	@command -v mpirun >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing OpenMPI (openmpi-bin libopenmpi-dev) for the distributed tests"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openmpi-bin libopenmpi-dev) >/dev/null 2>&1 \
	      || echo "OpenMPI could not be installed: the distributed tests will skip"; \
	  else echo "OpenMPI (mpirun) is missing and this is not root: the distributed tests will skip"; fi; }

# the fast loop: every test not marked slow (whole-model and whole-script suites, the heaviest
# unit tests, seven of eight per-API cases); test-full runs everything, as CI does (.ci/run).
# --durations: a log says where a run's time went
test: mpi venvs lint
	$(JTPY) -m pytest -m "not slow" --durations=20 $(PYTEST_ARGS)

test-full: mpi venvs lint
	$(JTPY) -m pytest --durations=40 $(PYTEST_ARGS)

# ruff, configured in pyproject.toml ([tool.ruff]: line length 120, pyflakes + pycodestyle errors);
# installed here too for a .venv built before ruff was one of its packages
lint: $(VENV)/.installed
	@$(VENV)/bin/python -m ruff --version >/dev/null 2>&1 || $(VENV)/bin/pip install -q "ruff>=0.4"
	$(VENV)/bin/python -m ruff check .

unit: $(VENV)/.installed
	$(JTPY) -m pytest tests $(PYTEST_ARGS)

# jtport as users get it: the wheel installed (not editable) into a fresh virtualenv, then
# convert, doctor and parity run outside the checkout (also part of unit and test)
wheel-test: venvs
	$(JTPY) -m pytest tests/test_wheel.py $(PYTEST_ARGS)

# the full proof runs every suite with Jittor's op fusion on, as users run, and the parity_only
# re-measurements of documented gaps (parity_tests/conftest.py)
parity: venvs
	JTPORT_PARITY_FUSE=1 JTPORT_PARITY_FULL=1 $(JTPY) -m parity_tests.run

docs: venvs
	$(JTPY) -m porter.prove.coverage_doc

bench: venvs
	$(JTPY) bench/run_all.py

clean:
	rm -rf build
