/* Evidence: what the static technique checks read, taken from the build before any student code
 * runs. For each student .cu file, <build>/evidence/ holds its source as compiled (<file>), the
 * PTX and the preprocessed text nvcc kept while compiling the very object that was linked
 * (<file>.ptx, <file>.ii), and cuobjdump's SASS of that compile's cubin (<file>.sass, or
 * <file>.sass.err saying why there is none). The folder's digest stays in the grader's memory;
 * the checks refuse evidence whose digest changed. No lab process can write there (the sandbox
 * keeps it out of the whole output folder), so a mismatch means the sandbox was missing or broken. */
#ifndef CML_EVIDENCE_H
#define CML_EVIDENCE_H

#include <stddef.h>

#include "cml.h"
#include "sha256.h"

#define CML_EVIDENCE_SUBDIR "evidence"

/* Collect the evidence of spec's student files from the staged folder `dir`, compiled for
 * sm_<cc> with nvcc --keep into dir/kept. Fills ev_dir and digest. 0, or -1 with why. */
int cml_evidence_collect(const cml_lab_spec *spec, const char *dir, int cc, char *ev_dir,
                         size_t len, char digest[CML_SHA256_HEX], char *why, size_t wlen);

/* A failed build's log with every include the build's sandbox refused (nvcc's "file:line:col:
 * fatal error: path: Permission denied") said as the include rule: "file:line: #include of
 * path: ... (rule: include)", and an include not found ("...: No such file or directory", a
 * header of the student's own, which is not staged) followed by what to do instead.
 * malloc'd; NULL when out of memory or log is empty. */
char *cml_include_refusals(const char *log);

/* ev/<file>.launches (evidence_launches.c): "caller kernel-symbol" per line, for every place in
 * a host function of dir's object of `file` that refers to a kernel's stub or host symbol, but
 * for code nvcc generates for each kernel (its stub, the registration); or
 * ev/<file>.launches.err with why not (nm or objdump missing). With it, ev/<file>.symbols:
 * "T name" per function the object defines, "U name" per name it takes from elsewhere, and
 * ev/<file>.calls: "caller target" per symbol a host function refers to or calls directly
 * (ev/<file>.calls.err when nm or objdump is missing). */
int cml_evidence_launches(const char *dir, const char *file, const char *ev);

/* sanitize_need.c: which of compute-sanitizer's tools (bit k: tool k, cml.h's order) can find
 * anything in spec's student code, from its PTX in ev_dir: racecheck only where the code
 * reaches shared memory, synccheck only where it synchronizes, memcheck and initcheck always;
 * all four when the PTX cannot be read or the folder's digest is not ev_digest, and always
 * with CML_SANITIZE_ONLY_NEEDED=0. */
unsigned cml_sanitizers_needed(const cml_lab_spec *spec, const char *ev_dir,
                               const char *ev_digest);

/* evidence_probe.c: for every `probe` check k of task ti of spec, ev/<file>.probe.<ti>.<k>:
 * "passed", "failed" (the probe's static_assert fired) or "error" (the probe did not compile
 * otherwise: not checked), and the compiler's line. 0, or -1 with why. */
int cml_evidence_probes(const cml_lab_spec *spec, const char *dir, int cc, const char *ev,
                        char *why, size_t wlen);

/* The digest of every file name and file in ev_dir, in name order; 0, or -1 when unreadable. */
int cml_evidence_digest(const char *ev_dir, char digest[CML_SHA256_HEX]);

/* 1 when ev_dir and digest are given and the folder's digest is still `digest`, else 0. */
int cml_evidence_unchanged(const char *ev_dir, const char *digest);

#endif /* CML_EVIDENCE_H */
