# tbisect — see README.md.  Main targets:
#   make            build ./tbisect
#   make deps       install the Debian packages it needs (root, or say what to run)
#   make bisect     deps + prepare + bisect the range in bisect.conf + plot
#   make test       unit tests (also under ASan/UBSan) + end-to-end tests with a real kernel,
#                   through prove (TAP)
#   make bench      benchmarks (simulated bisection accuracy/cost; time-to-culprit)
#   make nightly    the nightly regression check
CC ?= cc
CFLAGS ?= -O2 -g
WARN = -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE
# Library flags from pkg-config (libcsv ships no .pc file).
PKGS = inih gsl libcrypto jansson
LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -linih -lgsl -lgslcblas -lcrypto -ljansson) -lcsv -lm
WARN += $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# One folder per wing of modules, in five layers (README.md, Layout;
# tests/layers.t checks them): the commands in src/cmd, main.c alone at
# the top of src/.
WINGS = base kernel guest engine measure output shared cmd
INC = $(addprefix -Isrc/,$(WINGS))
WARN += $(INC)
LIBSRC = $(foreach w,base kernel guest engine measure output,$(filter-out src/guest/tbprof.c,$(wildcard src/$(w)/*.c)))
# The binary's commands; the unit tests link the modules only, and the
# simulated backend, a test double, lives with them.
SRC = $(LIBSRC) $(wildcard src/shared/*.c) $(wildcard src/cmd/*.c)
HDR = $(foreach w,$(WINGS),$(wildcard src/$(w)/*.h))
SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

DEBS = linux-source-6.1 qemu-system-x86 git ccache dbench rt-tests iperf3 gnuplot-nox busybox-static \
       bc bison flex libelf-dev libssl-dev cpio xz-utils make gcc libc6-dev perl \
       libinih-dev libgsl-dev libjansson-dev libcsv-dev pkg-config jq distcc clang libclang-rt-14-dev \
       valgrind

.PHONY: all deps deps-debs deps-qemu bisect test unit unit-asan e2e bench nightly clean fuzz fuzz-build

all: tbisect build/tbisect-prof.so

# The QEMU plugin profile loads (not linked into tbisect).
build/tbisect-prof.so: src/guest/tbprof.c src/guest/cachesim.c src/guest/cachesim.h
	@mkdir -p build
	$(CC) -O2 -Wall -Wextra -Werror -Isrc/base -Isrc/guest -shared -fPIC -fvisibility=hidden -o $@ src/guest/tbprof.c src/guest/cachesim.c

tbisect: $(SRC) src/main.c $(HDR)
	$(CC) $(CFLAGS) $(WARN) -o $@ $(SRC) src/main.c $(LIBS)

TESTSRC = tests/unit/sim.c
build/unit: $(LIBSRC) $(TESTSRC) tests/unit/unit.c $(HDR) tests/unit/sim.h
	@mkdir -p build
	$(CC) $(CFLAGS) $(WARN) -Itests/unit -o $@ $(LIBSRC) $(TESTSRC) tests/unit/unit.c $(LIBS)

build/unit-asan: $(LIBSRC) $(TESTSRC) tests/unit/unit.c $(HDR) tests/unit/sim.h
	@mkdir -p build
	$(CC) -O1 -g $(SAN) $(WARN) -Itests/unit -o $@ $(LIBSRC) $(TESTSRC) tests/unit/unit.c $(LIBS)

build/tbisect-asan: $(SRC) src/main.c $(HDR)
	@mkdir -p build
	$(CC) -O1 -g $(SAN) $(WARN) -o $@ $(SRC) src/main.c $(LIBS)

build/simbench: $(LIBSRC) $(TESTSRC) tests/bench/simbench.c $(HDR)
	@mkdir -p build
	$(CC) -O2 $(WARN) -Itests/unit -o $@ $(LIBSRC) $(TESTSRC) tests/bench/simbench.c $(LIBS)

# The cache model's check against Cachegrind: one program, run natively
# (under valgrind) and feeding the model.
build/walk: tests/cache/walk.c
	@mkdir -p build
	$(CC) -O2 -g $(WARN) -o $@ $<

# The same program for the guest (a custom benchmark, no libraries).
build/walk-static: tests/cache/walk.c
	@mkdir -p build
	$(CC) -O2 -g $(WARN) -static -o $@ $<

build/walk-model: $(LIBSRC) tests/cache/walk.c $(HDR)
	@mkdir -p build
	$(CC) $(CFLAGS) $(WARN) -DMODEL -o $@ tests/cache/walk.c $(LIBSRC) $(LIBS)

# Installs only what is missing; as non-root it prints the command instead.
deps: deps-qemu

deps-debs:
	@missing=""; for p in $(DEBS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages present"; exit 0; fi; \
	echo "deps: missing:$$missing"; \
	if [ "$$(id -u)" != 0 ]; then \
	  echo "deps: run as root: apt-get update && apt-get install -y$$missing"; exit 1; fi; \
	apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing

# SMP guests under icount need QEMU 8.1 or later (7.2's icount scheduler never
# runs the second vCPU).  Debian 12 ships 7.2; its backports carry a newer one,
# taken from the mirror the machine's apt already uses for bookworm.
BPO = /etc/apt/sources.list.d/tbisect-bookworm-backports.sources
deps-qemu: deps-debs
	@v=$$(dpkg-query -W -f='$${Version}' qemu-system-x86 2>/dev/null); \
	if dpkg --compare-versions "$$v" ge 1:8.1~; then exit 0; fi; \
	codename=$$(. /etc/os-release && echo "$$VERSION_CODENAME"); \
	if [ "$$codename" != bookworm ]; then \
	  echo "deps: qemu-system-x86 $$v is older than 8.1: SMP > 1 in icount mode will be refused"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
	  echo "deps: qemu-system-x86 $$v is older than 8.1; as root, enable bookworm-backports and run:"; \
	  echo "deps:   apt-get install -t bookworm-backports qemu-system-x86"; exit 1; fi; \
	if ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/; then \
	  uri=$$(apt-get indextargets --format '$$(REPO_URI) $$(CODENAME)' 2>/dev/null | \
	         awk '$$2 == "bookworm" { print $$1; exit }'); \
	  if [ -z "$$uri" ]; then \
	    echo "deps: no bookworm source in apt's lists to take backports from; add bookworm-backports yourself"; exit 1; fi; \
	  echo "deps: enabling Debian's bookworm-backports from $$uri (the machine's own mirror) in $(BPO)"; \
	  printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$$uri" >$(BPO); fi; \
	echo "deps: qemu-system-x86 $$v is older than 8.1: installing it from bookworm-backports"; \
	apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends -t bookworm-backports qemu-system-x86

bisect: deps tbisect build/tbisect-prof.so
	./tbisect prepare
	./tbisect bisect; st=$$?; [ $$st -le 1 ] || [ $$st -eq 3 ] || exit $$st
	@echo "plot: plots/tbisect.png"

nightly: deps tbisect
	./tbisect check

# Every suite prints TAP; prove runs them and names what failed.
unit: build/unit
	@bash tests/unit.t

unit-asan: build/unit-asan
	@bash tests/unit-asan.t

e2e: tbisect build/tbisect-asan
	bash tests/run.sh

test: deps
	$(MAKE) -j$$(nproc) build/unit build/unit-asan tbisect build/tbisect-asan build/tbisect-prof.so fuzz-build \
	  build/walk build/walk-model build/walk-static
	@# The console formatter streams each line (the file one holds a suite back until it ends).
	prove -v --formatter TAP::Formatter::Console tests/layers.t tests/unit.t tests/unit-asan.t tests/fuzz.t \
	  tests/cachesim.t tests/e2e.t

build/runbench: src/base/run.c src/base/util.c tests/bench/runbench.c $(HDR)
	@mkdir -p build
	$(CC) -O2 $(WARN) -o $@ src/base/run.c src/base/util.c tests/bench/runbench.c $(LIBS)

bench: deps tbisect build/tbisect-prof.so build/simbench build/runbench
	./build/simbench
	./build/runbench
	bash tests/bench/git-range.sh
	bash tests/bench/releases.sh
	bash tests/bench/time-to-culprit.sh
	bash tests/bench/cold-build.sh
	bash tests/bench/config-range.sh
	bash tests/bench/cost.sh

clean:
	rm -rf tbisect build

# Fuzzing: make test builds every target and runs each FUZZ_TEST_SECONDS
# over its seeds (tests/fuzz.t); make fuzz runs each FUZZ_SECONDS.
FUZZ_SECONDS ?= 600
FUZZ_NAMES = conf series console store kcfg
FUZZ_BINS = $(addprefix build/fuzz/,$(FUZZ_NAMES))
fuzz-build: $(FUZZ_BINS)
build/fuzz/%: $(LIBSRC) tests/fuzz/fuzz.c $(HDR)
	@mkdir -p build/fuzz
	clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
	  -DFUZZ_TARGET=$$(echo $(FUZZ_NAMES) | tr ' ' '\n' | grep -nx $* | cut -d: -f1) $(INC) \
	  -o $@ $(LIBSRC) tests/fuzz/fuzz.c $(LIBS)
fuzz: fuzz-build
	@for n in $(FUZZ_NAMES); do mkdir -p build/fuzz/corpus-$$n; \
	  echo "fuzz: $$n for $(FUZZ_SECONDS) s"; \
	  ./build/fuzz/$$n -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 build/fuzz/corpus-$$n \
	    tests/fuzz/seeds-$$n 2>&1 | grep -E "stat::|ERROR|SUMMARY|Done" ; done
