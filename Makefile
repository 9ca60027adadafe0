# Pincer — the two commands of the README contract:
#   make run    install what is needed, build, start the gateway in the foreground
#   make test   install what is needed, build, run every test once (unit, integration, browser, sanitizers, fuzz)
# Other targets: make build | asan (sanitizers + fuzzers) | fuzz (longer fuzzing) | bench (vs OpenClaw) | docs | clean

JOBS      ?= $(shell nproc)
BUILD     ?= build
ASAN      ?= build-asan
FUZZ_SECS ?= 10
# Tests wait on sockets, child processes and browsers much of the time: one more test than cores
# keeps both cores busy (CI budget: 35 min for a clean-clone `make test`).
TEST_JOBS ?= $(shell echo $$(( $(JOBS) + 1 )))
GEN       := -G Ninja

.PHONY: run test deps build asan fuzz-build fuzz fuzz-smoke bench docs clean unit integration

deps:
	@./scripts/install-deps.sh

# Every tree is a unity build (UNITY: files per translation unit). A clean clone builds two trees
# on two cores: release (gcc) and sanitizers (clang: ASan+UBSan and the libFuzzer targets);
# compiling the heavy headers (Asio/Beast, json,
# spdlog, gtest) once per batch instead of once per file is most of that time (CI budget: 35 min).
# An edit recompiles its batch; for one-file-per-unit iteration configure a tree of your own
# without $(UNITY) (README, Development).
UNITY     := -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=12

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) $(GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPINCER_WERROR=ON $(UNITY)

# The sanitizer tree is clang's: libFuzzer needs it, and a second compiler's warnings are checked.
$(ASAN)/build.ninja: | deps
	CC=clang CXX=clang++ cmake -S . -B $(ASAN) $(GEN) -DCMAKE_BUILD_TYPE=Debug -DPINCER_WERROR=ON -DPINCER_SANITIZE=ON -DPINCER_FUZZ=ON -DPINCER_BENCH=OFF $(UNITY)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

asan: deps $(ASAN)/build.ninja
	cmake --build $(ASAN) -j $(JOBS)

fuzz-build: asan

run: deps
	@cmake -S . -B $(BUILD) $(GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(UNITY) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target pincer
	@exec ./$(BUILD)/pincer gateway run $(ARGS)

# Every test, each once, under ASan+UBSan (clang's sanitizer tree): first its gateway, then the
# tests labelled early (OpenClaw's client, Control UI and import, browsers) while the rest of the
# tree builds beside them at low priority, then every other test, then a short run of every fuzzer.
# The release tree is only configured: gcc checks its sources without generating code
# (scripts/gcc-check.sh), as a build of it would cost a third of the budget (CI: 35 min).
# scripts/test-phases.sh says why, and ends a failed phase with each failed test's own failure lines:
# a CI log cut to its tail shows why. `make build` builds the release tree and its tests (ctest -R there).
test: export MAKE_TEST_START := $(shell date +%s)
test: deps $(BUILD)/build.ninja $(ASAN)/build.ninja
	@./scripts/test-phases.sh $(BUILD) $(ASAN) $(TEST_JOBS) $(JOBS) $(FUZZ_SECS)

fuzz-smoke:
	@./scripts/fuzz-smoke.sh $(ASAN) $(FUZZ_SECS) $(JOBS)

fuzz: fuzz-build
	$(MAKE) --no-print-directory fuzz-smoke FUZZ_SECS=$${FUZZ_SECS:-300}

bench: deps
	./bench/run.sh

# Regenerates docs/configuration.md from the schema.
docs: build
	./$(BUILD)/pincer config schema --markdown > docs/configuration.md

clean:
	rm -rf $(BUILD) $(ASAN) build-fuzz
