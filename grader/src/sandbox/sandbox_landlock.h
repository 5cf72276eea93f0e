/* Landlock's kernel interface, spelled out here because the C library's headers on the
 * machines we build on (Debian 12) predate the parts we use: ABI 4 (TCP ports), ABI 6 (signal
 * and abstract-socket scoping). Values from the kernel's uapi <linux/landlock.h>. */
#ifndef CML_SANDBOX_LANDLOCK_H
#define CML_SANDBOX_LANDLOCK_H

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#define CML_LL_CREATE_RULESET_VERSION (1u << 0)
#define CML_LL_RULE_PATH_BENEATH 1
#define CML_LL_RULE_NET_PORT 2

#define CML_LL_EXECUTE (1ull << 0)
#define CML_LL_WRITE_FILE (1ull << 1)
#define CML_LL_READ_FILE (1ull << 2)
#define CML_LL_READ_DIR (1ull << 3)
#define CML_LL_REMOVE_DIR (1ull << 4)
#define CML_LL_REMOVE_FILE (1ull << 5)
#define CML_LL_MAKE_CHAR (1ull << 6)
#define CML_LL_MAKE_DIR (1ull << 7)
#define CML_LL_MAKE_REG (1ull << 8)
#define CML_LL_MAKE_SOCK (1ull << 9)
#define CML_LL_MAKE_FIFO (1ull << 10)
#define CML_LL_MAKE_BLOCK (1ull << 11)
#define CML_LL_MAKE_SYM (1ull << 12)
#define CML_LL_REFER (1ull << 13)    /* ABI 2 */
#define CML_LL_TRUNCATE (1ull << 14) /* ABI 3 */
/* ABI 5's IOCTL_DEV (1 << 15) is left unhandled: CUDA drives the GPU through ioctl. */

#define CML_LL_NET_BIND_TCP (1ull << 0)    /* ABI 4 */
#define CML_LL_NET_CONNECT_TCP (1ull << 1) /* ABI 4 */
#define CML_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ull << 0) /* ABI 6 */
#define CML_LL_SCOPE_SIGNAL (1ull << 1)               /* ABI 6 */

#define CML_LL_READ (CML_LL_READ_FILE | CML_LL_READ_DIR)
#define CML_LL_FILE_RIGHTS (CML_LL_EXECUTE | CML_LL_WRITE_FILE | CML_LL_READ_FILE | \
                            CML_LL_TRUNCATE)
/* The scratch folder: files and folders in it, but no links, devices, FIFOs or sockets (a
 * symbolic link named case0.bin could make the grader read another submission's output). */
#define CML_LL_SCRATCH (CML_LL_READ | CML_LL_WRITE_FILE | CML_LL_REMOVE_DIR | \
                        CML_LL_REMOVE_FILE | CML_LL_MAKE_DIR | CML_LL_MAKE_REG | CML_LL_TRUNCATE)

struct cml_ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct cml_ll_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

struct cml_ll_net_port {
    uint64_t allowed_access;
    uint64_t port;
};

/* The ABI version, or 0 without Landlock. */
static inline int cml_ll_abi(void)
{
    long v = syscall(SYS_landlock_create_ruleset, NULL, 0, CML_LL_CREATE_RULESET_VERSION);
    return v > 0 ? (int)v : 0;
}

/* A ruleset handling every right this ABI knows (but ioctl); its fd or -1. */
static inline int cml_ll_create(int abi, int no_scope, int no_net)
{
    struct cml_ll_ruleset_attr a = { (CML_LL_MAKE_SYM << 1) - 1, 0, 0 };
    size_t size = sizeof a;
    if (abi >= 2) a.handled_access_fs |= CML_LL_REFER;
    if (abi >= 3) a.handled_access_fs |= CML_LL_TRUNCATE;
    if (no_net) abi = abi < 3 ? abi : 3; /* diagnosis: no TCP rules means no scoping either */
    if (abi >= 4) a.handled_access_net = CML_LL_NET_BIND_TCP | CML_LL_NET_CONNECT_TCP;
    if (abi >= 6 && !no_scope) a.scoped = CML_LL_SCOPE_SIGNAL | CML_LL_SCOPE_ABSTRACT_UNIX_SOCKET;
    if (abi < 4) size = sizeof a.handled_access_fs;
    else if (abi < 6) size = 2 * sizeof(uint64_t);
    return (int)syscall(SYS_landlock_create_ruleset, &a, size, 0);
}

static inline int cml_ll_add_rule(int rs, int type, const void *attr)
{
    return (int)syscall(SYS_landlock_add_rule, rs, type, attr, 0);
}

static inline int cml_ll_restrict(int rs)
{
    return (int)syscall(SYS_landlock_restrict_self, rs, 0);
}

#endif /* CML_SANDBOX_LANDLOCK_H */
