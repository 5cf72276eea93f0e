# CUDA memory labs: the grader (build/cml-grade), its tests, and the lab binaries. GNU make.
#   make              build the grader          make grade [LAB=02] [SUBMISSION=dir]
#   make check        the test suite            make bench [LAB=02]
#   make labs         every skeleton and solution lab binary (nvcc, warnings are errors)
#   make clean        make student-bundle [BUNDLE=out.tar.gz]: what students get (STUDENT.md)
# NVCC=/path/to/nvcc and CUDA_ARCH=90 are honoured (make passes them on to the grader).
# V=1 prints the grader's compiler commands in full (else one line per file).

ifeq ($(origin CC),default)
CC := gcc
endif
NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),/usr/local/cuda/bin/nvcc)
CUDA_ARCH ?= 90

BUILD := build
# `make labs` builds for CUDA_ARCH when it is given (CUDA_ARCH=89: sm_89), else for the GPU that
# is present (its compute capability from nvidia-smi), else for every architecture this nvcc
# supports (-arch=all: a fat binary that runs on any of them, several times slower to build).
# The grader probes the GPU itself; CUDA_ARCH only tells it what to compile for without one.
# Only a make that builds lab binaries asks nvidia-smi (and writes the stamp below).
LAB_GOALS := $(filter labs $(BUILD)/labs/% $(BUILD)/solutions/%,$(MAKECMDGOALS))
ifneq ($(LAB_GOALS),)
GPU_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | \
            head -n 1 | tr -d '. ')
endif
LAB_ARCH := $(if $(filter command line environment,$(origin CUDA_ARCH)),sm_$(CUDA_ARCH),$\
              $(if $(GPU_CC),sm_$(GPU_CC),all))
CFLAGS ?= -O2
STRICT := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror
# The grader's C files print one short line each ("  CC file"), so that a student's first
# `make grade` shows what it builds without a hundred compiler command lines before the
# report; V=1 prints the commands. A compiler's errors and warnings show either way.
Q := $(if $(filter 1,$(V)),,@)
say = $(if $(Q),@echo '  $(1) $(2)')
# grader/src holds one folder per step of the pipeline, in order (docs/ARCHITECTURE.md);
# every folder is on the include path, so a header is named by its file name alone.
GRADER_DIRS := grader/src $(patsubst %/,%,$(sort $(wildcard grader/src/*/)))
CPPFLAGS += $(addprefix -I,$(GRADER_DIRS)) -Icommon -MMD -MP
LDLIBS := -pthread -lm

GRADER_SRC := $(sort $(wildcard $(addsuffix /*.c,$(GRADER_DIRS))))
# cml-confine (grader/src/sandbox/confine_main.c) is a program of its own: a tool starts it in
# place of the lab, and it confines the lab again before executing it (sandbox.h).
CONFINE_MAIN := $(BUILD)/obj/grader/src/sandbox/confine_main.o
# A copy of the labs without grader/ (the old hand-out: labs, common, docs and this Makefile)
# cannot build the grader: say so, instead of make's "No rule to make target ... confine_main.o".
GRADER_GOALS := $(filter all grade bench check check-run $(BUILD)/cml-%,$(or $(MAKECMDGOALS),all))
ifneq ($(GRADER_GOALS),)
ifeq ($(wildcard grader/src/sandbox/confine_main.c),)
$(error grader/src is missing here, so the grader cannot be built: this copy of the labs was \
handed out without it. Instructors hand out `make student-bundle` (CLASS_GUIDE.md); students \
ask for that bundle)
endif
endif
GRADER_OBJ := $(filter-out $(CONFINE_MAIN),$(GRADER_SRC:%.c=$(BUILD)/obj/%.o))
LIB_OBJ := $(filter-out $(BUILD)/obj/grader/src/main.o,$(GRADER_OBJ))
TEST_SRC := $(filter-out tests/fake_lab%,$(sort $(wildcard tests/*.c)))
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/obj/%.o)
CHECK_CFLAGS = $(shell pkg-config --cflags check)
CHECK_LIBS = $(shell pkg-config --libs check)

# The trace checks' CUPTI injection library (grader/trace/cml_trace.c, docs/ARCHITECTURE.md
# "Trace checks"), with the toolkit's libcupti beside it ($ORIGIN): a trace run copies both into
# the lab's run folder, which is all its sandbox may read of them. Without CUPTI next to nvcc
# nothing is built and the trace checks say "not checked".
CUDA_HOME := $(patsubst %/bin/,%,$(dir $(realpath $(NVCC))))
CUPTI_INC := $(firstword $(dir $(wildcard $(addprefix $(CUDA_HOME)/,include/cupti.h \
               targets/x86_64-linux/include/cupti.h extras/CUPTI/include/cupti.h))))
CUPTI_SO := $(firstword $(wildcard $(addprefix $(CUDA_HOME)/,lib64/libcupti.so lib/libcupti.so \
              targets/x86_64-linux/lib/libcupti.so extras/CUPTI/lib64/libcupti.so)))
TRACE_LIB := $(if $(and $(CUPTI_INC),$(CUPTI_SO)),$(BUILD)/trace/libcml-trace.so)

.PHONY: all grade bench check check-run labs clean student-bundle trace-lib
all: $(BUILD)/cml-grade $(BUILD)/cml-confine $(BUILD)/cml-probe $(TRACE_LIB)

$(BUILD)/cml-grade: $(GRADER_OBJ) | $(BUILD)/cml-confine
	$(call say,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/cml-confine: $(CONFINE_MAIN) $(LIB_OBJ)
	$(call say,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/trace/libcml-trace.so: grader/trace/cml_trace.c
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Werror $(CFLAGS) -shared -fPIC -I$(CUPTI_INC) -o $@ $< \
	    $(CUPTI_SO) -Wl,-rpath,'$$ORIGIN' -pthread
	$(Q)soname=$$(objdump -p $(CUPTI_SO) 2>/dev/null | awk '/SONAME/ {print $$2}'); \
	    cp -L $(CUPTI_SO) $(@D)/$${soname:-$$(basename "$$(readlink $(CUPTI_SO))")}

# The library alone, or why there is none (tests/test_build.c).
trace-lib: $(TRACE_LIB)
	@echo '$(if $(TRACE_LIB),$(TRACE_LIB),no CUPTI beside $(NVCC): trace checks not checked)'

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(STRICT) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) -Itests $(CHECK_CFLAGS) $(STRICT) $(CFLAGS) -c $< -o $@

# -lz: the screenshot test decodes Chromium's PNG (tests/png_decode.c); the grader needs no zlib.
$(BUILD)/check_tests: $(TEST_OBJ) $(LIB_OBJ)
	$(call say,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS) -lz

$(BUILD)/fake_lab: tests/fake_lab.c tests/fake_lab_attacks.c tests/fake_lab_attacks.h \
                   tests/fake_lab_lock.c tests/fake_lab_lock.h \
                   common/cml_rand.h
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(CC) -Icommon $(STRICT) $(CFLAGS) -o $@ tests/fake_lab.c tests/fake_lab_attacks.c \
	    tests/fake_lab_lock.c -lm

# make grade's and make bench's options, each value one shell word however it is spelled (no
# $(strip): it would fold the spaces inside a path)
LAB_ARG = $(if $(LAB), --lab '$(subst ','\'',$(LAB))')
SUBMISSION_ARG = $(if $(SUBMISSION), --submission '$(subst ','\'',$(SUBMISSION))')

grade: $(BUILD)/cml-grade $(BUILD)/cml-probe $(TRACE_LIB)
	$(BUILD)/cml-grade grade$(LAB_ARG)$(SUBMISSION_ARG)

bench: $(BUILD)/cml-grade $(BUILD)/cml-probe $(TRACE_LIB)
	$(BUILD)/cml-grade bench$(LAB_ARG)

# Check is needed only here: ensure-check.sh installs it (as root, with apt) or says how.
check:
	scripts/ensure-check.sh
	$(MAKE) --no-print-directory check-run

check-run: $(BUILD)/check_tests $(BUILD)/fake_lab $(BUILD)/cml-grade $(BUILD)/cml-confine $(TRACE_LIB)
	$(BUILD)/check_tests

# ---- lab binaries: a lab folder is harness.cu plus its other .cu files; a solution folder
# ---- holds the student file(s), compiled with its lab's harness.
NVCC_FLAGS := -O3 -std=c++17 --extended-lambda --expt-relaxed-constexpr -arch=$(LAB_ARCH) -lineinfo \
              -DNVTX_DISABLE -Icommon \
              -Werror all-warnings -Xcompiler -Wall,-Wextra
# The harness library: every .cu and .cpp of common/ but the probe
# (grader/src/2_build/build_common.c lists the same files; tests/test_build.c checks that the
# two agree).
COMMON_SRC := $(filter-out common/probe.cu,$(sort $(wildcard common/*.cu common/*.cpp)))
COMMON_DEPS := $(wildcard common/*.h common/*.cu common/*.cpp)
# The GPU probe (common/probe.cu, grader/src/3_run/probe.c), built with the grader so that a
# grading with a cold cache need not: the grader runs it while no file of common/ is newer, and
# otherwise builds its own into the cache, with these flags.
$(BUILD)/cml-probe: common/probe.cu $(COMMON_DEPS)
	@mkdir -p $(@D)
	$(call say,NVCC,$@)
	$(Q)$(NVCC) -O2 -std=c++17 -Icommon -o $@ common/probe.cu

LAB_BINS := $(patsubst %/,$(BUILD)/%/lab,$(sort $(wildcard labs/*/ solutions/*/)))
ifdef LAB
LAB_BINS := $(filter $(BUILD)/labs/$(LAB)% $(BUILD)/solutions/$(LAB)%,$(LAB_BINS))
endif

# The library's objects are compiled once per architecture and linked into every binary.
COMMON_OBJ := $(addprefix $(BUILD)/obj/$(LAB_ARCH)/,$(addsuffix .o,$(basename $(COMMON_SRC))))
.SECONDARY: $(COMMON_OBJ)

# Every lab binary depends on this file, rewritten only when a lab build's LAB_ARCH differs
# from the last one's: a build for another architecture rebuilds them all. Other goals (make
# check) leave it alone, or the next `make labs` would rebuild for nothing.
ARCH_STAMP := $(BUILD)/lab-arch
ifneq ($(LAB_GOALS),)
ifneq ($(shell cat $(ARCH_STAMP) 2>/dev/null),$(LAB_ARCH))
$(shell mkdir -p $(BUILD) && echo '$(LAB_ARCH)' > $(ARCH_STAMP))
endif
endif

labs: $(LAB_BINS)
	@echo "lab binaries built for $(LAB_ARCH)"

$(BUILD)/obj/$(LAB_ARCH)/common/%.o: common/%.cu $(COMMON_DEPS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

$(BUILD)/obj/$(LAB_ARCH)/common/%.o: common/%.cpp $(COMMON_DEPS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

.SECONDEXPANSION:
$(BUILD)/labs/%/lab: $$(wildcard labs/%/*.cu labs/%/*.h labs/%/*.cuh) $(COMMON_DEPS) $(COMMON_OBJ) \
                     $(ARCH_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_FLAGS) -Ilabs/$* -o $@ labs/$*/harness.cu \
	    $(filter-out labs/$*/harness.cu,$(wildcard labs/$*/*.cu)) $(COMMON_OBJ)

# -Isolutions/$*: headers that live with the solution (lab 02's tuning variants), beside the
# reference only; a skeleton's build does not see them.
$(BUILD)/solutions/%/lab: $$(wildcard solutions/%/*.cu solutions/%/*.cuh labs/%/harness.cu \
                                      labs/%/*.h labs/%/*.cuh) $(COMMON_DEPS) $(COMMON_OBJ) \
                          $(ARCH_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_FLAGS) -Ilabs/$* -Isolutions/$* -o $@ labs/$*/harness.cu \
	    $(wildcard solutions/$*/*.cu) $(COMMON_OBJ)

# What students get (CLASS_GUIDE.md, "Distributing the skeletons"): labs, common, the lecture
# notes, the grader's sources and specs, this Makefile and STUDENT.md as its README; never
# solutions/, tests/ or build outputs. BUNDLE=path names the archive.
BUNDLE ?= $(BUILD)/student-bundle.tar.gz
student-bundle:
	scripts/student-bundle.sh '$(BUNDLE)'

clean:
	rm -rf $(BUILD)

-include $(GRADER_OBJ:.o=.d) $(CONFINE_MAIN:.o=.d) $(TEST_OBJ:.o=.d)
