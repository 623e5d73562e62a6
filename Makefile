# pvspin - the two commands of the README.
#   make run    build (release) and run `pvspin bench`'s default matrix here
#   make check  build and run every test: normal, ThreadSanitizer and
#               AddressSanitizer + UndefinedBehaviorSanitizer builds
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all deps release run check check-dev check-tsan check-asan install clean

all: release

deps:
	@sh scripts/install-deps.sh

release: deps
	cmake -S . -B $(BUILD)/release -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD)/release -j $(JOBS)

run: release
	$(BUILD)/release/tools/pvspin bench

check: check-dev check-tsan check-asan

check-dev: deps
	cmake -S . -B $(BUILD)/dev -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD)/dev -j $(JOBS)
	@# The Promela model checks (label model, about 100 of them) are
	@# single-threaded pan searches with nothing timed in them: they run
	@# $(JOBS) at a time (525 s of CPU in 270 s on 2 cores).  Every other
	@# test runs alone, as the timing-sensitive ones need.  Both sets run
	@# even if the first fails; the step fails if either did.
	cd $(BUILD)/dev && { ctest --output-on-failure --timeout 600 -L model -j $(JOBS); m=$$?; \
	  ctest --output-on-failure --timeout 600 -LE model; o=$$?; \
	  [ $$m -eq 0 ] && [ $$o -eq 0 ]; }

check-tsan: deps
	cmake -S . -B $(BUILD)/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPVSPIN_SANITIZE=thread $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD)/tsan -j $(JOBS)
	cd $(BUILD)/tsan && ctest --output-on-failure --timeout 600 -L sanitize

check-asan: deps
	cmake -S . -B $(BUILD)/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPVSPIN_SANITIZE=address $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD)/asan -j $(JOBS)
	cd $(BUILD)/asan && ctest --output-on-failure --timeout 600 -L sanitize

install: release
	cmake --install $(BUILD)/release

clean:
	rm -rf $(BUILD)
