/* The batch's progress display (batch_progress.c): a status line rewritten in place on a
 * terminal, plain lines elsewhere; and when the scheduler starts a grading (batch_run.c). */
#include <check.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch_progress.h"
#include "batch_run.h"
#include "suites.h"

static const cml_student_status GRADED = { .state = "graded", .score = 270, .max = 280,
                                           .seconds = 41.5, .gpu = 1 };
static const cml_student_status KILLED = { .state = "timeout", .why = "took too long" };

/* What the display wrote for: one graded, one timed out, a tick, a note; on a terminal or not. */
static char *render(int tty)
{
    int master = -1, slave = -1;
    static char buf[8192];
    FILE *f;
    char *mem = NULL;
    size_t len = 0;
    if (tty) {
        ck_assert_msg(openpty(&master, &slave, NULL, NULL, NULL) == 0, "no pseudo-terminal");
        f = fdopen(slave, "w");
    } else {
        f = open_memstream(&mem, &len);
    }
    cml_progress p;
    cml_progress_init(&p, f, 10, 2, 100.0);
    cml_progress_finished(&p, 120.0, "alice", &GRADED);
    cml_progress_tick(&p, 130.0, 3);
    cml_progress_finished(&p, 140.0, "eve", &KILLED);
    cml_progress_note(&p, "drift check on GPU 0: ok");
    fclose(f);
    if (!tty) {
        snprintf(buf, sizeof buf, "%s", mem);
        free(mem);
        return buf;
    }
    /* every chunk until the closed slave side reads as the end (EIO): one read may return
     * only the first of them on a loaded machine (seen once in make check) */
    size_t got = 0;
    for (ssize_t n;
         got < sizeof buf - 1 && (n = read(master, buf + got, sizeof buf - 1 - got)) > 0;)
        got += (size_t)n;
    buf[got] = '\0';
    close(master);
    return buf;
}

START_TEST(plain_lines_when_not_a_terminal)
{
    const char *out = render(0);
    ck_assert_msg(!strchr(out, '\r') && !strchr(out, '\033') &&
                  strstr(out, "3/10 alice: 270/280 (41.5 s, GPU 1); 20.0 s/submission, about "
                         "2m20s left, 0 failures so far\n") &&
                  strstr(out, "4/10 eve: timeout: took too long; 20.0 s/submission, about 2m00s "
                         "left, 1 failure so far\n") && !strstr(out, "running"),
                  "plain output:\n%s", out);
}
END_TEST

START_TEST(status_line_in_place_on_a_terminal)
{
    const char *out = render(1);
    /* 7 students left after alice; at 130 s, 30 s since the start for her one */
    ck_assert_msg(strstr(out, "\r\033[K[3/10 done, 3 running, 0 failed] 30s elapsed, "
                         "30.0 s/submission, about 3m30s left") &&
                  strstr(out, "\r\033[K4/10 eve: timeout") &&
                  strstr(out, "\r\033[Kdrift check on GPU 0: ok"), "terminal output:\n%s", out);
}
END_TEST

/* Contract in suites.h. */
/* Two gradings of one GPU started together built together and ended together, the GPU idle
 * through each pair's builds: a grading starts only once the other of its GPU is `stagger`
 * seconds old (or gone); drift checks and other GPUs do not count. */
START_TEST(gradings_of_one_gpu_start_staggered)
{
    cml_batch *b = calloc(1, sizeof *b);
    ck_assert_ptr_nonnull(b);
    b->ngpus = 2, b->per_gpu = 2;
    ck_assert_int_eq(cml_batch_may_start(b, 0, 100.0, 10.0), 1); /* nothing runs */
    b->slot[0][0] = (cml_slot){ .pid = 4242, .entry = 3, .t0 = 100.0 };
    ck_assert_int_eq(cml_batch_may_start(b, 0, 104.0, 10.0), 0);
    ck_assert_int_eq(cml_batch_may_start(b, 0, 110.5, 10.0), 1);
    ck_assert_int_eq(cml_batch_may_start(b, 1, 104.0, 10.0), 1); /* another GPU */
    ck_assert_int_eq(cml_batch_may_start(b, 0, 104.0, 0.0), 1);  /* CML_BATCH_STAGGER=0 */
    b->slot[0][0].entry = -1; /* a drift check, not a grading */
    ck_assert_int_eq(cml_batch_may_start(b, 0, 104.0, 10.0), 1);
    b->slot[0][0] = (cml_slot){ .pid = 0, .entry = 3, .t0 = 100.0 }; /* it ended early */
    ck_assert_int_eq(cml_batch_may_start(b, 0, 101.0, 10.0), 1);
    free(b);
}
END_TEST

void batch_progress_add(Suite *s)
{
    TCase *tc = tcase_create("progress");
    tcase_add_test(tc, plain_lines_when_not_a_terminal);
    tcase_add_test(tc, status_line_in_place_on_a_terminal);
    tcase_add_test(tc, gradings_of_one_gpu_start_staggered);
    suite_add_tcase(s, tc);
}
