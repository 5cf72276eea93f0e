/* The attack corpus (docs/TRUST.md, "What the grader holds anyway", 1): build/fake_lab
 * attacks the sandbox from inside a lab run graded through the real pipeline (grade_lab.c),
 * then behaves, and each test asserts the attack was refused and the grade unchanged. Each
 * protection also has a test that runs the same attack unconfined (CML_SANDBOX=off, or
 * without the supervisor) and sees it succeed: the first test is not vacuous. The fake root
 * lies beneath a folder the sandbox may read (/run) and is protected as grade.c protects the
 * repository; its files are world-writable, so Landlock, not file modes, must refuse. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cml_rand.h"
#include "grade.h"
#include "helpers.h"
#include "run.h"
#include "sandbox.h"
#include "stage.h"
#include "suites.h"
#include "util.h"

#define SEED 9876543210987ull /* long: no pid or path of the environment holds it */
#define CASE0_N 1000 /* task 1.1's first case: copy, n=1000 */

static char root[64], work[CML_PATH];
static cml_lab_spec specs[2];
static cml_lab_result result;

/* root/rel, in one of 8 static buffers. */
static const char *at(const char *rel)
{
    static char paths[8][CML_PATH];
    static int next;
    char *p = paths[next++ % 8];
    ck_assert(cml_fmt(p, CML_PATH, "%s/%s", root, rel) == 0);
    return p;
}

/* Everything beneath dir readable and writable by anyone: file modes must not be what stops
 * an attack here (the lab runs as nobody when the grader is root). */
static void open_up(const char *dir)
{
    DIR *d = opendir(dir);
    chmod(dir, 0777);
    for (struct dirent *e; d && (e = readdir(d));) {
        char p[CML_PATH];
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            cml_fmt(p, sizeof p, "%s/%s", dir, e->d_name) < 0 || lstat(p, &st) < 0)
            continue;
        if (S_ISDIR(st.st_mode))
            open_up(p);
        else
            chmod(p, (st.st_mode & 0111) ? 0777 : 0666);
    }
    if (d)
        closedir(d);
}

/* Another run's correct output of task 1.1's first case: what a link would steal. */
static void write_stolen_output(const char *path)
{
    float v[CASE0_N];
    for (int i = 0; i < CASE0_N; i++)
        v[i] = cml_rand_f32_all(SEED, 0, (uint64_t)i);
    ck_assert(cml_write_file(path, (const char *)v, sizeof v) == 0);
}

static void setup(void)
{
    char err[512];
    snprintf(root, sizeof root, "/run/cml-attack-XXXXXX");
    if (!mkdtemp(root)) /* /run is one of the sandbox's read roots: the harder case */
        test_tmpdir(root, sizeof root);
    fake_root_make(root, 10, 30);
    fake_root_specs(root, specs);
    cml_fmt(work, sizeof work, "%s/work", root);
    ck_assert(cml_mkdirs(at("out")) == 0 && cml_mkdirs(at("work/other-run")) == 0 &&
              cml_mkdirs(at("build")) == 0);
    test_write(at("out/summary.tsv"), "lab\ttask\tstatus\tscore\tmax\n01_fake\t1.1\tpassed\t6\t6\n");
    test_write(at("out/record.json"), "{\"score\": 6}\n");
    ck_assert_msg(cml_copy_file(test_path("build/fake_lab"), at("build/ref_lab"), 1 << 30, err,
                                sizeof err) == 0, "%s", err);
    chmod(at("build/ref_lab"), 0755);
    write_stolen_output(at("work/other-run/case0.bin"));
    open_up(root);
    const char *protect[] = { root };
    cml_sandbox_protect(protect, 1);
    unsetenv("CML_SANDBOX");
    unsetenv("CML_SANDBOX_MEM");
}

static void teardown(void)
{
    const char *runs = cml_sandbox_run_parent(work);
    if (strcmp(runs, work) != 0)
        cml_rmtree(runs); /* as root, kept run folders lie in the grader's folder in /tmp */
    cml_rmtree(root);
}

/* FNV-1a over every path, mode and byte beneath dir but the grader's own run folders
 * (work/01_fake-*), which it creates and may change. */
static uint64_t tree_sum(const char *dir, uint64_t h)
{
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        char p[CML_PATH];
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            (!strcmp(dir, work) && !strncmp(e->d_name, "01_fake-", 8)) ||
            cml_fmt(p, sizeof p, "%s/%s", dir, e->d_name) < 0 || lstat(p, &st) < 0)
            continue;
        h = cml_fnv1a(cml_fnv1a(h, p, strlen(p)), &st.st_mode, sizeof st.st_mode);
        size_t len = 0;
        char *text = S_ISREG(st.st_mode) ? cml_read_text(p, 1 << 30, &len) : NULL;
        h = text ? cml_fnv1a(h, text, len) : h;
        free(text);
        if (S_ISDIR(st.st_mode))
            h = tree_sum(p, h);
    }
    if (d)
        closedir(d);
    return h;
}

static uint64_t root_sum(void)
{
    return tree_sum(root, CML_FNV_INIT);
}

/* Grade lab 01_fake, keeping the run folders, with attack `mode` in task 1.1 against the
 * ':'-separated `targets`. */
static void grade_attack(const char *mode, const char *targets)
{
    setenv("FAKE_MODE", mode, 1);
    setenv("FAKE_TASK", "1.1", 1);
    setenv("FAKE_TARGETS", targets, 1);
    cml_run_opts o = { .seed = SEED, .work_dir = work, .keep = 1, .cc = 90 };
    const char *bin = test_path("build/fake_lab");
    ck_assert_int_eq(cml_grade_lab_with_binaries(&specs[0], bin, bin, &o, &result), 0);
}

static int full_marks(void)
{
    return result.max_score == 24 && fabs(result.score - result.max_score) < 1e-9;
}

/* Task 1.1's kept run folder's file `name`, read (malloc'd), or NULL: its own run's folder
 * (01_fake-1.1-out-*) when it ran alone, else the run it shared (01_fake-1.1-to-*). */
static char *run_file(const char *name)
{
    const char *runs = cml_sandbox_run_parent(work); /* as root: in /tmp, reachable by nobody */
    DIR *d = opendir(runs);
    char *alone = NULL, *shared = NULL, p[CML_PATH];
    for (struct dirent *e; d && (e = readdir(d));) {
        int own = !strncmp(e->d_name, "01_fake-1.1-out-", 16);
        char **text = own ? &alone : &shared;
        if ((own || !strncmp(e->d_name, "01_fake-1.1-to-", 15)) && !*text &&
            cml_fmt(p, sizeof p, "%s/%s/%s", runs, e->d_name, name) == 0)
            *text = cml_read_text(p, 1 << 20, NULL);
    }
    if (d)
        closedir(d);
    if (alone)
        free(shared);
    return alone ? alone : shared;
}

/* How many attempts attack.log holds, and how many ended with errno `want` (-1: any error). */
static int attempts(int want, int *matching, char **log)
{
    *log = run_file("attack.log");
    int n = 0;
    *matching = 0;
    for (const char *line = *log; line && *line; n++) {
        const char *end = strchr(line, '\n'), *sp = end;
        if (!end)
            break;
        while (sp > line && sp[-1] != ' ')
            sp--;
        int err = atoi(sp); /* "<what> <target> <errno>" */
        *matching += want < 0 ? err != 0 : err == want;
        line = end + 1;
    }
    return n;
}

/* Every one of `n` attempts ended with errno `want` (0: every one worked; -1: every one failed). */
#define ck_assert_attempts(n, want)                                                            \
    do {                                                                                       \
        char *log_;                                                                            \
        int match_, got_ = attempts(want, &match_, &log_);                                     \
        ck_assert_msg(got_ == (n) && match_ == (n), "want %d attempts with errno %d, got %d " \
                      "(%d matching); attack.log:\n%s", n, want, got_, match_,                \
                      log_ ? log_ : "(none)");                                                 \
        free(log_);                                                                            \
    } while (0)

static const char *write_targets(void)
{
    static char t[8 * CML_PATH];
    snprintf(t, sizeof t, "%s:%s:%s:%s:%s:%s/", at("grader/specs/01_fake.spec"),
             at("build/ref_lab"), at("out/summary.tsv"), at("out/record.json"),
             at("work/other-run/case0.bin"), at("out"));
    return t;
}

START_TEST(write_outside_run_folder_is_refused)
{
    uint64_t before = root_sum();
    grade_attack("attack_write", write_targets());
    ck_assert_attempts(6, EACCES);
    ck_assert_msg(root_sum() == before, "a file outside the run folder changed");
    ck_assert_msg(full_marks(), "score %g of %g", result.score, result.max_score);
}
END_TEST

START_TEST(write_outside_run_folder_succeeds_unconfined)
{
    setenv("CML_SANDBOX", "off", 1);
    uint64_t before = root_sum();
    grade_attack("attack_write", write_targets());
    ck_assert_attempts(6, 0);
    ck_assert_msg(root_sum() != before, "unconfined, the attack changed nothing");
}
END_TEST

static const char *read_targets(void)
{
    static char t[8 * CML_PATH];
    snprintf(t, sizeof t, "%s:%s:%s:%s:%s:%s", at("grader/specs/01_fake.spec"),
             at("solutions/01_fake/fake.cu"), at("build/ref_lab"), at("out/summary.tsv"),
             at("out"), at("work/other-run/case0.bin"));
    return t;
}

START_TEST(reading_grader_files_is_refused)
{
    grade_attack("attack_read", read_targets());
    ck_assert_attempts(6, EACCES);
    ck_assert(full_marks());
}
END_TEST

START_TEST(reading_grader_files_succeeds_unconfined)
{
    setenv("CML_SANDBOX", "off", 1);
    grade_attack("attack_read", read_targets());
    ck_assert_attempts(6, 0);
}
END_TEST

static const char *exec_targets(void)
{
    static char t[2 * CML_PATH];
    snprintf(t, sizeof t, "/bin/sh:%s", at("build/ref_lab"));
    return t;
}

START_TEST(exec_of_another_binary_is_refused)
{
    grade_attack("attack_exec", exec_targets());
    ck_assert_attempts(2, EACCES);
    ck_assert(full_marks());
}
END_TEST

START_TEST(exec_of_another_binary_succeeds_unconfined)
{
    setenv("CML_SANDBOX", "off", 1);
    grade_attack("attack_exec", exec_targets());
    ck_assert_attempts(2, 0);
}
END_TEST

/* Whether pid names a live process (not gone, not a zombie). */
static int alive(pid_t pid)
{
    char path[64], state = '?';
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int got = fscanf(f, "%*d %*s %c", &state);
    fclose(f);
    return got == 1 && state != 'Z' && state != 'X';
}

START_TEST(daemon_is_killed_with_its_task)
{
    char targets[2 * CML_PATH];
    snprintf(targets, sizeof targets, "%s:%s", at("out/summary.tsv"), at("out/record.json"));
    setenv("FAKE_DAEMON_S", "5", 1);
    uint64_t before = root_sum();
    grade_attack("attack_daemon", targets);
    ck_assert_attempts(1, 0); /* it did start */
    char *pid_text = run_file("daemon.pid");
    ck_assert_msg(pid_text, "the daemon wrote no daemon.pid");
    pid_t pid = atoi(pid_text);
    free(pid_text);
    ck_assert_msg(pid > 1 && !alive(pid), "daemon %d is alive after its task", (int)pid);
    usleep(1000000); /* what a surviving daemon would rewrite, it would have by now */
    ck_assert_msg(root_sum() == before, "the reports changed during or after the grading");
    ck_assert(full_marks());
}
END_TEST

/* Without the supervisor (cml_run: a process group, killed when the run ends) the same
 * daemon leaves the group with setsid, outlives its run and rewrites the reports after it. */
START_TEST(daemon_outlives_its_task_without_the_supervisor)
{
    setenv("CML_SANDBOX", "off", 1);
    setenv("FAKE_MODE", "attack_daemon", 1);
    setenv("FAKE_TARGETS", at("out/summary.tsv"), 1);
    setenv("FAKE_DAEMON_S", "3", 1);
    char *argv[] = { (char *)test_path("build/fake_lab"), "--out-dir", ".", "--case",
                     "1.1,n=10", NULL };
    cml_proc_result r;
    cml_run(argv, NULL, at("work/other-run"), -1, 10, 1 << 16, &r);
    cml_proc_result_free(&r);
    char *pid_text = cml_read_text(at("work/other-run/daemon.pid"), 64, NULL);
    ck_assert_msg(pid_text, "the daemon wrote no daemon.pid");
    pid_t pid = atoi(pid_text);
    free(pid_text);
    test_write(at("out/summary.tsv"), "the grader's report\n");
    usleep(300000);
    int was_alive = alive(pid);
    /* the daemon truncates and rewrites the file every 50 ms: a read can fall between the two
     * and find it empty, so look a few times */
    char *now = NULL;
    for (int i = 0; i < 10 && !(now && strstr(now, "daemon")); i++) {
        free(now);
        if (i)
            usleep(20000);
        now = cml_read_text(at("out/summary.tsv"), 4096, NULL);
    }
    kill(pid, SIGKILL); /* clean up before asserting */
    ck_assert_msg(was_alive && now && strstr(now, "daemon"), "daemon alive %d, report '%s'",
                  was_alive, now ? now : "(unreadable)");
    free(now);
}
END_TEST

/* A process outside every task, to be signalled: the test's own child. */
static pid_t bystander(void)
{
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        for (;;)
            pause();
    }
    return pid;
}

START_TEST(signals_outside_the_task_are_refused)
{
    pid_t by = bystander();
    char targets[128];
    snprintf(targets, sizeof targets, "ppid:%d:%d", (int)getpid(), (int)by);
    setenv("FAKE_SIGNAL", "9", 1);
    grade_attack("attack_signal", targets); /* the grader is this process: still here after */
    int by_alive = waitpid(by, NULL, WNOHANG) == 0;
    kill(by, SIGKILL);
    waitpid(by, NULL, 0);
    ck_assert_attempts(3, EPERM);
    ck_assert_msg(by_alive, "the bystander was killed");
    ck_assert(full_marks());
}
END_TEST

START_TEST(signals_outside_the_task_succeed_unconfined)
{
    setenv("CML_SANDBOX", "off", 1);
    pid_t by = bystander();
    char targets[32];
    snprintf(targets, sizeof targets, "%d", (int)by);
    setenv("FAKE_SIGNAL", "9", 1);
    grade_attack("attack_signal", targets);
    int st = 0;
    ck_assert(waitpid(by, &st, 0) == by);
    ck_assert_attempts(1, 0);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "bystander status %d", st);
}
END_TEST

static const cml_task_result *task(const char *id)
{
    return test_task(&result, id);
}

START_TEST(memory_hog_is_killed_with_a_clear_message)
{
    setenv("CML_SANDBOX_MEM", "64M", 1);
    setenv("FAKE_HOG_MB", "256", 1);
    grade_attack("attack_hog", "");
    const cml_task_result *r = task("1.1");
    ck_assert_msg(r->status == CML_STATUS_CRASH &&
                  strstr(r->detail, "was killed: its processes used more than 64 MiB of host "
                         "memory"), "status %s, detail '%s'", cml_status_name(r->status),
                  r->detail);
    ck_assert_msg(task("1.2")->status == CML_STATUS_PASSED &&
                  task("1.3")->status == CML_STATUS_PASSED, "the next tasks did not run: %s, %s",
                  cml_status_name(task("1.2")->status), cml_status_name(task("1.3")->status));
}
END_TEST

START_TEST(memory_hog_under_the_cap_passes)
{
    setenv("FAKE_HOG_MB", "256", 1); /* the default cap: 24 GiB */
    grade_attack("attack_hog", "");
    ck_assert_attempts(1, 0);
    ck_assert_msg(full_marks(), "score %g of %g", result.score, result.max_score);
}
END_TEST

/* The case file attack `mode` is refused with `err` and the lab's honest output graded. */
static void case_file_refused(const char *mode, int err)
{
    grade_attack(mode, at("work/other-run/case0.bin"));
    ck_assert_attempts(1, err);
    ck_assert_msg(full_marks(), "score %g of %g", result.score, result.max_score);
}

START_TEST(case_file_symlink_is_refused)
{
    case_file_refused("attack_symlink", EACCES);
}
END_TEST

START_TEST(case_file_fifo_is_refused)
{
    case_file_refused("attack_fifo", EACCES);
}
END_TEST

START_TEST(case_file_hardlink_is_refused)
{
    case_file_refused("attack_hardlink", EXDEV); /* Landlock's answer to a link that would
                                                    carry a file into other rights */
}
END_TEST

/* Unconfined, the file is made; the grader still refuses links and FIFOs (no hang). */
static void case_file_made(const char *mode, const char *reason)
{
    setenv("CML_SANDBOX", "off", 1);
    grade_attack(mode, at("work/other-run/case0.bin"));
    ck_assert_attempts(1, 0);
    const cml_task_result *r = task("1.1");
    ck_assert_msg(strstr(r->cases[0].reason, reason), "case 0: '%s'", r->cases[0].reason);
}

START_TEST(case_file_symlink_is_made_unconfined_and_not_read)
{
    case_file_made("attack_symlink", "is a symbolic link");
}
END_TEST

START_TEST(case_file_fifo_is_made_unconfined_and_not_read)
{
    case_file_made("attack_fifo", "is not a regular file");
}
END_TEST

/* A hard link is a regular file: unconfined, the stolen output passes. */
START_TEST(case_file_hardlink_steals_an_output_unconfined)
{
    setenv("CML_SANDBOX", "off", 1);
    grade_attack("attack_hardlink", at("work/other-run/case0.bin"));
    ck_assert_attempts(1, 0);
    ck_assert_msg(full_marks(), "score %g of %g", result.score, result.max_score);
}
END_TEST

static int skipped;

/* Contract in suites.h. */
int sandbox_tests_skipped(void)
{
    return skipped;
}

Suite *sandbox_suite(void)
{
    Suite *s = suite_create("sandbox");
    TCase *tc = tcase_create("attacks");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    const cml_sandbox_caps *caps = cml_sandbox_caps_get();
    skipped = caps->fs ? 0 : 9; /* no Landlock: the confined tests below cannot hold */
    if (caps->fs) {
        tcase_add_test(tc, write_outside_run_folder_is_refused);
        tcase_add_test(tc, reading_grader_files_is_refused);
        tcase_add_test(tc, exec_of_another_binary_is_refused);
        tcase_add_test(tc, daemon_is_killed_with_its_task);
        tcase_add_test(tc, signals_outside_the_task_are_refused);
        tcase_add_test(tc, memory_hog_is_killed_with_a_clear_message);
        tcase_add_test(tc, case_file_symlink_is_refused);
        tcase_add_test(tc, case_file_fifo_is_refused);
        tcase_add_test(tc, case_file_hardlink_is_refused);
    }
    tcase_add_test(tc, write_outside_run_folder_succeeds_unconfined);
    tcase_add_test(tc, reading_grader_files_succeeds_unconfined);
    tcase_add_test(tc, exec_of_another_binary_succeeds_unconfined);
    tcase_add_test(tc, daemon_outlives_its_task_without_the_supervisor);
    tcase_add_test(tc, signals_outside_the_task_succeed_unconfined);
    tcase_add_test(tc, memory_hog_under_the_cap_passes);
    tcase_add_test(tc, case_file_symlink_is_made_unconfined_and_not_read);
    tcase_add_test(tc, case_file_fifo_is_made_unconfined_and_not_read);
    tcase_add_test(tc, case_file_hardlink_steals_an_output_unconfined);
    suite_add_tcase(s, tc);
    skipped += sandbox_tool_add(s);
    return s;
}
