/* `cml-grade regrade`: grade one student again from their record (same submission, same seed,
 * so the same drawn cases and inputs; the same calibration when its file is still there) and
 * say, task by task, whether anything differs from the first grading. */
#include "args.h"
#include "batch_child.h"
#include "class.h"
#include "cml.h"
#include "help.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first top-level `"key": "value"` of a record written by json_write.c, unescaped. A
 * string value cannot fake one: inside a JSON string every '"' is escaped, so the pattern
 * `"key": "` only matches a real key. 0 when found. */
static int record_string(const char *json, const char *key, char *out, size_t len)
{
    char pat[80];
    snprintf(pat, sizeof pat, "\"%s\": \"", key);
    const char *p = strstr(json, pat);
    if (!p)
        return -1;
    size_t k = 0;
    for (p += strlen(pat); *p && *p != '"' && k + 1 < len; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            char c = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p; /* \" \\ \/ as themselves */
            if (*p == 'u')
                return -1; /* a path with control characters: not regradable here */
            out[k++] = c;
        } else {
            out[k++] = *p;
        }
    }
    out[k] = '\0';
    return *p == '"' ? 0 : -1;
}

/* Compare two summary.tsv files line by line (lab task status score max detail): print each
 * task whose status or score changed; the number of differences, or -1 when unreadable. */
static int compare(const char *old_path, const char *new_path)
{
    char *a = cml_read_text(old_path, 1u << 20, NULL), *b = cml_read_text(new_path, 1u << 20,
                                                                           NULL);
    int diffs = 0;
    if (!a || !b) {
        free(a);
        free(b);
        return -1;
    }
    char *sa = NULL, *sb = NULL;
    char *la = strtok_r(a, "\n", &sa), *lb = strtok_r(b, "\n", &sb);
    for (; la || lb; la = strtok_r(NULL, "\n", &sa), lb = strtok_r(NULL, "\n", &sb)) {
        char lab[2][64] = { "", "" }, task[2][16] = { "", "" }, st[2][32] = { "", "" };
        double sc[2] = { 0, 0 };
        if (la)
            sscanf(la, "%63[^\t]\t%15[^\t]\t%31[^\t]\t%lf", lab[0], task[0], st[0], &sc[0]);
        if (lb)
            sscanf(lb, "%63[^\t]\t%15[^\t]\t%31[^\t]\t%lf", lab[1], task[1], st[1], &sc[1]);
        if (strcmp(lab[0], lab[1]) || strcmp(task[0], task[1]) || strcmp(st[0], st[1]) ||
            sc[0] - sc[1] > 0.005 || sc[1] - sc[0] > 0.005) {
            printf("differs: %s %s: was %s %.2f, now %s %.2f\n", la ? lab[0] : lab[1],
                   la ? task[0] : task[1], la ? st[0] : "(absent)", sc[0],
                   lb ? st[1] : "(absent)", sc[1]);
            diffs++;
        }
    }
    free(a);
    free(b);
    return diffs;
}

/* Contract in class.h. */
int cml_cmd_regrade(int argc, char **argv)
{
    const char *dir = NULL, *to = NULL, *root = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char **opt = !strcmp(argv[i], "--student") ? &dir : !strcmp(argv[i], "--out")
                           ? &to : !strcmp(argv[i], "--root") ? &root : NULL;
        if (!opt) {
            dir = NULL;
            break;
        }
        *opt = argv[i + 1];
    }
    if (argc == 2 && strcmp(argv[1], "--help") == 0)
        return cml_help_print("regrade");
    if (!dir || argc % 2 == 0)
        return cml_arg_refuse("regrade", "needs --student DIR (a grading's folder), and only "
                              "--out DIR2 and --root REPO besides: see regrade --help");
    char rec[CML_PATH], sub[CML_PATH], seed[32], cal[CML_PATH], out[CML_PATH], who[256];
    char others[CML_MAX_OTHERS][CML_PATH];
    char log[CML_PATH], old_sum[CML_PATH], new_sum[CML_PATH], err[1024];
    cml_fmt(rec, sizeof rec, "%s/record.json", dir);
    if (cml_arg_dir("--student", dir, err, sizeof err) < 0 ||
        cml_arg_file("--student's record.json", rec, err, sizeof err) < 0 ||
        (to && cml_arg_out("--out", to, err, sizeof err) < 0) ||
        (root && cml_arg_dir("--root", root, err, sizeof err) < 0))
        return cml_arg_refuse("regrade", err);
    char *json = cml_read_text(rec, 64u << 20, NULL);
    if (!json || record_string(json, "submission", sub, sizeof sub) < 0 ||
        record_string(json, "seed_string", seed, sizeof seed) < 0) {
        snprintf(err, sizeof err, "%.800s: %s", rec, json ? "no submission or seed in it: is it "
                 "a cml-grade record?" : strerror(errno));
        free(json);
        return cml_arg_refuse("regrade", err);
    }
    for (int i = 0; i < CML_MAX_OTHERS; i++) { /* the folders the first grading protected */
        char key[16];
        snprintf(key, sizeof key, "protect_%d", i + 1);
        if (record_string(json, key, others[i], sizeof others[i]) < 0)
            others[i][0] = '\0';
    }
    if (record_string(json, "student", who, sizeof who) < 0)
        who[0] = '\0'; /* a record from before --student */
    const char *cal_obj = strstr(json, "\"calibration\": {"); /* its "path", no other */
    int have_cal = cal_obj && record_string(cal_obj, "path", cal, sizeof cal) == 0 && cal[0] &&
                   access(cal, R_OK) == 0;
    free(json);
    cml_fmt(out, sizeof out, to ? "%s" : "%s/regrade", to ? to : dir);
    cml_mkdirs(out);
    cml_fmt(log, sizeof log, "%s/grade.log", out);
    char *args[20] = { "grade", "--submission", sub, "--seed", seed, "--out", out,
                       "--no-color" };
    int a = 8;
    for (int i = 0; i < CML_MAX_OTHERS; i++)
        if (others[i][0])
            args[a++] = "--protect", args[a++] = others[i];
    if (root)
        args[a++] = "--root", args[a++] = (char *)root;
    if (have_cal)
        args[a++] = "--calibration", args[a++] = cal;
    if (who[0])
        args[a++] = "--student", args[a++] = who;
    args[a] = NULL;
    printf("regrading %s with seed %s%s%s\n", sub, seed, have_cal ? ", calibration " : "",
           have_cal ? cal : "");
    cml_child_run(args, NULL, log); /* what counts is the summary it leaves */
    cml_fmt(old_sum, sizeof old_sum, "%s/summary.tsv", dir);
    cml_fmt(new_sum, sizeof new_sum, "%s/summary.tsv", out);
    int diffs = compare(old_sum, new_sum);
    if (diffs < 0)
        printf("cannot compare: %s or %s is missing (see %s)\n", old_sum, new_sum, log);
    else
        printf("%s: %d task(s) differ from the first grading; the new one is in %s\n",
               diffs ? "DIFFERENT" : "same", diffs, out);
    return diffs == 0 ? 0 : diffs < 0 ? 2 : 1;
}
