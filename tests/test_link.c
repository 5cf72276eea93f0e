/* The link rules (grader/src/2_build/linkrules*.c) through the grader's build, for sm_90 (or
 * $CUDA_ARCH): the attacks of tests/attacks/link/attacks.cu, appended to the lab 01 solution,
 * are each a build error naming the symbol and the rule; the correct code written differently
 * of legit.cu builds. Both are built once (in the fixture, in parallel); each test pins one line
 * of the log. Needs nvcc, nm and objdump, not a GPU. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "grade.h"
#include "helpers.h"
#include "judge.h"
#include "linkrules.h"
#include "linkrules_obj.h"
#include "planted.h"
#include "stage.h"
#include "suites.h"
#include "util.h"

static cml_lab_spec *lab01;
static cml_build attack, legit, partial, early, indirect, named;
#define PARTIAL_BUG "tests/planted/01_coalescing/debug_log_in_two_wrappers"
static char work[64];

/* Stage lab 01 with the solution plus tests/attacks/link/<extra> as its student file. */
static void stage_with(const char *extra, const char *name, cml_build *b)
{
    char sub[CML_PATH], err[1024], rel[128];
    cml_fmt(sub, sizeof sub, "%s/%s", work, name);
    cml_mkdirs(sub);
    cml_fmt(rel, sizeof rel, "tests/attacks/link/%s", extra);
    char *sol = cml_read_text(test_path("solutions/01_coalescing/coalescing.cu"), 1u << 20, NULL);
    char *add = cml_read_text(test_path(rel), 1u << 20, NULL), *both = NULL;
    if (sol && add && asprintf(&both, "%s\n%s", sol, add) > 0) {
        cml_fmt(rel, sizeof rel, "%s/coalescing.cu", sub);
        cml_write_file(rel, both, strlen(both));
    }
    free(sol), free(add), free(both);
    *b = (cml_build){ .spec = lab01, .cc = cml_default_cc(), .timeout_s = 600 };
    if (cml_stage(test_root(), lab01, CML_SIDE_STUDENT, sub, work, b->dir, sizeof b->dir, err,
                  sizeof err) != 0)
        fprintf(stderr, "link suite: %s\n", err);
}

/* Stage lab 01 with the solution and a planted patch as its student file. */
static void stage_planted(const char *bug, const char *name, cml_build *b)
{
    char sub[CML_PATH], err[1024];
    cml_fmt(sub, sizeof sub, "%s/%s", work, name);
    *b = (cml_build){ .spec = lab01, .cc = cml_default_cc(), .timeout_s = 600 };
    cml_mkdirs(sub);
    if (planted_materialize(test_root(), "01_coalescing", test_path(bug), sub, err,
                            sizeof err) < 0 ||
        cml_stage(test_root(), lab01, CML_SIDE_STUDENT, sub, work, b->dir, sizeof b->dir, err,
                  sizeof err) != 0)
        fprintf(stderr, "link suite: %s\n", err);
}

static void build_both(void)
{
    char err[512];
    lab01 = calloc(CML_MAX_LABS, sizeof *lab01); /* lab 01 comes first */
    snprintf(work, sizeof work, "/tmp/cml-test-XXXXXX");
    if (!lab01 || !mkdtemp(work) ||
        cml_load_specs(test_root(), "01", lab01, CML_MAX_LABS, err, sizeof err) != 1) {
        fprintf(stderr, "link suite: %s\n", err);
        return;
    }
    stage_with("attacks.cu", "attack", &attack);
    stage_with("legit.cu", "legit", &legit);
    stage_planted(PARTIAL_BUG, "partial", &partial);
    stage_with("iostream_early.cu", "early", &early);
    stage_with("iostream_indirect.cu", "indirect", &indirect);
    stage_with("kernel_named_helper.cu", "named", &named);
    cml_build *const all[] = { &attack, &legit, &partial, &early, &indirect, &named };
    cml_build_all(all, 6, 6);
}

static void clean_both(void)
{
    cml_build_free(&attack);
    cml_build_free(&legit);
    cml_build_free(&partial);
    cml_build_free(&early);
    cml_build_free(&indirect);
    cml_build_free(&named);
    cml_rmtree(work);
    free(lab01);
}

/* The attack build failed and its log has a line with every one of the texts. */
static void assert_rejects(const char *a, const char *b)
{
    ck_assert_msg(!attack.ok, "the attack file built");
    const char *log = attack.log ? attack.log : "";
    for (const char *l = log; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
        size_t n = strcspn(l, "\n");
        char line[1200];
        snprintf(line, sizeof line, "%.*s", (int)n, l);
        if (strncmp(line, "link rule: ", 11) == 0 && strstr(line, a) && strstr(line, b))
            return;
    }
    ck_abort_msg("no link-rule line with '%s' and '%s' in:\n%.3000s", a, b, log);
}

START_TEST(rejects_a_definition_of_clock_gettime)
{
    assert_rejects("defines 'clock_gettime'", "(rule: defines)");
}
END_TEST

START_TEST(rejects_a_definition_of_main)
{
    assert_rejects("defines 'main'", "(rule: defines)");
}
END_TEST

START_TEST(rejects_a_strong_copy_of_a_harness_function)
{
    assert_rejects("defines 'cml_todo(char const*, char const*)' (_Z8cml_todoPKcS0_), which "
                   "the harness defines too", "(rule: defines)");
}
END_TEST

/* The build log of b has a line with both texts. */
static int log_has(const cml_build *b, const char *x, const char *y)
{
    for (const char *l = b->log ? b->log : ""; *l; l += strcspn(l, "\n"), l += *l == '\n') {
        char line[1200];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(l, "\n"), l);
        if (strstr(line, x) && strstr(line, y))
            return 1;
    }
    return 0;
}

/* What nm -P says of the linked copy of b's coalescing.o: symbol name's letter, or 0. */
static char linked_symbol(const cml_build *b, const char *name)
{
    char cmd[CML_PATH + 64], line[512], want[300], type = 0;
    cml_fmt(cmd, sizeof cmd, "nm -P '%s/coalescing.link.o'", b->dir);
    snprintf(want, sizeof want, "%s ", name);
    FILE *p = popen(cmd, "r");
    while (p && fgets(line, sizeof line, p))
        if (strncmp(line, want, strlen(want)) == 0)
            type = line[strlen(want)];
    if (p)
        pclose(p);
    return type;
}

/* The attack file's C-linkage global `name` was made file-local (the log line holds `why`),
 * not refused by the defines rule. */
static void assert_made_local(const char *name, const char *why)
{
    char local[200], defines[200];
    snprintf(local, sizeof local, "'%s' made file-local", name);
    snprintf(defines, sizeof defines, "defines '%s'", name);
    ck_assert_msg(log_has(&attack, local, why) && !log_has(&attack, "link rule:", defines),
                  "%.2000s", attack.log ? attack.log : "");
}

START_TEST(makes_a_c_linkage_kernel_file_local_instead_of_refusing_it)
{
    assert_made_local("getauxval", "no other file uses it"); /* getrandom: cml_inputs.cu calls it */
}
END_TEST

START_TEST(rejects_an_operator_new_replacement)
{
    assert_rejects("defines 'operator new(unsigned long)' (_Znwm)", "(rule: defines)");
}
END_TEST

START_TEST(rejects_a_static_constructor)
{
    assert_rejects("runs 'runsBeforeMain()' (_ZL14runsBeforeMainv) before or after main",
                   "(rule: constructors)");
}
END_TEST

/* The line of the staged attack file that holds `text`, as "coalescing.cu:N". */
static void line_of(const char *text, char *where, size_t len)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/coalescing.cu", attack.dir);
    char *src = cml_read_text(path, 1u << 22, NULL), *at = src ? strstr(src, text) : NULL;
    long n = 1;
    for (const char *p = src; at && p < at; p++)
        n += *p == '\n';
    snprintf(where, len, "(coalescing.cu:%ld)", at ? n : 0L);
    free(src);
}

/* A global object with a constructor or destructor is named as the source names it, at the
 * line that declares it, with what to write instead. */
START_TEST(rejects_a_global_object_with_a_destructor)
{
    static const char *const objects[][2] = {
        { "'noisyGlobal'", "static Noisy noisyGlobal;" },
        { "'tally::launches'", "std::map<int, int> launches;" },
        { "'(anonymous namespace)::ticks'", "Ticks ticks[4];" },
        { "'banner'", "std::string banner" } };
    for (size_t i = 0; i < sizeof objects / sizeof objects[0]; i++) {
        char where[64], want[200];
        line_of(objects[i][1], where, sizeof where);
        snprintf(want, sizeof want, "has a global object built before main or destroyed after "
                 "it: %s %s", objects[i][0], where);
        assert_rejects(want, "Make it a function-local static in the function that uses it, "
                       "or constexpr (rule: constructors)");
    }
    /* and why: the first thing its initializer reaches that is not the library's building */
    assert_rejects("more than the standard library's construction ('Noisy::~Noisy()'",
                   "uses 'puts')");
    /* GCC builds them all in one initializer: the reason may be another object's */
    assert_rejects("'noisyGlobal'", "building it, or one of the ");
}
END_TEST

/* A global object with an init_priority runs before or beside the harness's seed constructor:
 * refused, even though a std::string's construction is the library's alone. */
START_TEST(rejects_a_global_object_built_at_a_priority)
{
    assert_rejects("before or after main (from .init_array.00101)", "(rule: constructors)");
}
END_TEST

/* <iostream>'s initializer is accepted only while it does nothing else: a constructor merged
 * into it that jumps to a file-local function without a relocation (early), or takes such a
 * function's address and calls it through a register (indirect), is refused. */
START_TEST(rejects_work_hidden_in_the_iostream_initializer)
{
    const cml_build *const hidden[] = { &early, &indirect };
    for (int i = 0; i < 2; i++) {
        const char *log = hidden[i]->log ? hidden[i]->log : "";
        ck_assert_msg(!hidden[i]->ok, "hidden constructor %d built", i);
        ck_assert_msg(strstr(log, "runs '_GLOBAL__sub_I_") && strstr(log, "(rule: constructors)"),
                      "%.3000s", log);
    }
}
END_TEST

/* A global table of kernels is accepted (legit.cu): a kernel's host function is nvcc's launch
 * code. A host function is not taken for one because its name lies inside a kernel stub's. */
START_TEST(rejects_a_table_of_a_host_function_named_like_a_kernel)
{
    const char *log = named.log ? named.log : "";
    ck_assert_msg(!named.ok, "the table of a printing host overload built");
    ck_assert_msg(strstr(log, "'g_warm'") && strstr(log, "uses 'puts'") &&
                  strstr(log, "(rule: constructors)") && !strstr(log, "or one of the"),
                  "%.3000s", log); /* the file's one global object: its own reason */
}
END_TEST

START_TEST(rejects_an_atexit_call)
{
    assert_rejects("'atexit' used by 'registerExitHandler()' (_Z19registerExitHandlerv)",
                   "(rule: constructors)");
}
END_TEST

START_TEST(rejects_fopen)
{
    assert_rejects("calls 'fopen'", "(rule: calls (file-access))");
}
END_TEST

START_TEST(rejects_execve_through_a_function_pointer_table)
{
    assert_rejects("calls 'execve'", "(rule: calls (process-control))");
}
END_TEST

START_TEST(rejects_dlopen)
{
    assert_rejects("calls 'dlopen'", "(rule: calls (dynamic-loading))");
}
END_TEST

START_TEST(rejects_the_grading_seed)
{
    assert_rejects("calls 'cml_seed()' (_Z8cml_seedv)", "(rule: calls (inputs))");
}
END_TEST

START_TEST(rejects_the_environment_past_getenv)
{
    assert_rejects("calls 'environ'", "(rule: calls (environment))");
}
END_TEST

/* Every student object that reads a variable (CML_CHECK's cml_result_fd does) reads it through
 * the harness's answer, the same in graded and tool runs (issue 44): the linked copy refers to
 * cml_student_getenv and never to libc's getenv. */
START_TEST(getenv_is_pointed_at_the_harness_answer)
{
    ck_assert_msg(legit.ok, "did not build");
    ck_assert_msg(!linked_symbol(&legit, "getenv") &&
                  linked_symbol(&legit, CML_STUDENT_GETENV) == 'U',
                  "getenv %c, " CML_STUDENT_GETENV " %c", linked_symbol(&legit, "getenv"),
                  linked_symbol(&legit, CML_STUDENT_GETENV));
}
END_TEST

START_TEST(rejects_nvtx_which_could_widen_the_sanitizer_regions)
{
    assert_rejects("calls 'nvtxMemRegionsUnregister'", "(rule: calls (profiler))");
}
END_TEST

START_TEST(rejects_the_harness_library_past_its_student_api)
{
    assert_rejects("calls 'cml_now_ms()' (_Z10cml_now_msv)", "(rule: calls (harness))");
    assert_rejects("calls 'cml_case_fail(char const*, ...)'", "(rule: calls (harness))");
    assert_rejects("calls 'cml_exact(float const*, unsigned long)'", "(rule: calls (harness))");
}
END_TEST

START_TEST(rejects_the_driver_api)
{
    assert_rejects("calls 'cuModuleLoad'", "(rule: calls (driver-api))");
}
END_TEST

START_TEST(rejects_cuda_get_driver_entry_point)
{
    assert_rejects("calls 'cudaGetDriverEntryPoint'", "(rule: calls (driver-api))");
}
END_TEST

START_TEST(rejects_a_syscall_instruction_in_host_code)
{
    assert_rejects("'rawGetpid()' (_Z9rawGetpidv) executes 'syscall'", "(rule: asm)");
}
END_TEST

START_TEST(rejects_an_asm_statement_in_host_code)
{
    assert_rejects("uses inline assembly", "(rule: asm)");
}
END_TEST

START_TEST(makes_an_exported_global_variable_file_local_instead_of_refusing_it)
{
    assert_made_local("exportedCounter", "");
}
END_TEST

/* tests/planted/01_coalescing/debug_log_in_two_wrappers: fopen in a helper that the wrappers
 * of 1.2a and 1.3 call. The lab builds; exactly those two tasks are refused. */
START_TEST(refused_call_costs_only_the_tasks_whose_wrappers_reach_it)
{
    cml_lab_result *r = calloc(1, sizeof *r);
    int skip[CML_MAX_TASKS];
    ck_assert_msg(partial.ok, "did not build:\n%.5000s", partial.log ? partial.log : "");
    int n = cml_refuse_tasks(lab01, partial.refused, r, skip);
    for (int t = 0; t < CML_MAX_TASKS; t++) /* the tasks not refused have no spec: left */
        cml_publish_task(&r->tasks[t]);
    char got[64];
    snprintf(got, sizeof got, "%d %d %d %d", skip[0], skip[1], skip[2], skip[3]);
    ck_assert_msg(n == 2 && strcmp(got, "0 1 0 1") == 0 &&
                  r->tasks[1].status == CML_STATUS_BUILD_ERROR &&
                  strstr(r->tasks[3].detail, "(rule: calls"),
                  "refused %d, skip %s, refused lines:\n%s", n, got,
                  partial.refused ? partial.refused : "(none)");
    free(r);
}
END_TEST

START_TEST(refused_call_points_at_a_trap_in_the_linked_object)
{
    ck_assert_msg(partial.ok, "did not build");
    ck_assert_msg(!linked_symbol(&partial, "fopen") && !linked_symbol(&partial, "fclose") &&
                  linked_symbol(&partial, CML_LINK_TRAP "0") == 'U' &&
                  linked_symbol(&partial, CML_LINK_TRAP "1") == 'U',
                  "fopen %c, trap 0 %c", linked_symbol(&partial, "fopen"),
                  linked_symbol(&partial, CML_LINK_TRAP "0"));
}
END_TEST

START_TEST(global_variable_and_c_helper_are_linked_file_local)
{
    ck_assert_msg(linked_symbol(&partial, "launchesLogged") == 'b' &&
                  linked_symbol(&partial, "count_launch") == 't',
                  "launchesLogged %c, count_launch %c", linked_symbol(&partial, "launchesLogged"),
                  linked_symbol(&partial, "count_launch"));
}
END_TEST

/* C++17 inline variables with C names (GNU unique, which objcopy cannot make local) build:
 * each is renamed out of every library's names in the linked copy, not refused as weak. */
START_TEST(inline_variables_are_renamed_not_refused)
{
    ck_assert_msg(legit.ok && linked_symbol(&legit, "g_wrapperCalls") == 0 &&
                  linked_symbol(&legit, "g_wrapperCalls.student") == 'u' &&
                  linked_symbol(&legit, "kDefaultThreads.student") == 'u',
                  "g_wrapperCalls %c, g_wrapperCalls.student %c, kDefaultThreads.student %c",
                  linked_symbol(&legit, "g_wrapperCalls"),
                  linked_symbol(&legit, "g_wrapperCalls.student"),
                  linked_symbol(&legit, "kDefaultThreads.student"));
}
END_TEST

START_TEST(rejects_a_line_directive)
{
    assert_rejects("has a line directive at coalescing.cu:", "(rule: asm)");
}
END_TEST

START_TEST(violation_is_the_first_line_of_the_log)
{
    ck_assert_msg(attack.log && strncmp(attack.log, "link rule: coalescing.o ", 24) == 0,
                  "log starts: %.300s", attack.log ? attack.log : "(none)");
}
END_TEST

START_TEST(passes_correct_code_written_differently)
{
    ck_assert_msg(legit.ok && !legit.refused, "device PTX asm, a template kernel, a host helper, "
                  "std::vector, __ldg, int4, annotated_ptr, #if 0, global std::vector, "
                  "std::string, std::map, a struct with a constructor, streams, events, "
                  "cudaMallocAsync, a graph and cudaLaunchKernelEx: rejected:\n%.5000s%s",
                  legit.log ? legit.log : "", legit.refused ? legit.refused : "");
}
END_TEST

/* Lab 01's spec refuses what skips its lesson (link_deny): a copy API writing the output is
 * refused with the spec's reason, at its line of the student's file. */
START_TEST(rejects_a_copy_api_in_place_of_a_kernel_with_its_reason_and_line)
{
    assert_rejects("calls 'cudaMemcpyAsync' (coalescing.cu:", "refused in this lab: a copy or "
                   "memset API");
    assert_rejects("calls 'cudaMemcpyAsync'", "(rule: calls (lesson))");
}
END_TEST

/* What bypasses the link evidence or writes files is denied in every lab, CUDA runtime
 * names included: the runtime's export table of driver entry points and its log file. */
START_TEST(rejects_runtime_calls_that_defeat_grading)
{
    assert_rejects("calls 'cudaGetExportTable' (coalescing.cu:", "(rule: calls (driver-api))");
    assert_rejects("calls 'cudaLogsDumpToFile'", "(rule: calls (file-access))");
}
END_TEST

START_TEST(missing_objdump_means_not_enforced_never_a_fail)
{
    cml_link_outcome out;
    char *cu[] = { "coalescing.cu" }, *pristine[] = { "harness.o", "common/cml_lab.o" };
    setenv("CML_OBJDUMP", "/nonexistent/objdump", 1);
    int rc = cml_link_check(&lab01->link, attack.dir, cu, 1, pristine, 2, "kept", &out);
    unsetenv("CML_OBJDUMP");
    ck_assert_msg(rc == CML_LINK_NOT_ENFORCED && out.report &&
                  strstr(out.report, "link rules not enforced: objdump not found"),
                  "rc %d, report: %s", rc, out.report ? out.report : "(none)");
    cml_link_outcome_free(&out);
}
END_TEST

START_TEST(link_rules_parse_error_names_file_and_line)
{
    char dir[64], path[CML_PATH], err[512];
    cml_link_rules *r = calloc(1, sizeof *r);
    test_tmpdir(dir, sizeof dir);
    cml_fmt(path, sizeof path, "%s/link.rules", dir);
    test_write(path, "# shared rules\ncalls memcpy\nallow strlen\n");
    int rc = cml_link_rules_load(path, r, err, sizeof err);
    free(r);
    cml_rmtree(dir);
    ck_assert_msg(rc < 0 && strstr(err, "link.rules:3: unknown directive 'allow'"), "%s", err);
}
END_TEST

START_TEST(api_names_match_a_cxx_function_by_its_top_level_name)
{
    ck_assert(cml_link_match(&lab01->link, CML_LINK_API,
                             "_Z21launch_copy_coalescedPfPKfmP11CUstream_st", NULL));
    ck_assert(!cml_link_match(&lab01->link, CML_LINK_API, "_Z8cml_todoPKcS0_", NULL));
}
END_TEST

/* A call from another section to a file-local function names it as `.text+<its start - 4>`.
 * Under -fcf-protection (the GPU machines' g++ 13) nvcc's __cudaUnregisterBinaryUtil at .text 0
 * is 16 bytes long, so that addend lies inside it: the callee is still the function that
 * starts 4 bytes on (seen on an H100: an honest global object refused as "uses
 * __cudaUnregisterFatBinary"). An absolute reference (no LR_PAST_OPERAND) stays where it is. */
START_TEST(an_operand_names_the_function_that_starts_past_it)
{
    lr_func funcs[] = { { "_ZL26__cudaUnregisterBinaryUtilv", ".text", 0, 0x10 },
                        { "_M_erase.isra.0", ".text", 0x10, 0x35d },
                        { "inside", ".text", 0x400, 0x40 } };
    lr_object o = { .funcs = funcs, .nfuncs = 3 };
    lr_reloc call = { ".text.unlikely", 0x1a9, ".text", 0xc };
    lr_reloc mid = { ".text.startup", 0x20, ".text", 0x410 }; /* not a start: the one holding it */
    const char *to = lr_rel_target(&o, &call, LR_PAST_OPERAND);
    ck_assert_msg(to && strcmp(to, "_M_erase.isra.0") == 0, "call .text+0xc went to %s", to);
    to = lr_rel_target(&o, &call, 0);
    ck_assert_msg(to && strcmp(to, "_ZL26__cudaUnregisterBinaryUtilv") == 0, "absolute: %s", to);
    to = lr_rel_target(&o, &mid, LR_PAST_OPERAND);
    ck_assert_msg(to && strcmp(to, "inside") == 0, "inside a function: %s", to);
}
END_TEST

/* Who calls whom, from the relocations and the disassembly: a branch the assembler resolved
 * (no relocation) goes where objdump says, but a relocated one's field is zero and objdump
 * names whatever follows it, here the next function (a cold part ending in a call of
 * _Unwind_Resume, a host stub's 5-byte jump): that is not a call of the next function, which
 * made the forbid check follow f into g and blame f for what g calls. */
START_TEST(a_relocated_branch_calls_its_relocation_not_the_next_function)
{
    lr_func funcs[] = { { "f", ".text", 0, 0x10 }, { "g", ".text", 0x10, 0x10 } };
    lr_reloc rels[] = { { ".text", 0xc, "puts", -4 } };
    char disasm[] = "0000000000000000 <f>:\n"
                    "   0:\t55                   \tpush   %rbp\n"
                    "   b:\te9 00 00 00 00       \tjmp    10 <g>\n"
                    "\n0000000000000010 <g>:\n"
                    "  10:\te8 eb ff ff ff       \tcall   0 <f>\n";
    lr_object o = { .funcs = funcs, .nfuncs = 2, .rels = rels, .nrels = 1, .disasm = disasm };
    char *text = lr_calls_text(&o);
    ck_assert_msg(text && strstr(text, "f puts\n") && strstr(text, "g f\n") &&
                  !strstr(text, "f g\n"), "calls:\n%s", text ? text : "(none)");
    free(text);
}
END_TEST

/* The GPU machines' g++ 13 compiles with -fcf-protection (Ubuntu's default; Debian's g++ 12
 * here does not), so every function starts with endbr64 and the objects are laid out otherwise:
 * there the honest tests/honest/01_coalescing/global_objects lost its whole lab to the
 * constructors rule twice (an unrelocated call beside the initializer; a call to `.text+0xc`
 * read as nvcc's 16-byte __cudaUnregisterBinaryUtil). Its file, compiled so beside the legit
 * build's objects, passes every link rule. */
START_TEST(passes_global_objects_compiled_as_the_gpu_machines_do)
{
    char *log = NULL, arch[32], src[CML_PATH], dst[CML_PATH], err[256];
    snprintf(arch, sizeof arch, "-arch=sm_%d", legit.cc);
    cml_fmt(src, sizeof src, "%s", test_path("tests/honest/01_coalescing/global_objects/"
                                             "coalescing.cu"));
    cml_fmt(dst, sizeof dst, "%s/cet.cu", legit.dir);
    ck_assert_msg(cml_copy_file(src, dst, 1 << 20, err, sizeof err) == 0, "%s", err);
    char *args[] = { CML_NVCC_LANG, arch, "-Xcompiler", "-fcf-protection=full", "-Icommon",
                     "-I.", "-c", "cet.cu", "-o", "cet.o", NULL };
    int built = cml_nvcc(args, legit.dir, 0, 600, &log) == 0;
    ck_assert_msg(built, "nvcc -fcf-protection=full: %s", log ? log : "");
    free(log);
    cml_link_outcome out;
    char *cu[] = { "cet.cu" }, *pristine[1 + CML_NCOMMON] = { "harness.o" };
    for (int i = 0; i < CML_NCOMMON; i++) /* as the build checks it: the library's objects */
        pristine[1 + i] = cml_object_of(CML_COMMON_SOURCES[i]);
    int rc = cml_link_check(&lab01->link, legit.dir, cu, 1, pristine, 1 + CML_NCOMMON, "kept",
                            &out);
    for (int i = 0; i < CML_NCOMMON; i++)
        free(pristine[1 + i]);
    ck_assert_msg(rc == CML_LINK_PASSED && !(out.report && strstr(out.report, "link rule: ")),
                  "rc %d:\n%.3000s\n%.2000s", rc, out.report ? out.report : "",
                  out.by_api ? out.by_api : "");
    cml_link_outcome_free(&out);
}
END_TEST

/* Both builds happen once, before the tests (they take a few seconds each). */
Suite *link_suite(void)
{
    Suite *s = suite_create("link");
    TCase *tc = tcase_create("attacks and correct code");
    tcase_set_timeout(tc, 900);
    tcase_add_unchecked_fixture(tc, build_both, clean_both);
    tcase_add_test(tc, rejects_a_definition_of_clock_gettime);
    tcase_add_test(tc, rejects_a_definition_of_main);
    tcase_add_test(tc, rejects_the_environment_past_getenv);
    tcase_add_test(tc, getenv_is_pointed_at_the_harness_answer);
    tcase_add_test(tc, rejects_a_strong_copy_of_a_harness_function);
    tcase_add_test(tc, makes_a_c_linkage_kernel_file_local_instead_of_refusing_it);
    tcase_add_test(tc, rejects_an_operator_new_replacement);
    tcase_add_test(tc, rejects_a_static_constructor);
    tcase_add_test(tc, rejects_a_global_object_with_a_destructor);
    tcase_add_test(tc, rejects_a_global_object_built_at_a_priority);
    tcase_add_test(tc, rejects_an_atexit_call);
    tcase_add_test(tc, rejects_work_hidden_in_the_iostream_initializer);
    tcase_add_test(tc, rejects_a_table_of_a_host_function_named_like_a_kernel);
    tcase_add_test(tc, rejects_fopen);
    tcase_add_test(tc, rejects_execve_through_a_function_pointer_table);
    tcase_add_test(tc, rejects_dlopen);
    tcase_add_test(tc, rejects_the_grading_seed);
    tcase_add_test(tc, rejects_nvtx_which_could_widen_the_sanitizer_regions);
    tcase_add_test(tc, rejects_the_harness_library_past_its_student_api);
    tcase_add_test(tc, rejects_the_driver_api);
    tcase_add_test(tc, rejects_cuda_get_driver_entry_point);
    tcase_add_test(tc, rejects_a_syscall_instruction_in_host_code);
    tcase_add_test(tc, rejects_an_asm_statement_in_host_code);
    tcase_add_test(tc, makes_an_exported_global_variable_file_local_instead_of_refusing_it);
    tcase_add_test(tc, refused_call_costs_only_the_tasks_whose_wrappers_reach_it);
    tcase_add_test(tc, refused_call_points_at_a_trap_in_the_linked_object);
    tcase_add_test(tc, global_variable_and_c_helper_are_linked_file_local);
    tcase_add_test(tc, inline_variables_are_renamed_not_refused);
    tcase_add_test(tc, rejects_a_line_directive);
    tcase_add_test(tc, violation_is_the_first_line_of_the_log);
    tcase_add_test(tc, passes_correct_code_written_differently);
    tcase_add_test(tc, rejects_a_copy_api_in_place_of_a_kernel_with_its_reason_and_line);
    tcase_add_test(tc, rejects_runtime_calls_that_defeat_grading);
    tcase_add_test(tc, missing_objdump_means_not_enforced_never_a_fail);
    tcase_add_test(tc, link_rules_parse_error_names_file_and_line);
    tcase_add_test(tc, api_names_match_a_cxx_function_by_its_top_level_name);
    tcase_add_test(tc, an_operand_names_the_function_that_starts_past_it);
    tcase_add_test(tc, a_relocated_branch_calls_its_relocation_not_the_next_function);
    tcase_add_test(tc, passes_global_objects_compiled_as_the_gpu_machines_do);
    suite_add_tcase(s, tc);
    return s;
}
