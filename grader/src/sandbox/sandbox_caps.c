/* What the sandbox can enforce on this machine: found once, printed by `cml-grade doctor`,
 * written into every record, so that a grade says which protection it was made without. */
#include "sandbox.h"
#include "sandbox_landlock.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <unistd.h>

#define NOBODY_ID 65534 /* the usual id of "nobody" where the name is missing */

static cml_sandbox_caps caps, off; /* this machine's; and what CML_SANDBOX=off leaves */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void add_missing(cml_sandbox_caps *c, const char *what)
{
    size_t used = strlen(c->missing);
    snprintf(c->missing + used, sizeof c->missing - used, "%s%s", used ? "; " : "", what);
}

static void probe(void)
{
    caps.landlock_abi = cml_ll_abi();
    caps.fs = caps.landlock_abi >= 1;
    caps.net = caps.landlock_abi >= 4;
    caps.scope_signal = caps.landlock_abi >= 6;
    int sub = 0;
    caps.subreaper = prctl(PR_GET_CHILD_SUBREAPER, &sub, 0, 0, 0) == 0;
    const char *relax = getenv("CML_SANDBOX_RELAX");
    caps.drop_user = geteuid() == 0 && !(relax && strstr(relax, "nodrop"));
    if (caps.drop_user) {
        struct passwd *pw = getpwnam("nobody");
        caps.uid = pw ? pw->pw_uid : NOBODY_ID;
        caps.gid = pw ? pw->pw_gid : NOBODY_ID;
    }
    off.disabled = 1;
    off.subreaper = caps.subreaper;
    add_missing(&off, "sandbox turned off (CML_SANDBOX=off): labs ran unconfined");
    if (!caps.fs)
        add_missing(&caps, "no Landlock in this kernel: file reads, writes and exec not confined");
    else if (!caps.scope_signal)
        add_missing(&caps, "Landlock ABI < 6: signals outside the task not refused");
    if (caps.fs && !caps.net)
        add_missing(&caps, "Landlock ABI < 4: TCP not refused");
    if (!caps.subreaper)
        add_missing(&caps, "no child subreaper: descendants that leave the process group may survive");
}

/* Contract in sandbox.h. CML_SANDBOX=off is read on every call (tests turn it on and off). */
const cml_sandbox_caps *cml_sandbox_caps_get(void)
{
    pthread_once(&once, probe);
    const char *mode = getenv("CML_SANDBOX");
    return mode && strcmp(mode, "off") == 0 ? &off : &caps;
}

/* Contract in sandbox.h. A value that does not parse falls back to the default: a typo must
 * not leave a task uncapped. */
uint64_t cml_sandbox_mem_cap(void)
{
    return cml_mem_setting("CML_SANDBOX_MEM", CML_SANDBOX_MEM_DEFAULT);
}

/* Contract in sandbox.h. */
uint64_t cml_mem_setting(const char *name, uint64_t fallback)
{
    const char *v = getenv(name);
    char *end = NULL;
    unsigned long long n = v && *v ? strtoull(v, &end, 10) : 0;
    int shift = !end ? -1 : !*end ? 0 : !strcmp(end, "K") || !strcmp(end, "k") ? 10 :
                !strcmp(end, "M") || !strcmp(end, "m") ? 20 :
                !strcmp(end, "G") || !strcmp(end, "g") ? 30 : -1;
    if (shift < 0 || n == 0 || n > (~0ull >> shift))
        return fallback;
    uint64_t cap = (uint64_t)n << shift;
    return cap < CML_SANDBOX_MEM_MIN ? CML_SANDBOX_MEM_MIN : cap;
}

/* Contract in sandbox.h. */
void cml_sandbox_describe(FILE *f)
{
    const cml_sandbox_caps *c = cml_sandbox_caps_get();
    fprintf(f, "Sandbox for processes that run student code (lab binaries, also under ncu and "
            "compute-sanitizer):\n");
    if (c->disabled)
        fprintf(f, "  OFF      CML_SANDBOX=off is set: nothing below is enforced\n");
    fprintf(f, "  %-8s Landlock ABI %d: writes only to the run's scratch folder, reads only "
            "system folders and its own binary, executes only its own binary\n",
            c->fs ? "yes" : "MISSING", c->landlock_abi);
    fprintf(f, "  %-8s signals to processes outside the task refused (Landlock scope, ABI 6)\n",
            c->scope_signal ? "yes" : "MISSING");
    fprintf(f, "  %-8s TCP bind and connect refused (Landlock, ABI 4)\n",
            c->net ? "yes" : "MISSING");
    fprintf(f, "  %-8s every descendant killed when the task ends (supervisor is a child "
            "subreaper)\n", c->subreaper ? "yes" : "MISSING");
    fprintf(f, "  %-8s resident memory of the task's processes capped at %llu MiB (watchdog; "
            "CML_SANDBOX_MEM changes it)\n", "yes",
            (unsigned long long)(cml_sandbox_mem_cap() >> 20));
    if (c->drop_user)
        fprintf(f, "  %-8s the grader is root: labs run as uid %d, gid %d, in run folders inside "
                "a root-owned, unlistable folder /tmp/cml-runs-* (--keep leaves them there)\n",
                "yes", (int)c->uid, (int)c->gid);
    else
        fprintf(f, "  %-8s the grader is not root: labs run as its user (uid %d)\n", "n/a",
                (int)geteuid());
    fprintf(f, "  %-8s no new privileges (setuid programs cannot raise them)\n", "yes");
    char confine[CML_PATH];
    int found = cml_beside_self("CML_CONFINE", "cml-confine", confine, sizeof confine) == 0 &&
                access(confine, X_OK) == 0;
    fprintf(f, "  %-8s under ncu or compute-sanitizer the lab is confined again by cml-confine "
            "(%s): the tool's shell, /usr/bin, /opt and /tmp never reach it\n",
            c->fs && found ? "yes" : "no", found ? confine : "NOT FOUND: ncu checks and sanitizers say not checked");
    fprintf(f, c->missing[0] ? "Missing: %s\n" : "Every protection is enforced here.\n",
            c->missing);
}

#define LAB_BIN_MAX ((size_t)1 << 30) /* a lab binary with its fat binary: a few MiB */

/* A name no other process can guess: a confined run that may write /tmp (a tool run) must not
 * be able to find another task's run folder there by trying names. */
static int unique_dir(const char *parent, const char *name, char *dir, size_t len)
{
    for (int tries = 0; tries < 8; tries++) {
        unsigned char r[8];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
            return -1;
        if (cml_fmt(dir, len, "%s/%s-%02x%02x%02x%02x%02x%02x%02x%02x", parent, name, r[0],
                    r[1], r[2], r[3], r[4], r[5], r[6], r[7]) < 0)
            return -1;
        if (mkdir(dir, 0700) == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

static char runs_base[CML_PATH]; /* as root: this grader's folder of run folders in /tmp */
static pthread_once_t runs_once = PTHREAD_ONCE_INIT;
static pid_t runs_owner;         /* the process that made it */

/* Only its maker removes it: a forked child (a Check test) inherits the handler, and its exit
 * would leave the next user to recreate the folder with mkdir's 0755. */
static void remove_runs_base(void)
{
    if (getpid() == runs_owner)
        rmdir(runs_base); /* empty unless --keep left run folders there */
}

static void make_runs_base(void)
{
    if (unique_dir("/tmp", "cml-runs", runs_base, sizeof runs_base) < 0 ||
        chmod(runs_base, 0711) < 0) {
        runs_base[0] = '\0';
        return;
    }
    runs_owner = getpid();
    atexit(remove_runs_base);
}

/* Contract in sandbox.h. Where run folders go. Normally beneath the grader's own work folder. When the lab drops to
 * another user, that user must reach its run folder by its full path: Nsight Compute checks
 * its working folder's path and stops with "filesystem error: status: Permission denied" when
 * --out lies under a closed folder such as /root (H100, CUDA 13.0). Run folders then live in
 * one folder of /tmp made for this grader: owned by root, mode 0711, so the lab's user can
 * pass through it but not list it, and each run folder's name is unguessable. */
const char *cml_sandbox_run_parent(const char *parent)
{
    if (!cml_sandbox_caps_get()->drop_user)
        return parent;
    pthread_once(&runs_once, make_runs_base);
    return runs_base[0] ? runs_base : parent;
}

/* Contract in sandbox.h. */
int cml_sandbox_scratch(const char *parent, const char *name, const char *bin, char *dir,
                        size_t len, char *err, size_t errlen)
{
    char lab[CML_PATH];
    const char *base = cml_sandbox_run_parent(parent);
    if (cml_mkdirs(base) < 0 || unique_dir(base, name, dir, len) < 0) {
        snprintf(err, errlen, "grader error: cannot create a run folder under %.900s: choose "
                 "a writable --out", base);
        return -1;
    }
    if (!bin)
        return 0;
    if (cml_fmt(lab, sizeof lab, "%s/lab", dir) < 0 ||
        cml_copy_file(bin, lab, LAB_BIN_MAX, err, errlen) < 0 || chmod(lab, 0755) < 0) {
        cml_rmtree(dir);
        return -1;
    }
    return 0;
}

/* Contract in sandbox.h. */
int cml_sandbox_add_confine(const char *dir, char *err, size_t errlen)
{
    char prog[CML_PATH], to[CML_PATH];
    if (cml_beside_self("CML_CONFINE", "cml-confine", prog, sizeof prog) < 0) {
        snprintf(err, errlen, "grader error: cannot find cml-confine beside the grader");
        return -1;
    }
    if (cml_fmt(to, sizeof to, "%s/confine", dir) < 0 ||
        cml_copy_file(prog, to, LAB_BIN_MAX, err, errlen) < 0 || chmod(to, 0755) < 0)
        return -1;
    return 0;
}
