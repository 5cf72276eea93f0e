/* The sandbox's policy: a Landlock ruleset built in the grader before fork (paths resolved,
 * folders listed, nothing a forked child of a threaded program may not do), entered by the lab
 * process just before exec. Landlock only ever allows, so "everything but the grader's files" is
 * built by granting the system folders and, where one holds a protected folder, its other
 * entries instead (see grant_read): that folder itself cannot be listed. */
#include "sandbox.h"
#include "sandbox_landlock.h"
#include "util.h"

#include <dirent.h>
#include <grp.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Folders a CUDA process reads: libraries, the driver's files, /proc, /sys, devices. */
static const char *const READ_ROOTS[] = { "/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin",
                                          "/etc", "/opt", "/proc", "/sys", "/dev", "/run" };
/* Devices it may open for writing (never /dev/shm: files there outlive the task). */
static const char *const DEV_WRITE[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/urandom",
                                         "/dev/random" };
#define NCU_PORT_FIRST 49152 /* Nsight Compute's default base port and the range it tries */
#define NCU_PORTS 64

#define MAX_PROTECT 8
static char protected_paths[MAX_PROTECT][CML_PATH];
static int nprotected;

static int beneath(const char *path, const char *dir);

/* Contract in sandbox.h. */
const char *cml_sandbox_protected(const char *real_path)
{
    for (int i = 0; i < nprotected; i++)
        if (beneath(real_path, protected_paths[i]))
            return protected_paths[i];
    return NULL;
}

/* Contract in sandbox.h. */
void cml_sandbox_protect(const char *const *paths, int n)
{
    nprotected = 0;
    for (int i = 0; i < n && nprotected < MAX_PROTECT; i++)
        if (paths[i] && realpath(paths[i], protected_paths[nprotected]))
            nprotected++;
}

/* Whether `path` is `dir` or beneath it. */
static int beneath(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return 1;
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Contract in sandbox.h. */
int cml_sandbox_allow(int rs, const char *path, uint64_t access)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == EACCES ? 0 : -1; /* nothing there to grant */
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
        access &= CML_LL_FILE_RIGHTS; /* directory rights on a file are an error */
    struct cml_ll_path_beneath pb = { .allowed_access = access, .parent_fd = fd };
    int rc = cml_ll_add_rule(rs, CML_LL_RULE_PATH_BENEATH, &pb);
    close(fd);
    return rc;
}

/* Read access to `dir` except the protected folders inside it: where one lies beneath dir,
 * grant dir's other entries instead, and recurse into the entry that leads to it. */
static int grant_read(int rs, const char *dir, int depth)
{
    char real[CML_PATH];
    if (!realpath(dir, real))
        return 0;
    int holds = -1;
    for (int i = 0; i < nprotected && holds < 0; i++) {
        if (beneath(real, protected_paths[i]))
            return 0; /* the folder itself is protected */
        if (beneath(protected_paths[i], real))
            holds = i;
    }
    if (holds < 0 || depth > 32)
        return cml_sandbox_allow(rs, real, CML_LL_READ);
    DIR *d = opendir(real);
    if (!d)
        return 0;
    /* No right on dir itself: a Landlock right on a folder holds for everything beneath it,
     * so even READ_DIR here would let the lab list every folder of the protected tree (the
     * output folder's names included). Paths through dir still resolve without it. */
    int rc = 0;
    struct dirent *e;
    char child[CML_PATH];
    while (rc == 0 && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            cml_fmt(child, sizeof child, "%s/%s", strcmp(real, "/") ? real : "", e->d_name) == 0)
            rc = grant_read(rs, child, depth + 1);
    closedir(d);
    return rc;
}

/* The program interpreter an ELF file names (PT_INTERP), or "" for none. */
static void elf_interp(const char *path, char *interp, size_t len)
{
    interp[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    Elf64_Ehdr eh;
    if (fd < 0)
        return;
    if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG)
        && eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
        for (int i = 0; i < eh.e_phnum && i < 64; i++) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != sizeof ph)
                break;
            if (ph.p_type == PT_INTERP && ph.p_filesz > 1 && ph.p_filesz < len &&
                pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz) {
                interp[ph.p_filesz - 1] = '\0';
                break;
            }
        }
    } else if (pread(fd, interp, len - 1, 0) > 2 && interp[0] == '#' && interp[1] == '!') {
        interp[len - 1] = '\0'; /* a script: "#!/bin/sh ..." names its interpreter */
        char *s = interp + 2 + strspn(interp + 2, " \t");
        memmove(interp, s, strcspn(s, " \t\n") + 1);
        interp[strcspn(interp, " \t\n")] = '\0';
    } else {
        interp[0] = '\0';
    }
    close(fd);
}

/* Execute (and read) `path`, and whatever interpreter it needs to start. */
static int grant_exec(int rs, const char *path, int depth)
{
    char real[CML_PATH], interp[CML_PATH];
    if (!realpath(path, real) || depth > 4)
        return 0;
    if (cml_sandbox_allow(rs, real, CML_LL_EXECUTE | CML_LL_READ_FILE) < 0)
        return -1;
    elf_interp(real, interp, sizeof interp);
    return interp[0] ? grant_exec(rs, interp, depth + 1) : 0;
}

/* Read access to each folder of LD_LIBRARY_PATH (a cluster's CUDA driver may live there). */
static int grant_library_path(int rs)
{
    const char *p = getenv("LD_LIBRARY_PATH");
    char dir[CML_PATH];
    int rc = 0;
    for (; rc == 0 && p && *p; p += strcspn(p, ":"), p += *p == ':') {
        size_t n = strcspn(p, ":");
        if (n && n < sizeof dir) {
            memcpy(dir, p, n);
            dir[n] = '\0';
            rc = grant_read(rs, dir, 0);
        }
    }
    return rc;
}

/* TCP for a tool's own connections (Nsight Compute talks to its target on local ports). */
static int grant_tool_ports(int rs)
{
    for (int p = 0; p < NCU_PORTS; p++) {
        struct cml_ll_net_port np = { CML_LL_NET_BIND_TCP | CML_LL_NET_CONNECT_TCP,
                                      (uint64_t)(NCU_PORT_FIRST + p) };
        if (cml_ll_add_rule(rs, CML_LL_RULE_NET_PORT, &np) < 0)
            return -1;
    }
    return 0;
}

/* The programs a tool starts from the run folder: cml-confine, which starts the lab. */
static int grant_run_folder_programs(int rs, const char *scratch)
{
    const char *names[] = { "confine", "lab" };
    char path[CML_PATH];
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof names / sizeof names[0]; i++)
        rc = cml_fmt(path, sizeof path, "%s/%s", scratch, names[i]) < 0 ? -1
             : grant_exec(rs, path, 0);
    return rc;
}

/* Read and execute beneath /opt, except protected folders there (a repository in /opt). */
static int grant_read_exec_opt(int rs)
{
    char real[CML_PATH];
    for (int i = 0; i < nprotected; i++)
        if (realpath("/opt", real) && beneath(protected_paths[i], real))
            return 0;
    return cml_sandbox_allow(rs, "/opt", CML_LL_READ | CML_LL_EXECUTE);
}

/* Contract in sandbox.h. */
int cml_sandbox_allow_listed(int rs, const char *list)
{
    int rc = 0;
    for (const char *r = list; rc == 0 && r && *r; r += strcspn(r, ","), r += *r == ',') {
        char path[256]; /* "w:/path" grants every right beneath path, "x:/path" execution */
        size_t n = strcspn(r, ",");
        if (n > 2 && n < sizeof path && (r[0] == 'w' || r[0] == 'x') && r[1] == ':') {
            snprintf(path, sizeof path, "%.*s", (int)n - 2, r + 2);
            rc = cml_sandbox_allow(rs, path, r[0] == 'x' ? CML_LL_READ | CML_LL_EXECUTE
                                   : (CML_LL_TRUNCATE << 1) - 1);
        }
    }
    return rc;
}

/* Contract in sandbox.h. */
int cml_sandbox_ruleset(const cml_sandbox *sb, const char *bin, char *why, size_t whylen)
{
    const cml_sandbox_caps *caps = cml_sandbox_caps_get();
    if (!caps->fs) {
        snprintf(why, whylen, "%s", caps->missing);
        return -1;
    }
    const char *relax = getenv("CML_SANDBOX_RELAX"); /* diagnosis only: docs/ARCHITECTURE.md */
    int rs = cml_ll_create(caps->landlock_abi, relax && strstr(relax, "scope"),
                           relax && strstr(relax, "net"));
    if (rs < 0) {
        snprintf(why, whylen, "landlock_create_ruleset failed (%s)", strerror(errno));
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof READ_ROOTS / sizeof READ_ROOTS[0]; i++)
        rc = grant_read(rs, READ_ROOTS[i], 0);
    for (size_t i = 0; rc == 0 && i < sizeof DEV_WRITE / sizeof DEV_WRITE[0]; i++)
        rc = cml_sandbox_allow(rs, DEV_WRITE[i], CML_LL_READ_FILE | CML_LL_WRITE_FILE);
    rc = rc ? rc : grant_library_path(rs);
    rc = rc ? rc : cml_sandbox_allow_listed(rs, relax);
    DIR *dev = rc ? NULL : opendir("/dev"); /* the GPU's device files: /dev/nvidia* */
    for (struct dirent *e; dev && rc == 0 && (e = readdir(dev));) {
        char path[CML_PATH];
        if (strncmp(e->d_name, "nvidia", 6) == 0 &&
            cml_fmt(path, sizeof path, "/dev/%s", e->d_name) == 0)
            rc = cml_sandbox_allow(rs, path, CML_LL_READ | CML_LL_WRITE_FILE);
    }
    if (dev)
        closedir(dev);
    rc = rc ? rc : cml_sandbox_allow(rs, sb->scratch, CML_LL_SCRATCH);
    rc = rc || !sb->ncu_tmp ? rc : cml_sandbox_allow(rs, sb->ncu_tmp, CML_LL_SCRATCH);
    rc = rc ? rc : grant_exec(rs, bin, 0);
    /* the lab under a tool: the tool's library in it listens on the tool's ports */
    if (rc == 0 && sb->injected && caps->net && !(relax && strstr(relax, "net")))
        rc = grant_tool_ports(rs);
    if (rc == 0 && sb->tool_root) { /* the tool's own programs, its /proc needs, its ports */
        rc = grant_run_folder_programs(rs, sb->scratch);
        rc = rc || !sb->tool_report ? rc : cml_sandbox_allow(rs, sb->tool_report, CML_LL_SCRATCH);
        rc = rc ? rc : cml_sandbox_allow(rs, sb->tool_root, CML_LL_READ | CML_LL_EXECUTE);
        rc = rc ? rc : grant_exec(rs, "/bin/sh", 0);
        /* ncu and compute-sanitizer are shell scripts that run dirname and cut (H100) */
        rc = rc ? rc : cml_sandbox_allow(rs, "/usr/bin", CML_LL_READ | CML_LL_EXECUTE);
        rc = rc ? rc : cml_sandbox_allow(rs, "/bin", CML_LL_READ | CML_LL_EXECUTE);
        /* the toolkit's ncu script execs Nsight Compute's own install under /opt (H100) */
        rc = rc ? rc : grant_read_exec_opt(rs);
        /* both tools write their own files in /tmp whatever TMPDIR says (H100, CUDA 13.0),
         * and fail to launch the lab without it, even where --out lies in /tmp. This domain
         * holds NVIDIA's programs only: the lab they start is confined again by cml-confine,
         * which never grants /tmp (sandbox.h) */
        rc = rc ? rc : cml_sandbox_allow(rs, "/tmp", (CML_LL_TRUNCATE << 1) - 1);
        rc = rc ? rc : cml_sandbox_allow(rs, "/proc", CML_LL_READ | CML_LL_WRITE_FILE |
                                                      CML_LL_TRUNCATE);
        rc = rc ? rc : caps->net && !(relax && strstr(relax, "net")) ? grant_tool_ports(rs) : 0;
    }
    if (rc < 0) {
        snprintf(why, whylen, "a Landlock rule could not be added (%s)", strerror(errno));
        close(rs);
        return -1;
    }
    return rs;
}

/* Contract in sandbox.h. Only system calls: this runs between fork and exec. */
int cml_sandbox_enter(int ruleset_fd, const cml_sandbox_caps *caps, int tool)
{
    if (caps->drop_user && (setgroups(0, NULL) < 0 || setgid(caps->gid) < 0 ||
                            setuid(caps->uid) < 0))
        return -1;
    /* Changing user makes a process undumpable, which hands its /proc/<pid> files to root;
     * CUDA writes some of them (cudaErrorOperatingSystem otherwise). Dumpable again, they are
     * the new user's; no other task can reach them (Landlock scopes ptrace to the domain). */
    if (caps->drop_user && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
        return -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return -1;
    if (ruleset_fd < 0)
        return 0;
    if (!tool) { /* CUDA opens files beneath its own /proc/<pid> for writing, with O_TRUNC
                  * (cudaErrorOperatingSystem without write and truncate; H100, CUDA 13.0) */
        int self = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct cml_ll_path_beneath pb = { CML_LL_READ | CML_LL_WRITE_FILE | CML_LL_TRUNCATE,
                                          self };
        if (self < 0 || cml_ll_add_rule(ruleset_fd, CML_LL_RULE_PATH_BENEATH, &pb) < 0)
            return -1;
        close(self);
    }
    return cml_ll_restrict(ruleset_fd);
}
