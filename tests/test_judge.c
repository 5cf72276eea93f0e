/* Judged once (issue 43): the judge is a pure function of a task's findings, the questions the
 * pipeline asks of findings (findings.h) give the answers the judge's precedence gives, and
 * nothing but publish.c writes a status, points or a total, nor calls the judge. Added to the
 * status suite. No GPU. */
#include <check.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "helpers.h"
#include "judge.h"
#include "suites.h"
#include "util.h"

static cml_task_spec spec = {.id = "1.1", .points = 6, .perf_points = 4, .technique_points = 2,
                             .ncases = 3, .ntech = 1};

/* Findings drawn from the whole space a stage can record, from x (a xorshift state). */
static void draw_findings(cml_task_result *r, uint64_t *x)
{
    static const enum cml_stop STOPPED[] = {
        CML_STOP_NONE, CML_STOP_NONE, CML_STOP_NONE, CML_STOP_NOT_BUILT, CML_STOP_NOT_HANDED_IN,
        CML_STOP_NO_GPU, CML_STOP_NOT_RUN, CML_STOP_CRASHED, CML_STOP_TIMED_OUT };
    static const double PERF[] = { 0, 0.4, 1 };
#define DRAW(n) (*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17, (int)(*x % (n)))
    memset(r, 0, sizeof *r);
    r->spec = &spec;
    snprintf(r->found.tampered, sizeof r->found.tampered, "%s", DRAW(6) ? "" : "forged");
    r->found.stopped = STOPPED[DRAW(9)];
    r->found.faults = DRAW(3) ? 0 : CML_FAULT_WRONG | (unsigned)DRAW(16); /* any mix */
    r->found.checked = DRAW(2);
    r->tech[0].state = (enum cml_tech_state)DRAW(4);
    for (int k = 0; k < CML_SANITIZERS; k++)
        r->sanitizers[k].state = DRAW(5) ? CML_TECH_PASSED : CML_TECH_FAILED;
    r->credit = (cml_credit){ .cases = DRAW(4), .perf = PERF[DRAW(3)], .technique = DRAW(2) };
    r->timed = DRAW(2);
    snprintf(r->found.why, sizeof r->found.why, "why %d", DRAW(100));
#undef DRAW
}

/* Over 20000 drawn findings: solved, slow, ran, todo and a memory error as findings.h answers
 * them are what the judge's status says. */
START_TEST(findings_questions_agree_with_the_judge)
{
    uint64_t x = 88172645463325252ull;
    cml_task_result *r = malloc(sizeof *r);
    for (int i = 0; i < 20000; i++) {
        draw_findings(r, &x);
        const enum cml_status s = cml_judge(r).status;
        const int open = !r->found.tampered[0] && r->found.stopped == CML_STOP_NONE;
        ck_assert_msg(cml_found_solved(r) == cml_status_solved(s), "draw %d: %s", i,
                      cml_status_name(s));
        ck_assert_msg(cml_found_slow(r) == (s == CML_STATUS_SLOW && r->timed), "draw %d: %s", i,
                      cml_status_name(s));
        ck_assert_msg(cml_found_ran(r) == cml_status_ran(s), "draw %d: %s", i,
                      cml_status_name(s));
        ck_assert_msg(!open || cml_found_memory_error(r) == (s == CML_STATUS_SANITIZER),
                      "draw %d: %s", i, cml_status_name(s));
        ck_assert_msg(cml_found_todo(r) == (s == CML_STATUS_TODO), "draw %d: %s", i,
                      cml_status_name(s));
        ck_assert_msg(!open || cml_found_memory_error(r) || cml_found_guard_fault(r) == 0,
                      "draw %d: a guard region's fault that is no memory error", i);
    }
    free(r);
}
END_TEST

/* The judge reads the findings and writes nothing: the same verdict twice, the result unchanged
 * (its published fields included). */
START_TEST(the_judge_is_pure)
{
    uint64_t x = 12345;
    cml_task_result *r = malloc(sizeof *r), *before = malloc(sizeof *r);
    for (int i = 0; i < 2000; i++) {
        draw_findings(r, &x);
        memcpy(before, r, sizeof *r);
        cml_verdict a = cml_judge(r), b = cml_judge(r);
        ck_assert(memcmp(r, before, sizeof *r) == 0);
        ck_assert(a.status == b.status && a.score == b.score && !strcmp(a.detail, b.detail));
    }
    free(r);
    free(before);
}
END_TEST

/* The lines of text that write a task's, a lab's or a grading's status, points or total
 * ("x->status = ...", "lab->score += ..."), one "file:line" each into why; how many. */
static int verdict_writes(const char *file, const char *text, char *why, size_t len)
{
    regex_t re;
    ck_assert(regcomp(&re, "(->|\\.)(status|score|max_score|correctness_score|perf_score|"
                      "technique_score)[[:space:]]*[-+]?=[^=]", REG_EXTENDED) == 0);
    int n = 0, line = 1;
    for (const char *p = text; *p; line++) {
        const char *end = strchr(p, '\n');
        size_t l = end ? (size_t)(end - p) : strlen(p);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(l < sizeof buf - 1 ? l : sizeof buf - 1), p);
        if (regexec(&re, buf, 0, NULL, 0) == 0 && !strstr(buf, "CML_CASE_")) {
            size_t used = strlen(why);
            snprintf(why + used, len - used, "%s:%d: %s\n", file, line, buf);
            n++;
        }
        p += l + (end != NULL);
    }
    regfree(&re);
    return n;
}

/* The scanner itself: a status, a score and a total written are found; a case record's
 * status and a comparison are not. */
START_TEST(a_written_status_is_found)
{
    char why[1024] = "";
    ck_assert_int_eq(verdict_writes("x.c", "    r->status = CML_STATUS_PASSED;\n"
                                    "    lab->score += t->score;\n    r.max_score=1;\n"
                                    "    c->status = CML_CASE_OK;\n"
                                    "    if (r->status == CML_STATUS_SLOW)\n", why, sizeof why),
                     3);
    ck_assert_msg(strstr(why, "x.c:1:") && strstr(why, "x.c:2:") && strstr(why, "x.c:3:"),
                  "%s", why);
}
END_TEST

/* Every file of the grader but the class tools (which read records back into types of their
 * own: a gradebook's row, a batch's status), the sandbox (a process's exit status) and the
 * judge's own verdict: only publish.c writes a status, points or a total. */
START_TEST(only_publish_writes_a_verdict)
{
    char why[4096] = "", cmd[CML_PATH + 64], file[CML_PATH];
    int n = 0;
    cml_fmt(cmd, sizeof cmd, "cd '%s' && find grader/src -name '*.c' | sort", test_root());
    FILE *p = popen(cmd, "r");
    ck_assert(p != NULL);
    while (fgets(file, sizeof file, p)) {
        file[strcspn(file, "\n")] = '\0';
        if (strstr(file, "/class/") || strstr(file, "/9_class/") || strstr(file, "/sandbox/") ||
            strstr(file, "/publish.c") || strstr(file, "/judge.c"))
            continue;
        char *text = cml_read_text(test_path(file), 1 << 20, NULL);
        ck_assert_msg(text != NULL, "cannot read %s", file);
        n += verdict_writes(file, text, why, sizeof why);
        free(text);
    }
    pclose(p);
    ck_assert_msg(n == 0, "a verdict written outside publish.c:\n%s", why);
}
END_TEST

/* The objects under root (a shell glob of sources, each object at build/obj/<source>.o) that
 * refer to cml_judge, by `nm`, one per line into all; how many, and *publish how many of them
 * are publish.o. Objects of sources that no longer exist are not read: a build folder may keep
 * those of files since moved. */
static int judge_callers(const char *root, const char *sources, char *all, size_t len,
                         int *publish)
{
    char cmd[CML_PATH + 300], line[256];
    cml_fmt(cmd, sizeof cmd, "cd '%s' && for c in %s; do o=build/obj/${c%%.c}.o; [ -f \"$o\" ] "
            "&& nm -P \"$o\" | grep -q '^cml_judge U' && echo \"$o\"; done", root, sources);
    FILE *p = popen(cmd, "r");
    ck_assert(p != NULL);
    int n = 0;
    *publish = 0;
    all[0] = '\0';
    while (fgets(line, sizeof line, p)) {
        n++;
        *publish += strstr(line, "/publish.o") != NULL;
        size_t used = strlen(all);
        snprintf(all + used, len - used, "%.200s", line);
    }
    pclose(p);
    return n;
}

START_TEST(only_publish_calls_the_judge)
{
    char all[1024];
    int publish, n = judge_callers(test_root(), "grader/src/*/*.c", all, sizeof all, &publish);
    ck_assert_msg(n == 1 && publish == 1, "objects calling cml_judge:\n%s", all);
}
END_TEST

/* The scan itself: an object that calls cml_judge is found, one that defines it is not. */
START_TEST(a_call_of_the_judge_is_found)
{
    char dir[CML_PATH], cmd[2 * CML_PATH + 200], all[1024];
    test_tmpdir(dir, sizeof dir);
    cml_fmt(cmd, sizeof cmd, "cd '%s' && mkdir -p src build/obj/src && "
            "printf 'void cml_judge(void);\\nvoid f(void) { cml_judge(); }\\n' > src/a.c && "
            "printf 'void cml_judge(void) {}\\n' > src/b.c && "
            "cc -c src/a.c -o build/obj/src/a.o && cc -c src/b.c -o build/obj/src/b.o", dir);
    ck_assert_int_eq(system(cmd), 0);
    int publish, n = judge_callers(dir, "src/*.c", all, sizeof all, &publish);
    ck_assert_msg(n == 1 && publish == 0 && strstr(all, "build/obj/src/a.o"), "%d: %s", n, all);
    cml_rmtree(dir);
}
END_TEST

/* Contract in suites.h. */
void judge_add(Suite *s)
{
    TCase *tc = tcase_create("judged_once");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, findings_questions_agree_with_the_judge);
    tcase_add_test(tc, the_judge_is_pure);
    tcase_add_test(tc, a_written_status_is_found);
    tcase_add_test(tc, only_publish_writes_a_verdict);
    tcase_add_test(tc, only_publish_calls_the_judge);
    tcase_add_test(tc, a_call_of_the_judge_is_found);
    suite_add_tcase(s, tc);
}
