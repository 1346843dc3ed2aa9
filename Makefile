# A thin front door over CMake presets, in the manner of Neovim's Makefile.
# Every target that builds first runs tools/install-deps, which installs the
# Debian packages in tools/debian-packages.txt that are missing (and nothing
# else), so each of these works on a fresh Debian 12 machine.
#
#   make demo    build (release) what the main job runs, and run it
#   make test    build (dev: Debug, -Werror) and run every test with ctest
#   make bench   build (release) and run the benchmarks (never part of test)
#   make fuzz    build the libFuzzer targets (clang); fuzz each (reader, importers,
#                viewer core, databases) 60 s
#   make asan    build with ASan+UBSan and run the tests (not the GUI and package ones)
#   make clean   remove build/

CMAKE ?= cmake
CTEST ?= ctest
FUZZ_SECONDS ?= 60

.PHONY: all deps demo test bench fuzz asan clean FORCE
all: build/release/build.ninja
	$(CMAKE) --build --preset release

deps:
	@tools/install-deps

build/%/build.ninja: CMakeLists.txt CMakePresets.json | deps
	$(CMAKE) --preset $* >/dev/null

# Re-run configure when any CMakeLists.txt changes; ninja does it on its own
# once the tree is configured, so the rule above only matters the first time.

demo: deps build/release/build.ninja
	$(CMAKE) --build --preset demo
	@tools/demo build/release

test: deps build/dev/build.ninja
	$(CMAKE) --build --preset dev
	$(CTEST) --preset dev

bench: deps build/release/build.ninja
	$(CMAKE) --build --preset release
	@tools/bench build/release

asan: deps build/asan/build.ninja
	$(CMAKE) --build --preset asan
	$(CTEST) --preset asan

fuzz: deps build/fuzz/build.ninja
	$(CMAKE) --build --preset fuzz
	@tools/fuzz build/fuzz $(FUZZ_SECONDS)

clean:
	rm -rf build
