/* Which of compute-sanitizer's tools can find anything in a lab's student code (evidence.h),
 * read from the PTX the build kept before any student code ran. racecheck looks for hazards on
 * shared memory only, synccheck at synchronization primitives only (NVIDIA's Compute Sanitizer
 * guide: "shared memory data access hazards", "invalid usages of synchronization
 * primitives"), and every instruction that reaches shared memory, or makes a generic
 * pointer to it, names the `.shared` state space in PTX (ld/st/atom/red/cp.async/ldmatrix
 * .shared, cvta.shared, the declarations). synccheck checks barriers and warp-synchronous
 * primitives (bar., barrier., mbarrier., *.sync with a mask). PTX without those words gives the
 * tool nothing to check, so its run (about 1.3 s alone, up to 6 s in the phase's crowd, H100)
 * is left out and the tool passes, saying why. Inline PTX shows in the file as written; a word
 * in a comment only makes a tool run. memcheck and initcheck always run. On by default since
 * it was measured on an H100 (ARCHITECTURE.md, "Nothing to check": 18 runs instead of 28 for
 * the solutions, the same verdicts); CML_SANITIZE_ONLY_NEEDED=0 runs every tool everywhere. */
#include "evidence.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static const char *const SHARED[] = { ".shared", NULL };
static const char *const SYNC[] = { "bar.", "barrier.", ".sync", NULL };

#define PTX_CAP ((size_t)64 << 20) /* a file this long or longer: every tool */

static int has_any(const char *text, size_t len, const char *const *words)
{
    for (int i = 0; words[i]; i++)
        if (memmem(text, len, words[i], strlen(words[i])))
            return 1;
    return 0;
}

/* Contract in evidence.h. */
unsigned cml_sanitizers_needed(const cml_lab_spec *spec, const char *ev_dir,
                               const char *ev_digest)
{
    const unsigned all = (1u << CML_SANITIZERS) - 1;
    const char *on = getenv("CML_SANITIZE_ONLY_NEEDED");
    char path[CML_PATH];
    if (on && strcmp(on, "0") == 0) /* asked for every tool */
        return all;
    if (!cml_evidence_unchanged(ev_dir, ev_digest))
        return all; /* no evidence, or not the build's: every tool */
    unsigned need = all & ~((1u << CML_RACECHECK) | (1u << CML_SYNCCHECK));
    for (int i = 0; i < spec->nfiles; i++) {
        if (!cml_is_cu(spec->files[i]))
            continue;
        size_t len = 0;
        char *ptx = cml_fmt(path, sizeof path, "%s/%s.ptx", ev_dir, spec->files[i]) == 0
                    ? cml_read_text(path, PTX_CAP, &len) : NULL;
        if (!ptx || len >= PTX_CAP) {
            free(ptx);
            return all;
        }
        need |= has_any(ptx, len, SHARED) ? 1u << CML_RACECHECK : 0;
        need |= has_any(ptx, len, SYNC) ? 1u << CML_SYNCCHECK : 0;
        free(ptx);
    }
    return need;
}
