/* The sandbox around every process that runs student code (the lab binary, alone or under ncu
 * or compute-sanitizer): what it may read, write and execute (Landlock), whom it may signal,
 * which user it runs as, and the supervisor that leaves no descendant alive after its task and
 * caps the tree's resident memory. docs/ARCHITECTURE.md, "The sandbox", says why each piece. */
#ifndef CML_SANDBOX_H
#define CML_SANDBOX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cml.h"

#define CML_SANDBOX_MEM_DEFAULT (24ull << 30) /* resident bytes of one task's process tree */
#define CML_SANDBOX_MEM_MIN (16ull << 20)     /* below this no lab binary could even start */

/* One confined run. */
typedef struct {
    const char *scratch;   /* a fresh folder: the only place it may write; its working folder */
    const char *tool_root; /* NULL, or the install folder of the tool it runs under (ncu,
                              compute-sanitizer): readable and executable, its ports open */
    const char *tool_report; /* NULL, or a folder the tool (not the lab) writes its log in */
    uint64_t mem_cap;      /* resident bytes for the whole process tree; 0: the default */
    int injected;          /* the lab itself, started by cml-confine under a tool: the tool's
                              library inside it talks to the tool on the tool's ports */
    const char *ncu_tmp;   /* NULL, or (injected) the TMPDIR the ncu runs of one technique
                              phase share: Nsight Compute's library in the lab takes its
                              profiling lock there, so the lab may write it */
} cml_sandbox;

/* What this machine enforces, found once (cml_sandbox_caps). */
typedef struct {
    int landlock_abi;      /* 0: no Landlock (kernel too old or turned off) */
    int fs;                /* reads, writes and execution limited to the policy */
    int scope_signal;      /* signals to processes outside the task refused (ABI >= 6) */
    int net;               /* TCP bind/connect refused (ABI >= 4) */
    int drop_user;         /* the grader is root: the lab runs as an unprivileged user */
    uid_t uid;
    gid_t gid;
    int subreaper;         /* orphaned descendants come back to the supervisor and are killed */
    int disabled;          /* CML_SANDBOX=off: the grader was told not to confine (tests only) */
    char missing[256];     /* the protections this machine lacks, "" when none */
} cml_sandbox_caps;

/* The machine's capabilities (probed on the first call, then cached). Thread-safe after the
 * first call; call it once from the main thread before starting workers. */
const cml_sandbox_caps *cml_sandbox_caps_get(void);

/* Folders no confined process may read, whatever else is allowed: the repository (reference
 * builds, solutions, the build cache, specs), the output folder, the submission. Copied. */
void cml_sandbox_protect(const char *const *paths, int n);

/* The protected folder a resolved path lies beneath, or NULL. */
const char *cml_sandbox_protected(const char *real_path);

/* A fresh run folder <parent>/<name>-<16 random hex digits> holding a copy of `bin` as `lab`
 * (executable): every confined run starts in one, so it sees no other run's files. When the
 * lab runs as another user (the grader is root), the folder is made in a root-owned, unlistable
 * folder of /tmp instead of `parent`, so that user can reach it by its full path. Its path
 * into dir; 0, or -1 with a message in err. Remove it with cml_rmtree when done. */
int cml_sandbox_scratch(const char *parent, const char *name, const char *bin, char *dir,
                        size_t len, char *err, size_t errlen);

/* The folder cml_sandbox_scratch makes run folders in for `parent`: parent itself, or (the
 * grader is root) this grader's folder in /tmp. --keep leaves kept run folders there. */
const char *cml_sandbox_run_parent(const char *parent);

/* The resident-memory cap of one task's process tree: CML_SANDBOX_MEM when set ("512M",
 * "8G", bytes without a suffix; at least CML_SANDBOX_MEM_MIN), else CML_SANDBOX_MEM_DEFAULT.
 * Read on every call: the tests set a small cap to show a hog is killed. */
uint64_t cml_sandbox_mem_cap(void);

/* A byte count from environment variable `name` ("512M", "8G", bytes without a suffix; at
 * least CML_SANDBOX_MEM_MIN), else fallback. */
uint64_t cml_mem_setting(const char *name, uint64_t fallback);

/* The resident-memory cap of one build's process tree (nvcc and what it starts):
 * CML_BUILD_MEM, else CML_BUILD_MEM_DEFAULT. A lab file needs well under 1 GiB. */
#define CML_BUILD_MEM_DEFAULT (4ull << 30)

/* The lab runs under ncu or compute-sanitizer through cml-confine (confine_main.c), which
 * the tool starts in place of the lab: it enters a second, nested Landlock domain with a plain
 * lab's rights (sb.injected) and then executes the lab, so the tool's wider rights (a shell,
 * /tmp) never reach student code. Copies cml-confine into the run folder `dir` as `confine`;
 * 0, or -1 with a message in err. CML_CONFINE names the program; by default it lies beside
 * the running grader. */
int cml_sandbox_add_confine(const char *dir, char *err, size_t errlen);

/* Print what this machine enforces, one line per protection ("cml-grade doctor"). */
void cml_sandbox_describe(FILE *f);

/* ---- for run.c ---- */

/* A Landlock ruleset for a run of `bin` confined by sb (its fd; -1 when Landlock is missing or
 * the ruleset could not be built: then *why says so). The child adds its own /proc/<pid> and
 * restricts itself with cml_sandbox_enter(). */
int cml_sandbox_ruleset(const cml_sandbox *sb, const char *bin, char *why, size_t whylen);

/* Add to ruleset rs the Landlock rights `access` (CML_LL_*) beneath path (file rights only,
 * when it is a file); a path that does not exist is skipped. 0, or -1 with errno. */
int cml_sandbox_allow(int rs, const char *path, uint64_t access);

/* The extra rights a comma-separated diagnosis list names (CML_SANDBOX_RELAX, the tests'
 * CML_BUILD_RELAX): "w:/path" every right beneath path, "x:/path" read and execute; its other
 * words are skipped. 0, or -1 with errno. */
int cml_sandbox_allow_listed(int rs, const char *list);

/* The Landlock ruleset of a build (sandbox_build.c): read and execute the system's folders
 * (/usr, /lib, /lib64, /bin, ...) and the toolkit's install folder (realpath of `toolkit`);
 * read /etc/ld.so.cache, /etc/alternatives and /proc; everything beneath the build folder
 * `dir`; write /dev/null. Nothing else: no other file of /etc, no /dev/zero, no repository,
 * no other submission. Its fd; -1 with *why when Landlock is missing or a rule failed. */
int cml_sandbox_build_ruleset(const char *dir, const char *toolkit, char *why, size_t whylen);

/* In the child, after fork (async-signal-safe): no new privileges, the unprivileged user when
 * root, the Landlock domain (ruleset_fd, or none when -1). 0 on success, -1 with errno. */
int cml_sandbox_enter(int ruleset_fd, const cml_sandbox_caps *caps, int tool);

/* ---- the supervisor (sandbox_reaper.c): between the grader and the lab process ---- */

/* What the supervisor reports about the lab process it ran. */
typedef struct {
    int status;            /* the lab process's wait status */
    int ended;             /* it ended (status valid) */
    int timed_out;         /* killed at the deadline */
    int mem_exceeded;      /* killed because the tree passed its resident-memory cap */
    int strays;            /* descendants still alive after the lab process ended, killed */
    uint64_t peak_rss;     /* the tree's largest resident size seen, bytes */
} cml_reaper_report;

/* What the supervisor enforces and where it reports. timeout_s: the lab's limit, from the
 * supervisor's start; mem_cap: the tree's resident bytes (0: none); drop: what only the lab
 * process needs, closed after the fork (-1: none); tool: the child is ncu or compute-sanitizer,
 * the lab its descendant. go_r >= 0: a lab that waits for its turn (cml_run_sandboxed_turn):
 * its clock has not started; when the grader writes the seed into go_r, the supervisor passes
 * it on through seed_w (the lab's seed pipe, closed after), and the limit starts then. */
typedef struct {
    double timeout_s;
    uint64_t mem_cap;
    int report_fd, drop[2], tool;
    int go_r, seed_w;
} cml_reaper_plan;

/* In the supervisor (a forked child of the grader; async-signal-safe only): become a child
 * subreaper, fork the lab process (which calls start(arg) and never returns), wait for it until
 * the deadline, watch the tree's resident memory against the cap, then kill every descendant
 * and write a cml_reaper_report to rp->report_fd. With rp->tool, every other process that
 * becomes our child while the tool runs is killed at once. Never returns. */
_Noreturn void cml_reaper_main(void (*start)(void *), void *arg, const cml_reaper_plan *rp);

/* Close every descriptor from 3 up but those in keep[0..n-1] (async-signal-safe). */
void cml_close_all_but(const int *keep, int n);

#endif /* CML_SANDBOX_H */
