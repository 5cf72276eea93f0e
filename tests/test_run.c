/* The sandbox (run.c): capture, exit status and signals, exec failures, timeouts that kill the
 * whole process group, output floods, the result descriptor, limits and environment. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "run.h"
#include "sandbox.h"
#include "stage.h"
#include "suites.h"
#include "util.h"

#include <sys/stat.h>

static cml_proc_result res;

static void teardown(void)
{
    cml_proc_result_free(&res);
}

/* Run `sh -c script` with a timeout and output cap; returns cml_run's result. */
static int sh(const char *script, double timeout_s, size_t cap)
{
    char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
    cml_proc_result_free(&res);
    return cml_run(argv, NULL, NULL, -1, timeout_s, cap, &res);
}

/* Whether pid is gone (or a zombie nobody reaped), waiting up to two seconds. */
static int process_gone(pid_t pid)
{
    for (int i = 0; i < 200; i++) {
        char path[64], state = '?';
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (!f)
            return 1;
        int got = fscanf(f, "%*d %*s %c", &state);
        fclose(f);
        if (got == 1 && (state == 'Z' || state == 'X'))
            return 1;
        usleep(10000);
    }
    return 0;
}

START_TEST(captures_stdout_and_stderr_in_one_stream)
{
    sh("echo out; echo err >&2", 10, 4096);
    ck_assert_str_eq(res.output, "out\nerr\n");
}
END_TEST

START_TEST(reports_the_exit_code)
{
    sh("exit 7", 10, 4096);
    ck_assert_msg(res.exited && res.exit_code == 7, "exited=%d code=%d", res.exited,
                  res.exit_code);
}
END_TEST

START_TEST(reports_the_killing_signal)
{
    sh("kill -SEGV $$", 10, 4096);
    ck_assert_msg(res.signaled && res.signal == SIGSEGV, "signaled=%d signal=%d", res.signaled,
                  res.signal);
}
END_TEST

START_TEST(exec_failure_is_reported_as_not_started)
{
    char *argv[] = { "/nonexistent/lab", NULL };
    int rc = cml_run(argv, NULL, NULL, -1, 10, 4096, &res);
    ck_assert_msg(rc == -1 && !res.started && strstr(res.output, "/nonexistent/lab"),
                  "rc=%d started=%d output=%s", rc, res.started, res.output);
}
END_TEST

START_TEST(exit_127_of_the_program_is_an_exit_code_not_an_exec_failure)
{
    int rc = sh("exit 127", 10, 4096);
    ck_assert_msg(rc == 0 && res.started && res.exit_code == 127, "rc=%d started=%d code=%d",
                  rc, res.started, res.exit_code);
}
END_TEST

START_TEST(timeout_kills_the_whole_process_group)
{
    sh("sleep 30 & echo $!; sleep 30", 0.5, 4096);
    pid_t grandchild = (pid_t)atoi(res.output);
    ck_assert_msg(res.timed_out && grandchild > 0 && process_gone(grandchild),
                  "timed_out=%d, grandchild %d still alive", res.timed_out, (int)grandchild);
}
END_TEST

START_TEST(stray_grandchild_dies_when_the_child_exits)
{
    sh("sleep 30 & echo $!", 10, 4096);
    pid_t grandchild = (pid_t)atoi(res.output);
    ck_assert_msg(grandchild > 0 && process_gone(grandchild), "grandchild %d still alive",
                  (int)grandchild);
}
END_TEST

START_TEST(output_beyond_the_cap_is_not_kept)
{
    sh("head -c 100000000 /dev/zero", 30, 4096);
    ck_assert_uint_le(res.output_len, 4096);
}
END_TEST

START_TEST(output_beyond_the_cap_is_drained_and_counted)
{
    sh("head -c 100000000 /dev/zero", 30, 4096);
    ck_assert_msg(!res.timed_out && res.output_len + res.output_dropped == 100000000,
                  "timed_out=%d kept=%zu dropped=%zu", res.timed_out, res.output_len,
                  res.output_dropped);
}
END_TEST

START_TEST(result_fd_reaches_the_child_under_its_number)
{
    int fd = cml_result_fd_open();
    char *argv[] = { "/bin/sh", "-c", "echo done >&$CML_RESULT_FD", NULL };
    cml_run(argv, NULL, NULL, fd, 10, 4096, &res);
    char *text = cml_result_fd_read(fd, NULL);
    close(fd);
    ck_assert_str_eq(text, "done\n");
    free(text);
}
END_TEST

START_TEST(inherited_result_fd_variable_is_removed_without_a_result_fd)
{
    setenv("CML_RESULT_FD", "5", 1);
    sh("echo \"[$CML_RESULT_FD]\"", 10, 4096);
    ck_assert_str_eq(res.output, "[]\n");
}
END_TEST

START_TEST(other_descriptors_are_closed_in_the_child)
{
    int fd = open("/dev/null", O_RDONLY); /* deliberately without O_CLOEXEC */
    char script[128];
    snprintf(script, sizeof script, "test -e /proc/self/fd/%d && echo open || echo closed", fd);
    sh(script, 10, 4096);
    close(fd);
    ck_assert_str_eq(res.output, "closed\n");
}
END_TEST

START_TEST(stdin_reads_as_empty)
{
    sh("cat; echo end", 5, 4096);
    ck_assert_str_eq(res.output, "end\n");
}
END_TEST

START_TEST(extra_environment_reaches_the_child_and_overrides)
{
    setenv("CML_TEST_VAR", "inherited", 1);
    char *argv[] = { "/bin/sh", "-c", "echo $CML_TEST_VAR", NULL };
    char *env[] = { "CML_TEST_VAR=extra", NULL };
    cml_run(argv, env, NULL, -1, 10, 4096, &res);
    ck_assert_str_eq(res.output, "extra\n");
}
END_TEST

START_TEST(runs_in_the_given_folder)
{
    char *argv[] = { "/bin/sh", "-c", "pwd", NULL };
    cml_run(argv, NULL, "/tmp", -1, 10, 4096, &res);
    ck_assert_str_eq(res.output, "/tmp\n");
}
END_TEST

START_TEST(limits_are_those_cuda_tolerates)
{
    sh("ulimit -n; ulimit -c; ulimit -v", 10, 4096);
    ck_assert_str_eq(res.output, "1024\n0\nunlimited\n");
}
END_TEST

START_TEST(file_size_is_capped)
{
    sh("ulimit -f", 10, 4096);
    ck_assert_str_eq(res.output, "16777216\n"); /* 8 GiB in 512-byte blocks */
}
END_TEST

START_TEST(wall_time_is_measured)
{
    sh("sleep 0.3", 10, 4096);
    ck_assert_msg(res.wall_s >= 0.29 && res.wall_s < 5, "wall_s=%g", res.wall_s);
}
END_TEST

START_TEST(no_zombie_is_left_behind)
{
    sh("sleep 30 & exit 0", 10, 4096);
    sh("kill -KILL $$", 10, 4096);
    errno = 0;
    pid_t p = waitpid(-1, NULL, WNOHANG);
    ck_assert_msg(p == -1 && errno == ECHILD, "waitpid found child %d", (int)p);
}
END_TEST

/* A copy of stat(1) run confined in `dir`, asked about dir's full path: what Nsight Compute
 * does with its working folder. Its exit status. */
static int stat_own_folder(const char *dir)
{
    char *argv[] = { "./lab", "-c", "%n", (char *)dir, NULL };
    cml_proc_result_free(&res);
    cml_run_sandboxed(argv, NULL, dir, NULL, -1, NULL, 10, 4096, &res);
    ck_assert_msg(res.started, "stat did not start: %s", res.output ? res.output : "");
    return res.exit_code;
}

/* As root the lab runs as nobody, which cannot pass through a closed folder such as /root:
 * its run folder must then lie where nobody can reach it by its full path, or ncu stops with
 * "status: Permission denied" (H100). Not root: the run folder lies in the given parent. */
START_TEST(run_folder_is_reachable_by_the_labs_user)
{
    char top[64], parent[CML_PATH], dir[CML_PATH], err[256];
    test_tmpdir(top, sizeof top);
    chmod(top, 0700); /* closed, like /root */
    cml_fmt(parent, sizeof parent, "%s/work", top);
    ck_assert_msg(cml_sandbox_scratch(parent, "t", "/usr/bin/stat", dir, sizeof dir, err,
                                      sizeof err) == 0, "%s", err);
    if (!cml_sandbox_caps_get()->drop_user) {
        ck_assert_msg(strncmp(dir, parent, strlen(parent)) == 0, "%s not in %s", dir, parent);
    } else {
        struct stat st;
        const char *base = cml_sandbox_run_parent(parent);
        ck_assert(stat(base, &st) == 0);
        ck_assert_msg((st.st_mode & 07777) == 0711 && st.st_uid == 0,
                      "%s: mode %o, owner %d (want 0711, root: passable, not listable)", base,
                      st.st_mode & 07777, (int)st.st_uid);
    }
    ck_assert_msg(stat_own_folder(dir) == 0, "the lab cannot reach %s: %s", dir,
                  res.output ? res.output : "");
    cml_rmtree(dir);
    cml_rmtree(top);
}
END_TEST

/* Counterpart: a run folder under a closed folder, as the grader made them before; as root the
 * lab's user cannot reach it, so the test above can fail. */
START_TEST(run_folder_under_a_closed_folder_is_unreachable_as_nobody)
{
    char top[64], dir[CML_PATH], err[256];
    test_tmpdir(top, sizeof top);
    chmod(top, 0700);
    cml_fmt(dir, sizeof dir, "%s/run", top);
    ck_assert(mkdir(dir, 0700) == 0);
    char lab[CML_PATH];
    cml_fmt(lab, sizeof lab, "%s/lab", dir);
    ck_assert_msg(cml_copy_file("/usr/bin/stat", lab, 1 << 30, err, sizeof err) == 0, "%s", err);
    chmod(lab, 0755);
    int rc = stat_own_folder(dir);
    if (cml_sandbox_caps_get()->drop_user)
        ck_assert_msg(rc != 0, "nobody reached %s through a 0700 folder", dir);
    else
        ck_assert_int_eq(rc, 0); /* its own user passes through its own folders */
    cml_rmtree(top);
}
END_TEST

/* The sandbox's tests. */
Suite *run_suite(void)
{
    Suite *s = suite_create("run");
    run_turn_add(s);
    TCase *tc = tcase_create("sandbox");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, captures_stdout_and_stderr_in_one_stream);
    tcase_add_test(tc, reports_the_exit_code);
    tcase_add_test(tc, reports_the_killing_signal);
    tcase_add_test(tc, exec_failure_is_reported_as_not_started);
    tcase_add_test(tc, exit_127_of_the_program_is_an_exit_code_not_an_exec_failure);
    tcase_add_test(tc, timeout_kills_the_whole_process_group);
    tcase_add_test(tc, stray_grandchild_dies_when_the_child_exits);
    tcase_add_test(tc, output_beyond_the_cap_is_not_kept);
    tcase_add_test(tc, output_beyond_the_cap_is_drained_and_counted);
    tcase_add_test(tc, result_fd_reaches_the_child_under_its_number);
    tcase_add_test(tc, inherited_result_fd_variable_is_removed_without_a_result_fd);
    tcase_add_test(tc, other_descriptors_are_closed_in_the_child);
    tcase_add_test(tc, stdin_reads_as_empty);
    tcase_add_test(tc, extra_environment_reaches_the_child_and_overrides);
    tcase_add_test(tc, runs_in_the_given_folder);
    tcase_add_test(tc, limits_are_those_cuda_tolerates);
    tcase_add_test(tc, file_size_is_capped);
    tcase_add_test(tc, wall_time_is_measured);
    tcase_add_test(tc, no_zombie_is_left_behind);
    tcase_add_test(tc, run_folder_is_reachable_by_the_labs_user);
    tcase_add_test(tc, run_folder_under_a_closed_folder_is_unreachable_as_nobody);
    suite_add_tcase(s, tc);
    return s;
}
