/* The attack corpus graded on the GPU (tests/attacks/gpu/README.md), through the CLI as a child
 * process: every attack gets the verdicts its EXPECT pins; an attack decided at run time is
 * graded beside the next lab's solution, which must still get full marks; nothing changes in the
 * repository (grader/, labs/, solutions/, common/, the reference builds already in build/cache)
 * or in another submission's output folder; no process of the grading is alive after it. The
 * grading's folders lie in build/ and the other output in /tmp, so that /tmp holds nothing the
 * grader protects, as on a server that keeps earlier results there. */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "attack_corpus.h"
#include "cml.h"
#include "helpers.h"
#include "stage.h"
#include "suites.h"
#include "util.h"

#define MAX_CACHED 128
#define SETTLE_US 2000000 /* after a run-time attack: what a survivor would write, it has by now */

/* The repository's reference builds present before a grading, and their sum. */
typedef struct {
    char names[MAX_CACHED][256];
    int n;
} cache_list;

/* Sum of build/cache/<name> for the names in c; with fill, c is first set to what is there now
 * (the probe's run folders, made and removed by every grading, left out). */
static uint64_t cache_sum(cache_list *c, int fill)
{
    struct dirent **list = NULL;
    int n = fill ? scandir(test_path("build/cache"), &list, NULL, alphasort) : 0;
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        if (name[0] != '.' && strncmp(name, "probe-run", 9) != 0 && c->n < MAX_CACHED)
            snprintf(c->names[c->n++], sizeof c->names[0], "%s", name);
        free(list[i]);
    }
    free(n > 0 ? list : NULL);
    uint64_t h = CML_FNV_INIT;
    char path[CML_PATH];
    for (int i = 0; i < c->n; i++)
        if (cml_fmt(path, sizeof path, "%s/%s", test_path("build/cache"), c->names[i]) == 0)
            h = attack_tree_sum(path, cml_fnv1a(h, path, strlen(path)), NULL);
    return h;
}

/* Another submission's output folder, as a grading leaves it with --keep. Everything in it is
 * writable by anyone: file modes must not be what stops an attack (the lab runs as nobody when
 * the grader is root), the sandbox must. */
static void make_other(const char *dir)
{
    char path[CML_PATH], run[CML_PATH];
    cml_fmt(run, sizeof run, "%s/work/05_soa_aos-5.1-out-0123456789abcdef", dir);
    ck_assert(cml_mkdirs(run) == 0);
    const char *files[][2] = {
        { "summary.tsv", "lab\ttask\tstatus\tscore\tmax_score\tdetail\n05_soa_aos\t5.1\twrong\t0\t10\t\n" },
        { "record.json", "{\"score\": 0}\n" },
        { "work/05_soa_aos-5.1-out-0123456789abcdef/case0.bin", "0123456789abcdef" } };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        cml_fmt(path, sizeof path, "%s/%s", dir, files[i][0]);
        test_write(path, files[i][1]);
        chmod(path, 0666);
    }
    cml_fmt(path, sizeof path, "%s/work", dir);
    chmod(dir, 0777), chmod(path, 0777), chmod(run, 0777);
}

/* The lab after `lab` among solutions/ (the first after the last): the one graded beside it. */
static void next_lab(const char *lab, char *next, size_t len)
{
    struct dirent **list = NULL;
    int n = scandir(test_path("solutions"), &list, NULL, alphasort), first = -1, pick = -1;
    for (int i = 0; i < n; i++) {
        if (list[i]->d_name[0] != '.') {
            first = first < 0 ? i : first;
            if (pick < 0 && i > 0 && strcmp(list[i - 1]->d_name, lab) == 0)
                pick = i;
        }
    }
    snprintf(next, len, "%.63s", n > 0 ? list[pick >= 0 ? pick : first]->d_name : "");
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(n >= 0 ? list : NULL);
}

/* Copy solutions/<lab>/ into dest (made here). */
static void copy_solution(const char *lab, const char *dest)
{
    char src[CML_PATH], from[CML_PATH], to[CML_PATH], err[512];
    cml_fmt(src, sizeof src, "%s/%s", test_path("solutions"), lab);
    ck_assert(cml_mkdirs(dest) == 0);
    DIR *d = opendir(src);
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.' && cml_fmt(from, sizeof from, "%s/%s", src, e->d_name) == 0 &&
            cml_fmt(to, sizeof to, "%s/%s", dest, e->d_name) == 0)
            ck_assert_msg(cml_copy_file(from, to, 1 << 20, err, sizeof err) == 0, "%s", err);
    if (d)
        closedir(d);
}

/* Whether process pid belongs to this grading: the tag is in its environment, or its working
 * folder or binary lies beneath base. Its description into what. Zombies do not count. */
static int of_grading(const char *pid, const char *tag, const char *base, char *what, size_t len)
{
    char path[64], cwd[CML_PATH] = "", exe[CML_PATH] = "", state = '?';
    size_t n = 0;
    snprintf(path, sizeof path, "/proc/%.20s/stat", pid);
    FILE *f = fopen(path, "r");
    int got = f ? fscanf(f, "%*d %*s %c", &state) : 0;
    if (f)
        fclose(f);
    if (got != 1 || state == 'Z' || state == 'X')
        return 0;
    snprintf(path, sizeof path, "/proc/%.20s/environ", pid);
    char *env = cml_read_text(path, 1u << 20, &n);
    int mine = env && memmem(env, n, tag, strlen(tag)) != NULL;
    free(env);
    snprintf(path, sizeof path, "/proc/%.20s/cwd", pid);
    ssize_t c = readlink(path, cwd, sizeof cwd - 1);
    snprintf(path, sizeof path, "/proc/%.20s/exe", pid);
    ssize_t e = readlink(path, exe, sizeof exe - 1);
    cwd[c > 0 ? c : 0] = exe[e > 0 ? e : 0] = '\0';
    mine |= strncmp(cwd, base, strlen(base)) == 0 || strncmp(exe, base, strlen(base)) == 0;
    snprintf(what, len, "pid %.20s (state %c, exe %.300s, cwd %.300s)", pid, state, exe, cwd);
    return mine;
}

/* The first process of the grading still alive, described in msg ("" when none); every one
 * found is killed (by its pid), so that it cannot change what is checked next. */
static void survivors(const char *tag, const char *base, char *msg, size_t len)
{
    char self[32], what[1024];
    snprintf(self, sizeof self, "%d", (int)getpid());
    msg[0] = '\0';
    DIR *d = opendir("/proc");
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && strcmp(e->d_name, self) != 0 &&
            of_grading(e->d_name, tag, base, what, sizeof what)) {
            if (!msg[0])
                snprintf(msg, len, "alive after its grading: %s", what);
            kill((pid_t)atoi(e->d_name), SIGKILL);
        }
    if (d)
        closedir(d);
}

/* cml-grade on sub (one lab, or every lab when lab is NULL) into out, with `tag` in its
 * environment, which every process it starts inherits; its output into *output. */
static void grade_tagged(const char *sub, const char *lab, const char *out, const char *tag,
                         char **output)
{
    char prefix[3] = { lab ? lab[0] : '0', lab ? lab[1] : '0', '\0' };
    char *argv[16] = { (char *)test_path("build/cml-grade"), "grade", "--root",
                       (char *)test_root(), "--submission", (char *)sub, "--out", (char *)out,
                       "--seed", "1", "--no-color", NULL };
    if (lab)
        argv[11] = "--lab", argv[12] = prefix, argv[13] = NULL;
    char *env[] = { (char *)tag, NULL };
    cml_proc_result r;
    cml_run(argv, env, NULL, -1, 1150, 1u << 20, &r);
    *output = r.output;
    r.output = NULL;
    cml_proc_result_free(&r);
}

/* The text of a file, or "" (malloc'd). */
static char *slurp(const char *dir, const char *name)
{
    char path[CML_PATH];
    cml_fmt(path, sizeof path, "%s/%s", dir, name);
    char *text = cml_read_text(path, 1u << 24, NULL);
    return text ? text : strdup("");
}

/* Attack _i: graded, and every hold of the file's header comment checked in turn. */
START_TEST(attack_gets_its_verdict_and_changes_nothing)
{
    const planted_bug *a = NULL;
    attack_find(&a);
    a += _i;
    char base[CML_PATH], other[64], sub[CML_PATH], out[CML_PATH], next[64] = "", tag[96];
    char msg[1600] = "", *output = NULL;
    static test_summary_line lines[64];
    static cache_list cached;
    int at_run = !attack_at_build(a);
    cml_fmt(base, sizeof base, "%s/attack-XXXXXX", test_path("build"));
    ck_assert_msg(mkdtemp(base) != NULL, "cannot create a folder in build/");
    chmod(base, 0755);
    test_tmpdir(other, sizeof other);
    make_other(other);
    cml_fmt(sub, sizeof sub, "%s/sub/%s", base, a->lab);
    cml_fmt(out, sizeof out, "%s/out", base);
    ck_assert(cml_mkdirs(sub) == 0);
    ck_assert_msg(attack_materialize(a, sub, out, other, msg, sizeof msg) == 0, "%s", msg);
    if (at_run) {
        next_lab(a->lab, next, sizeof next);
        cml_fmt(sub, sizeof sub, "%s/sub/%s", base, next);
        copy_solution(next, sub);
    }
    cml_fmt(sub, sizeof sub, "%s/sub", base);
    snprintf(tag, sizeof tag, "CML_ATTACK_TAG=%d-%d-%lld", (int)getpid(), _i, (long long)time(NULL));
    cached.n = 0;
    uint64_t repo = attack_repo_sum(), cache = cache_sum(&cached, 1);
    uint64_t others = attack_tree_sum(other, CML_FNV_INIT, NULL);

    grade_tagged(sub, at_run ? NULL : a->lab, out, tag, &output);
    survivors(tag, base, msg, sizeof msg); /* first: it kills what it finds */
    if (at_run)
        usleep(SETTLE_US);
    char *expect = attack_expect(a), *summary = slurp(out, "summary.tsv"), why[1600] = "";
    int n = test_read_summary(out, lines, 64);
    planted_compare(lines, n > 0 ? n : 0, expect, a->lab, why, sizeof why);
    char gap_path[CML_PATH], *gap = NULL;
    if (why[0] && cml_fmt(gap_path, sizeof gap_path, "%s/GAP", a->dir) == 0 &&
        (gap = cml_read_text(gap_path, 4096, NULL))) {
        /* a hole this corpus found and a later issue closes: its verdict is reported, never
         * passed silently; what the sandbox must hold (below) is still asserted */
        fprintf(stderr, "KNOWN GAP %s: %s (%.200s)\n", a->dir, why, gap);
        why[0] = '\0';
        free(gap);
    }
    if (!why[0] && at_run)
        planted_compare(lines, n > 0 ? n : 0, "", next, why, sizeof why);
    if (!why[0] && msg[0])
        snprintf(why, sizeof why, "%s", msg);
    if (!why[0] && attack_repo_sum() != repo)
        snprintf(why, sizeof why, "grader/, labs/, solutions/ or common/ changed");
    if (!why[0] && cache_sum(&cached, 0) != cache)
        snprintf(why, sizeof why, "a reference build in build/cache changed");
    if (!why[0] && attack_tree_sum(other, CML_FNV_INIT, NULL) != others)
        snprintf(why, sizeof why, "another submission's output folder %s changed", other);
    if (!why[0] && strstr(summary, "PWNED"))
        snprintf(why, sizeof why, "the attack wrote into this grading's summary.tsv");
    free(expect);
    free(summary);
    if (!why[0]) {
        cml_rmtree(base);
        cml_rmtree(other);
    }
    if (why[0] && output) /* the whole report on stderr: Check's message holds about 4 KiB */
        fprintf(stderr, "---- %s\n%s\n", a->dir, output);
    ck_assert_msg(!why[0], "%s: %.900s\n(kept %s and %s)", a->dir, why, base, other);
    free(output);
}
END_TEST

/* Contract in suites.h. */
int gpu_attack_count(void)
{
    const planted_bug *a;
    return attack_find(&a);
}

/* Contract in suites.h: CK_INCLUDE_TAGS=gpu-attacks runs these alone; CML_ATTACKS=FROM-TO
 * (0-based, TO excluded) only the attacks FROM to TO - 1 in corpus order, so that the corpus can
 * be spread over device calls of 10 minutes: Check counts only the tests that ran. */
void gpu_attacks_add(Suite *s)
{
    TCase *tc = tcase_create("attacks on this GPU");
    tcase_set_tags(tc, "gpu-attacks");
    tcase_set_timeout(tc, 1200);
    int n = gpu_attack_count(), from = 0, to = n;
    const char *range = getenv("CML_ATTACKS");
    if (range && sscanf(range, "%d-%d", &from, &to) == 2 && from >= 0 && to <= n && from < to)
        fprintf(stderr, "gpu-attacks: attacks %d to %d of %d (CML_ATTACKS)\n", from, to - 1, n);
    else
        from = 0, to = n;
    tcase_add_loop_test(tc, attack_gets_its_verdict_and_changes_nothing, from, to);
    suite_add_tcase(s, tc);
}
