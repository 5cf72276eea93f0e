/* A fake lab binary in plain C: speaks the lab protocol (docs/PROTOCOL.md) exactly like a
 * real one, so the grader's pipeline can be tested on a machine without a GPU. It computes the
 * right outputs with common/cml_rand.h, then misbehaves as told:
 *   FAKE_MODE  right wrong nan nothing short todo crash hang flood exit3 slow slowonce
 *              slowthenwrong cudaerror guardfault lazy lazylate fewreps
 *              (default right; cudaerror: an error record, then exit 1 as the harness does;
 *              guardfault: the same with the illegal address a guard region raises;
 *              lazy: every timed repetition's evidence is the checked run's output (lazylate:
 *              from the 11th repetition on, past those the grader computes beside the run); fewreps:
 *              one repetition without evidence)
 *              Forgeries, each after right outputs (results are claims, tests/test_claims.c):
 *              afterdone (a case record after done), twodone, kout (a case record for a k
 *              nobody asked for), othertask, dupcase, timeuntimed (a time record for every
 *              case), malformed (a line that does not parse), hugebytes (bytes=10^15 in time
 *              records: not a forgery the grader needs, it counts bytes itself), stdoutforge
 *              (forged records on stdout, which is not the result channel)
 *   FAKE_TASK  the task that misbehaves (default: every task)
 *   FAKE_CHECKS  "1.1=copy,1.2=transpose,2.1=gather" (default: rows/cols -> transpose,
 *              offset/stride -> gather, else copy)
 *   FAKE_REF_MS  the time every case reports (default 2); `slow` reports 3 times that
 *   FAKE_LINK_GBPS  the pinned link's GB/s each way a --link-bw run reports (default 50.0)
 *   FAKE_DODGE  exit 0 right after hello when FAKE_UNDER_TOOL is set (a run under a tool)
 *   mode `slowonce`: slow (like `slow`) except in the grader's second measurement (a run
 *              folder named *-again-*), a noisy first measurement; `slowthenwrong`: the same,
 *              but `wrong` in the second measurement (fast only when wrong); `slowthenforge`:
 *              the same, but `dupcase` in the second measurement
 *   mode `wronginshared`: wrong only in a run that holds another task's cases too (code that
 *              depends on what another task left in the process), right alone
 *   FAKE_REF_MODE  the mode of a --no-output run (the reference), default right
 *   attack_*   an attack on the sandbox before the first case, then right outputs
 *              (tests/fake_lab_attacks.c says which, tests/test_sandbox.c runs them)
 * A run with --no-output (how the grader runs the reference) behaves unless FAKE_REF_MODE
 * says otherwise. With no --case it acts as the probe: hello, device, done; FAKE_PROBE=nodriver
 * or nodevice makes it say what CUDA says then (nodevice with the CUDA error, exit 3), and
 * FAKE_PROBE_GPUS="0,1" the GPUs present (CUDA_VISIBLE_DEVICES naming another: nodevice). */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cml_rand.h"
#include "fake_lab_lock.h"
#include "fake_lab_attacks.h"

typedef struct {
    char task[16], text[160];
    uint64_t n, rows, cols, offset, stride;
    int timed;
} fake_case;

static FILE *results; /* CML_RESULT_FD, or NULL */

static void record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void record(const char *fmt, ...)
{
    if (!results)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(results, fmt, ap);
    va_end(ap);
    fputc('\n', results);
    fflush(results);
}

/* "1.1,n=4097,time" into c. */
static void parse_case(const char *spec, fake_case *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->text, sizeof c->text, "%s", spec);
    char buf[160];
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL, *item = strtok_r(buf, ",", &save);
    snprintf(c->task, sizeof c->task, "%s", item ? item : "?");
    while ((item = strtok_r(NULL, ",", &save))) {
        char *eq = strchr(item, '=');
        uint64_t v = eq ? strtoull(eq + 1, NULL, 10) : 0;
        if (strcmp(item, "time") == 0) c->timed = 1;
        else if (strncmp(item, "n=", 2) == 0) c->n = v;
        else if (strncmp(item, "rows=", 5) == 0) c->rows = v;
        else if (strncmp(item, "cols=", 5) == 0) c->cols = v;
        else if (strncmp(item, "offset=", 7) == 0) c->offset = v;
        else if (strncmp(item, "stride=", 7) == 0) c->stride = v;
    }
}

/* The check a task uses: from FAKE_CHECKS, else guessed from the case's keys. */
static const char *check_of(const fake_case *c)
{
    const char *map = getenv("FAKE_CHECKS");
    size_t tl = strlen(c->task);
    for (const char *p = map; p && *p; p += strcspn(p, ","), p += (*p == ','))
        if (strncmp(p, c->task, tl) == 0 && p[tl] == '=') {
            static char name[32];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(p + tl + 1, ","), p + tl + 1);
            return name;
        }
    if (c->rows || c->cols)
        return "transpose";
    return c->offset || c->stride ? "gather" : "copy";
}

/* Expected output element i of case c: copy, transpose, gather, offset and stride move every
 * float bit pattern (cml_rand_f32_all, 0_spec/checks.c). */
static float expect(const fake_case *c, uint64_t seed, uint64_t i)
{
    const char *chk = check_of(c);
    if (strcmp(chk, "transpose") == 0) /* out[col*rows + row] = in[row*cols + col] */
        return cml_rand_f32_all(seed, 0, (i % c->rows) * c->cols + i / c->rows);
    if (strcmp(chk, "copy") == 0)
        return cml_rand_f32_all(seed, 0, i);
    return cml_rand_f32_all(seed, 0, c->offset + i * (c->stride ? c->stride : 1));
}

/* v with its lowest bit flipped: wrong whatever v is (a step to the next float leaves an
 * infinity or a NaN as it is). */
static float one_bit_off(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    b ^= 1u;
    memcpy(&v, &b, sizeof v);
    return v;
}

static uint64_t out_elems(const fake_case *c)
{
    return strcmp(check_of(c), "transpose") == 0 ? c->rows * c->cols : c->n;
}

/* sheet_only: a lab that is right only for the sizes in the fake spec's sheet (a table of
 * known answers) and wrong for any other n. */
static int off_the_sheet(const char *mode, const fake_case *c)
{
    return strcmp(mode, "sheet_only") == 0 && c->n != 1000 && c->n != 4097 && c->n != 65536;
}

/* Write DIR/case<k>.bin, spoiled as the mode says (wrong, nan, short, sheet_only). */
static int write_output(const char *dir, int k, const fake_case *c, uint64_t seed,
                        const char *mode)
{
    uint64_t n = out_elems(c), keep = strcmp(mode, "short") == 0 ? n / 2 : n;
    char path[4200];
    snprintf(path, sizeof path, "%s/case%d.bin", dir, k);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    for (uint64_t i = 0; i < keep; i++) {
        float v = expect(c, seed, i);
        if (i == n / 2 && (strcmp(mode, "wrong") == 0 || off_the_sheet(mode, c)))
            v = one_bit_off(v);
        if (i == 0 && strcmp(mode, "nan") == 0)
            v = NAN;
        fwrite(&v, sizeof v, 1, f);
    }
    return fclose(f);
}

/* Misbehaviours that end or stall the run before case k is reported. */
static void stop_if_told(const char *mode, int k, int ncases)
{
    if (strcmp(mode, "crash") == 0 && (k >= 1 || ncases == 1)) /* after one case if it can */
        raise(SIGSEGV);
    if (strcmp(mode, "hang") == 0)
        for (;;)
            pause();
    if (strcmp(mode, "exit3") == 0)
        exit(3);
}

/* What the harness does after a sticky CUDA error: report the case, exit 1 without `done`. */
static void cuda_error_exit(int k, const char *task, int guard)
{
    if (guard)
        record("case k=%d task=%s status=error msg=CUDA error cudaErrorIllegalAddress (an "
               "illegal memory access was encountered) in the task's kernels", k, task);
    else
        record("case k=%d task=%s status=error msg=CUDA error cudaErrorLaunchFailure (unspecified "
               "launch failure) at fake.cu:1", k, task);
    exit(1);
}

/* Whether this run is the grader's second measurement of a slow task: its run folder is
 * named <lab>-<task>-again-XXXXXX. (The sandbox lets a lab keep no state between runs, so the
 * fake lab tells its runs apart by the folder the grader gave it.) */
static int second_measurement(void)
{
    char cwd[4096];
    return getcwd(cwd, sizeof cwd) && strstr(cwd, "-again-") != NULL;
}

/* Whether this run reports its timed cases 3 times slower. */
static int slow_now(const char *mode)
{
    if (strcmp(mode, "slow") == 0)
        return 1;
    return strcmp(mode, "slowonce") == 0 && !second_measurement();
}

/* The evidence of 15 timed repetitions, each on the inputs of its own seed, as the harness
 * reports it (common/cml_rand.h); `lazy` did the work only for the checked run, so every
 * repetition left that output; `fewreps` reports one repetition too few. */
static void report_reps(int k, const fake_case *c, uint64_t seed, const char *mode)
{
    const int lazy = strcmp(mode, "lazy") == 0, late = strcmp(mode, "lazylate") == 0;
    const int reps = 15 - (strcmp(mode, "fewreps") == 0);
    for (int r = 0; r < reps; r++) {
        const int skipped = lazy || (late && r >= 10);
        uint64_t rs = skipped ? seed : cml_rep_seed(seed, (uint32_t)k, (uint32_t)r), hash = 0;
        double wsum = 0, wabs = 0;
        for (uint64_t i = 0; i < out_elems(c); i++) {
            float v = expect(c, rs, i);
            uint32_t bits;
            memcpy(&bits, &v, sizeof bits);
            hash += cml_evidence_term(i, bits);
            if (!cml_evidence_weighed(v))
                continue; /* in the hash alone, as the harness sums them (cml_rand.h) */
            wsum += cml_evidence_weight(i) * v;
            wabs += cml_evidence_weight(i) * fabs((double)v);
        }
        record("rep k=%d r=%d hash=%llu wsum=%.17g wabs=%.17g", k, r, (unsigned long long)hash,
               wsum, wabs);
    }
}

/* One case: its output, its case record, its time record. */
static void run_case(int k, int ncases, const fake_case *c, uint64_t seed, const char *dir,
                     const char *mode, double ref_ms)
{
    if (strcmp(mode, "slowthenwrong") == 0 || strcmp(mode, "slowthenforge") == 0) {
        int again = second_measurement(); /* slowonce, then fast and wrong or forged */
        mode = !again ? "slowonce" : strcmp(mode, "slowthenwrong") == 0 ? "wrong" : "dupcase";
    }
    int planted = 0; /* case0.bin is the attack's link or FIFO: leave it as the output */
    if (fake_is_attack(mode)) {
        planted = k == 0 && fake_attack(mode, dir);
        mode = "right";
    }
    stop_if_told(mode, k, ncases);
    if (strcmp(mode, "cudaerror") == 0 || strcmp(mode, "guardfault") == 0)
        cuda_error_exit(k, c->task, strcmp(mode, "guardfault") == 0);
    if (strcmp(mode, "todo") == 0) {
        record("case k=%d task=%s status=todo msg=write the fake kernel", k, c->task);
        record("todo task=%s msg=write the fake kernel", c->task);
        return;
    }
    uint64_t n = out_elems(c);
    if (dir && !planted && strcmp(mode, "nothing") != 0 && write_output(dir, k, c, seed, mode) != 0) {
        record("case k=%d task=%s status=error msg=cannot write the output file", k, c->task);
        return;
    }
    const char *task = strcmp(mode, "othertask") == 0 ? "9.9" : c->task;
    for (int i = 0; i < 1 + (strcmp(mode, "dupcase") == 0); i++)
        record("case k=%d task=%s status=ok elems=%llu elem_bytes=4 file=case%d.bin", k, task,
               (unsigned long long)n, k);
    if (strcmp(mode, "kout") == 0)
        record("case k=%d task=%s status=ok elems=1 elem_bytes=4 file=case%d.bin", ncases,
               c->task, ncases);
    if (strcmp(mode, "malformed") == 0)
        record("case k=%d task=%s status", k, c->task);
    if (strcmp(mode, "stdoutforge") == 0)
        printf("case k=%d task=%s status=ok\ndone\ndone\n", ncases, c->task);
    if (c->timed)
        report_reps(k, c, seed, mode);
    if (c->timed || strcmp(mode, "timeuntimed") == 0) {
        double ms = slow_now(mode) ? 3 * ref_ms : ref_ms;
        uint64_t bytes = strcmp(mode, "hugebytes") == 0 ? 1000000000000000ull : 2 * n * 4;
        /* slackintiming: the harness found a canary changed after the repetitions (a write
         * around the buffers in a timed launch only); hostwrite: the host's cores wrote a
         * guarded output in a timed repetition; timemsg: any other text there */
        const char *msg = strcmp(mode, "slackintiming") == 0
                              ? " msg=guard region: the task's kernels wrote 4 byte(s) past the "
                                "end of a device buffer of 1000 floats, in its timed repetitions"
                          : strcmp(mode, "hostwrite") == 0
                              ? " msg=host write: the host's cores wrote the task's output in a "
                                "timed repetition"
                          : strcmp(mode, "timemsg") == 0 ? " msg=all good, trust me" : "";
        record("time k=%d task=%s ms=%.4f host_ms=%.4f reps=15 spread=0.001 bytes=%llu%s", k,
               c->task, ms, ms, (unsigned long long)bytes, msg);
    }
}

/* What a run whose task is in mode `mode` writes after `done`. */
static void after_done(const char *mode, const char *task)
{
    if (strcmp(mode, "afterdone") == 0)
        record("case k=0 task=%s status=ok elems=1 elem_bytes=4 file=case0.bin", task);
    if (strcmp(mode, "twodone") == 0)
        record("done");
}

/* Whether the run's cases belong to more than one task (a shared run). */
static int mixed_run(const char *const *cases, int ncases)
{
    for (int k = 1; k < ncases; k++) {
        fake_case a, b;
        parse_case(cases[0], &a);
        parse_case(cases[k], &b);
        if (strcmp(a.task, b.task) != 0)
            return 1;
    }
    return 0;
}

/* Copies the file `from` to `to` (the trace a trace run reads). */
static void copy_text(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[4096];
    for (size_t n; out && (n = fread(buf, 1, sizeof buf, in)) > 0;)
        fwrite(buf, 1, n, out);
    if (out)
        fclose(out);
    if (in)
        fclose(in);
}

/* The mode for task `task`: FAKE_MODE when FAKE_TASK names it (or is unset), else right. */
static const char *mode_for(const char *task, int reference)
{
    const char *mode = getenv("FAKE_MODE"), *which = getenv("FAKE_TASK");
    if (reference)
        return getenv("FAKE_REF_MODE") ? getenv("FAKE_REF_MODE") : "right";
    if (!mode || (which && *which && strcmp(which, task) != 0))
        return "right";
    return mode;
}

static void flood_stdout(void)
{
    static char block[1 << 16];
    memset(block, 'x', sizeof block);
    for (int i = 0; i < 1600; i++) /* 1600 * 64 KiB: about 100 MB */
        if (fwrite(block, 1, sizeof block, stdout) != sizeof block)
            break;
    fflush(stdout);
}

/* As the probe: the nodevice record CUDA's answer would give when FAKE_PROBE or
 * FAKE_PROBE_GPUS says there is no usable GPU here; 1 when so. */
static int fake_probe_refuses(void)
{
    const char *how = getenv("FAKE_PROBE"), *present = getenv("FAKE_PROBE_GPUS");
    const char *want = getenv("CUDA_VISIBLE_DEVICES");
    char list[256];
    int visible = 1;
    if (present && want && want[0]) {
        snprintf(list, sizeof list, ",%s,", present);
        char item[64];
        snprintf(item, sizeof item, ",%.60s,", want);
        visible = strstr(list, item) != NULL;
    }
    if (how && strcmp(how, "nodriver") == 0)
        record("nodevice msg=cudaErrorInsufficientDriver: CUDA driver version is insufficient "
               "for CUDA runtime version");
    else if ((how && strcmp(how, "nodevice") == 0) || !visible)
        record("nodevice msg=cudaErrorNoDevice: no CUDA-capable device is detected");
    else
        return 0;
    record("done");
    return 1;
}

/* Whether text holds the decimal number `digits` whole: not inside a longer number, so that a
 * pid or a path's digits in a test's environment (a target "ppid:112345") is no false alarm. */
static int holds_number(const char *text, const char *digits)
{
    size_t n = strlen(digits);
    for (const char *p = strstr(text, digits); p; p = strstr(p + 1, digits))
        if ((p == text || !isdigit((unsigned char)p[-1])) && !isdigit((unsigned char)p[n]))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--hold") == 0)
        return fake_hold();
    const char *fd = getenv("CML_RESULT_FD"), *dir = NULL, *ms_env = getenv("FAKE_REF_MS");
    uint64_t seed = 0;
    int no_output = 0, ncases = 0, link_bw = 0;
    const char *cases[64];
    results = fd ? fdopen(atoi(fd), "w") : NULL;
    const char *seed_fd = getenv("CML_SEED_FD"); /* as common/cml_args.cpp reads it */
    if (seed_fd) {
        char text[32] = "";
        ssize_t got = read(atoi(seed_fd), text, sizeof text - 1);
        close(atoi(seed_fd));
        seed = got > 0 ? strtoull(text, NULL, 10) : 0;
        char digits[32]; /* the seed must be nowhere else a student file could look */
        snprintf(digits, sizeof digits, "%llu", (unsigned long long)seed);
        for (char **e = environ; seed >= 10000 && *e; e++)
            if (holds_number(*e, digits)) {
                fprintf(stderr, "fake_lab: the seed is in the environment: %s\n", *e);
                return 2;
            }
    }
    /* a lab run takes the GPU once its seed came (a turn: cml_run_sandboxed_turn) */
    if (fake_lock_not_held() || fake_run_overlaps())
        return 9;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0) { /* the grader's seed is piped, never in argv */
            fprintf(stderr, "fake_lab: the seed reached argv\n");
            return 2;
        } else if (strcmp(argv[i], "--out-dir") == 0 && i + 1 < argc) dir = argv[++i];
        else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc && ncases < 64)
            cases[ncases++] = argv[++i];
        else if (strcmp(argv[i], "--no-output") == 0) no_output = 1;
        else if (strcmp(argv[i], "--link-bw") == 0) link_bw = 1;
        else if (strcmp(argv[i], "--no-guard") == 0) continue; /* the sanitizer runs' */
        else if (strcmp(argv[i], "--bench") == 0) { puts("fake bench: 1.0 GB/s"); return 0; }
        else { fprintf(stderr, "fake_lab: unknown argument %s\n", argv[i]); return 2; }
    }
    /* FAKE_ATTACK_ALWAYS: an attack in every run, the tool runs' (--no-output) too */
    if (getenv("FAKE_ATTACK_ALWAYS") && fake_is_attack(getenv("FAKE_ATTACK_ALWAYS")))
        fake_attack(getenv("FAKE_ATTACK_ALWAYS"), ".");
    record("hello protocol=1 lab=%s", ncases ? (getenv("FAKE_LAB") ? getenv("FAKE_LAB")
                                                                   : "fake") : "probe");
    if (!ncases && fake_probe_refuses())
        return 3;
    /* CML_TRACE_OUT (a trace run, grader/src/6_measure/trace_run.c): FAKE_TRACE's text goes there,
     * as the grader's CUPTI library would write it */
    /* FAKE_TRACE_ALSO instead when the case holds FAKE_TRACE_WHEN ("n=1024"): a lab that
     * behaves otherwise at another size (tests/test_trace_cases.c) */
    int also = 0;
    for (int k = 0; k < ncases && getenv("FAKE_TRACE_WHEN") && getenv("FAKE_TRACE_ALSO"); k++)
        also |= strstr(cases[k], getenv("FAKE_TRACE_WHEN")) != NULL;
    if (getenv("CML_TRACE_OUT") && getenv("FAKE_TRACE"))
        copy_text(getenv(also ? "FAKE_TRACE_ALSO" : "FAKE_TRACE"), getenv("CML_TRACE_OUT"));
    /* FAKE_DODGE: under a tool (FAKE_UNDER_TOOL, which the sanitizer tests' fake
     * compute-sanitizer sets) or traced, leave at once and quietly, as a lab that dodges the
     * tools would */
    if (getenv("FAKE_DODGE") && (getenv("FAKE_UNDER_TOOL") || getenv("CML_TRACE_OUT")))
        return 0;
    record("device name=Fake_GPU cc=90 sms=132 l2=52428800 mem=84929347584 driver=13000 "
           "runtime=13000 clock_mhz=1980");
    if (ncases)
        record("copybw gbps=3000.0 bytes=2147483648");
    if (ncases && link_bw) /* --link-bw: as the harness does before its first timed host case */
        record("linkbw h2d=%s d2h=%s bytes=268435456", getenv("FAKE_LINK_GBPS") ?
               getenv("FAKE_LINK_GBPS") : "50.0", getenv("FAKE_LINK_GBPS") ?
               getenv("FAKE_LINK_GBPS") : "50.0");
    /* The misbehaving task's first case starts a flood and is what follows `done`, wherever
     * the task's cases lie in the run (a run of several tasks shares one process). */
    int odd = -1;
    for (int k = 0; k < ncases; k++) {
        fake_case c;
        parse_case(cases[k], &c);
        const char *mode = mode_for(c.task, no_output);
        if (strcmp(mode, "wronginshared") == 0)
            mode = mixed_run(cases, ncases) ? "wrong" : "right";
        if (odd < 0 && strcmp(mode, "right") != 0) {
            odd = k;
            if (strcmp(mode, "flood") == 0)
                flood_stdout();
        }
        run_case(k, ncases, &c, seed, no_output ? NULL : dir, mode, ms_env ? atof(ms_env) : 2.0);
    }
    record("done");
    if (ncases) {
        fake_case c;
        parse_case(cases[odd < 0 ? 0 : odd], &c);
        after_done(mode_for(c.task, no_output), c.task);
    }
    printf("fake lab: %d case(s)\n", ncases);
    return 0;
}
