# The README's two commands: `make demo` and `make test` (docs/tutorial/index.md says more).  Both set up .venv from nothing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow test-kernels bench clean octave lint docs

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "crossdyn needs Python >= 3.11, found " + sys.version)'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[all,dev,bench,latex,docs]'  # [all]: every engine and feature extra, so CI exercises them
	# real robot files for the robot-file tests, their asset folders only: crossdyn never imports these packages, so
	# their own dependencies (OpenCV, pynput, the Robotics Toolbox, ...) are not installed (--no-deps)
	$(PY) -m pip install --quiet --no-deps 'robosuite==1.5.2' 'rtb-data==2.0.0'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/crossdyn demo --out reports/demo

# JAX starts threads when it is imported; the comparison tests fork worker processes.  The JAX tests run in a
# pytest session of their own so that no test process forks after importing JAX.
JAX_TESTS := tests/test_jax_model.py tests/test_mjx.py tests/test_mjx_files.py tests/test_batch.py

# The docs' examples share a namespace and a folder per page: --dist loadfile keeps each page (and each test file)
# on one worker, in order.  (--dist loadgroup with xdist_group marks did not: with pytest 9.2 and xdist 3.8 the
# group suffix never reached the scheduler and a page's examples were spread over both workers.)
XDIST := -n 2 --dist loadfile

# Two tiers: `make test` (the README's command) runs everything not marked slow; `make test-slow` runs the checks
# too slow for that budget (tests marked @pytest.mark.slow: long sweeps, 50-dataset identification coverage, ...).
# .ci/run runs both, and `make lint`.
test: $(STAMP) octave
	$(PY) -m pytest -q $(XDIST) -m "not slow" $(addprefix --ignore=,$(JAX_TESTS))
	$(PY) -m pytest -q $(XDIST) -m "not slow" $(JAX_TESTS)

test-slow: $(STAMP) octave
	$(PY) -m pytest -q $(XDIST) -m slow $(addprefix --ignore=,$(JAX_TESTS)) || [ $$? -eq 5 ]
	$(PY) -m pytest -q $(XDIST) -m slow $(JAX_TESTS) || [ $$? -eq 5 ]

# The numerically sensitive tests — estimators (cvxpy's statuses), event location, the references' integrators,
# everything that compares printed numbers (README, tutorials) — rerun under other OpenBLAS kernels than the one this
# CPU picks (scripts/blas_kernels.py lists those it can execute): a fresh `make test` failed twice on another CPU
# because a printed number or a solver's status changed with the kernel.  .ci/run runs it.
KERNEL_TESTS := tests/test_consistent_solvers.py tests/test_identification.py tests/test_identification_armature.py \
	tests/test_identification_spatial.py tests/test_events.py tests/test_limits_reference.py \
	tests/test_contact_reference.py tests/test_analytic.py tests/test_readme.py docs/tutorial

test-kernels: $(STAMP) octave
	@kernels="$$($(PY) scripts/blas_kernels.py)"; [ -n "$$kernels" ] || echo "no other OpenBLAS kernel to try here"; \
	for k in $$kernels; do \
	  echo "OPENBLAS_CORETYPE=$$k: $(KERNEL_TESTS)"; \
	  OPENBLAS_CORETYPE=$$k $(PY) -m pytest -q $(XDIST) -m "not slow" $(KERNEL_TESTS) || exit 1; \
	done

# System packages the tests use, each installed when missing and possible (root and apt-get; Debian's packages,
# --no-install-recommends), elsewhere the tests that need it are skipped with the reason:
# - GNU Octave runs MATLAB equation files (crossdyn check my_arm.m): `octave`, ~135 packages, ~300 MB, ~1 min;
#   docs/howto/class-grading.md says how to install it by hand;
# - bubblewrap (bwrap, ~100 kB) isolates users' files (crossdyn.sandbox; without it: `unshare` and limits only);
# - Chromium: the reports are opened in a real headless browser at 1366 px and 390 px (~1 min).
# $(call apt_install,COMMAND,PACKAGE,WHAT FOR)
define apt_install
	@command -v $(1) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing $(2) for $(3) (apt-get install --no-install-recommends $(2))"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(2) >/dev/null; \
	  else \
	    echo "note: $(1) not found and not installable here (needs root and apt-get): $(3) will be skipped"; \
	  fi; }
endef

octave:
	$(call apt_install,octave-cli,octave,the MATLAB tests)
	$(call apt_install,bwrap,bubblewrap,the sandbox tests)
	$(call apt_install,chromium,chromium,the browser tests)

# mypy (default mode) and ruff on the package, as CI's reviewers read it
lint: $(STAMP)
	$(VENV)/bin/mypy
	$(VENV)/bin/ruff check crossdyn

# The docs site, warnings as errors (the slow tier, which .ci/run runs, builds it too: tests/test_docs_build.py)
docs: $(STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -n -b html docs docs/_build/html

bench: $(STAMP) octave
	$(PY) benchmarks/run.py
	$(PY) benchmarks/defaults.py
	$(PY) benchmarks/sweep.py
	$(PY) benchmarks/batch.py
	$(PY) benchmarks/excitation.py
	$(PY) benchmarks/contact.py
	$(PY) benchmarks/identification_coverage.py
	$(PY) benchmarks/verdicts.py --out benchmarks
	$(PY) benchmarks/gpu_engines.py --max-seconds 540
	$(PY) benchmarks/sandbox.py
	$(PY) benchmarks/spatial_symbolic.py
	$(PY) benchmarks/audit.py
	$(PY) benchmarks/spatial_kernels.py
	$(PY) benchmarks/derivatives.py

clean:
	rm -rf $(VENV) reports .pytest_cache .hypothesis
