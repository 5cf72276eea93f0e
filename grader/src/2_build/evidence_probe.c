/* Evidence for `probe` checks (spec_technique.c): whether a C++ constant expression holds for a
 * student file as compiled. What the machine code cannot show, the compiler can: 4.2b's lesson
 * includes Point4's declared alignment, and a 4-byte-aligned Point4 moved through float4 casts
 * makes the same 128-bit accesses as an aligned one (red team of 2026-11-29). The probe is
 * `#include "<file>"` then `static_assert(<condition>, ...)`, compiled by nvcc's host front end
 * alone (--cuda: no device code) in the build's sandbox, as the student's build was: every
 * honest spelling (__align__, alignas, attributes, aliases) is the compiler's to read. */
#include "build.h"
#include "evidence.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROBE_MARK "cml-probe:" /* the static_assert's message: only the probe's own fires */
#define PROBE_TIMEOUT_S 120.0

/* The first line of log holding `word`, into buf ("" when none). */
static void line_with(const char *log, const char *word, char *buf, size_t len)
{
    const char *at = log ? strstr(log, word) : NULL;
    buf[0] = '\0';
    if (!at)
        return;
    const char *b = at;
    while (b > log && b[-1] != '\n')
        b--;
    snprintf(buf, len, "%.*s", (int)strcspn(b, "\n"), b);
}

/* Probe check k of task ti: its outcome into ev/<file>.probe.<ti>.<k>, "passed", "failed" or
 * "error", then the compiler's line. 0, or -1 when nothing could be written. */
static int probe_one(const cml_lab_spec *spec, const char *dir, int cc, const char *ev, int ti,
                     int k)
{
    const cml_tech_spec *c = &spec->tasks[ti].tech[k];
    char src[64], out[64], path[CML_PATH], arch[32], inc[96], text[512], line[300];
    snprintf(src, sizeof src, "cml_probe_%d_%d.cu", ti, k);
    snprintf(out, sizeof out, "cml_probe_%d_%d.ii", ti, k);
    snprintf(arch, sizeof arch, "-arch=sm_%d", cc);
    snprintf(inc, sizeof inc, "labs/%s", spec->lab);
    snprintf(text, sizeof text, "#include \"%s\"\nstatic_assert(%s, \"" PROBE_MARK " %s\");\n",
             c->file, c->pattern, c->pattern);
    if (cml_fmt(path, sizeof path, "%s/%s", dir, src) < 0 ||
        cml_write_file(path, text, strlen(text)) < 0)
        return -1;
    char *const args[] = { CML_NVCC_LANG, arch, "-I", "common", "-I", inc, "--cuda", src, "-o",
                           out, NULL };
    char *log = NULL;
    const int rc = cml_nvcc(args, dir, 1, PROBE_TIMEOUT_S, &log);
    unlink(path);
    if (cml_fmt(path, sizeof path, "%s/%s", dir, out) == 0)
        unlink(path);
    /* failed: the probe's own assertion, and only it, stopped the compile */
    line_with(log, PROBE_MARK, line, sizeof line);
    const char *state = rc == 0 ? "passed" : line[0] ? "failed" : "error";
    if (!line[0])
        line_with(log, "error", line, sizeof line);
    free(log);
    snprintf(text, sizeof text, "%s\n%s\n", state, line);
    if (cml_fmt(path, sizeof path, "%s/%s.probe.%d.%d", ev, c->file, ti, k) < 0)
        return -1;
    return cml_write_file(path, text, strlen(text));
}

/* Contract in evidence.h. */
int cml_evidence_probes(const cml_lab_spec *spec, const char *dir, int cc, const char *ev,
                        char *why, size_t wlen)
{
    for (int ti = 0; ti < spec->ntasks; ti++)
        for (int k = 0; k < spec->tasks[ti].ntech; k++)
            if (spec->tasks[ti].tech[k].kind == CML_TECH_PROBE &&
                probe_one(spec, dir, cc, ev, ti, k) < 0)
                return snprintf(why, wlen, "cannot write the probe evidence of task %s",
                                spec->tasks[ti].id), -1;
    return 0;
}
