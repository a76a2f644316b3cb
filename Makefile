# reconv: the two commands of README.md are `make demo` and `make check`.
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
ASAN_BUILD ?= build-asan
# the second LLVM make check tests with (the default build takes the newest, LLVM 19)
LLVM14_BUILD ?= build-llvm14
CMAKE_FLAGS ?=

.PHONY: all setup build demo check test asan-test test-llvm14 fuzz-check valgrind install clean bench fuzz update-golden

all: build

setup:
	@bash scripts/setup.sh

$(BUILD)/CMakeCache.txt:
	@mkdir -p $(BUILD)
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) > $(BUILD)/cmake.log 2>&1 || \
	  { cat $(BUILD)/cmake.log; exit 1; }

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# reconv's main job on a bundled example: only the CLI is built, its compiler output kept in a log
demo: setup $(BUILD)/CMakeCache.txt
	@echo "building reconv (log: $(BUILD)/demo-build.log) ..."
	@cmake --build $(BUILD) -j $(JOBS) --target reconv_cli > $(BUILD)/demo-build.log 2>&1 || \
	  { tail -n 40 $(BUILD)/demo-build.log; echo "build failed: see $(BUILD)/demo-build.log" >&2; exit 1; }
	@echo "built $(BUILD)/bin/reconv"
	@bash scripts/demo.sh $(BUILD)/bin/reconv

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

$(ASAN_BUILD)/CMakeCache.txt:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DRECONV_SANITIZE=ON $(CMAKE_FLAGS)

# the same tests under AddressSanitizer and UndefinedBehaviorSanitizer; property tests at a smaller
# scale there, since the sanitizers make them slower; the corpus test (label corpus: a hundred
# kernels through clang, opt and reconv, minutes in the normal build) runs in the normal build only
asan-test: $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && RECONV_PROP_SCALE=$${RECONV_PROP_SCALE:-0.2} ASAN_OPTIONS=detect_leaks=1 \
	  ctest --output-on-failure -j $(JOBS) -LE corpus

# the same tests with LLVM 14 (the normal build; golden expectations per version: tests/golden/run.sh);
# says so and passes where LLVM 14 is not installed (Debian 13 has no LLVM 14)
test-llvm14:
	@if command -v llvm-config-14 >/dev/null 2>&1; then \
	  $(MAKE) test BUILD=$(LLVM14_BUILD) CMAKE_FLAGS="-DLLVM_CONFIG=$$(command -v llvm-config-14) $(CMAKE_FLAGS)"; \
	else echo "test-llvm14: LLVM 14 is not installed (llvm-config-14); the suite ran with the default LLVM only"; fi

# every test, with LLVM 19 in the normal build and in the sanitizer build (set-up also installs the
# browser the report page's test uses), the fuzz harnesses, each on its seeds for a few seconds,
# then every test with LLVM 14 in the normal build
check:
	@bash scripts/setup.sh --tests
	$(MAKE) test
	$(MAKE) asan-test
	$(MAKE) fuzz-check
	$(MAKE) test-llvm14

# the libFuzzer harnesses of tests/fuzz built in build-fuzz (clang; ASan + UBSan) and run on their
# seeds, then FUZZ_CHECK_TIME seconds each (default 3): fails when one does not build or finds a
# problem; without a clang that has libFuzzer it says so and passes
fuzz-check:
	@bash scripts/fuzz.sh --check build-fuzz

# unit tests and a sample of golden tests under valgrind
valgrind: build
	@bash scripts/valgrind.sh $(BUILD)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

bench: build
	@bash scripts/bench.sh $(BUILD)

# libFuzzer harnesses (clang; ASan + UBSan), FUZZ_TIME seconds each (default 60); the corpus grows
# in FUZZ_CORPUS (default build-fuzz/corpus)
fuzz:
	@bash scripts/fuzz.sh build-fuzz

# regenerate golden expectations on purpose: make update-golden [TESTS="tests/golden/x.rir ..."]
update-golden: build
	@PATH="$(CURDIR)/$(BUILD)/bin:$$PATH" bash scripts/update-golden.sh $(TESTS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(LLVM14_BUILD) build-fuzz
