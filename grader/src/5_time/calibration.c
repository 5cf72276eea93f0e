/* The calibration file (calibration.h): a small text header, then each stored run as
 * `run <lab> <sha> <bytes> <cases>` followed by exactly that many bytes of protocol text. */
#include "calibration.h"
#include "sha256.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAL_MAGIC "cml-calibration 1\n"
#define CAL_MAX_BYTES (8u << 20)

/* One "key value" header line at *p (value to the end of the line). 1 when key matched. */
static int header(const char **p, const char *key, char *val, size_t len)
{
    size_t k = strlen(key);
    if (strncmp(*p, key, k) != 0 || (*p)[k] != ' ')
        return 0;
    const char *v = *p + k + 1, *nl = strchr(v, '\n');
    if (!nl)
        return 0;
    snprintf(val, len, "%.*s", (int)(nl - v), v);
    *p = nl + 1;
    return 1;
}

/* The `run` lines from p to the end of text. 0, or -1 with err. */
static int load_runs(const char *p, const char *end, cml_calibration *c, char *err,
                     size_t errlen)
{
    while (p < end) {
        char lab[64], sha[65];
        unsigned long bytes;
        int used = 0;
        if (sscanf(p, "run %63s %64s %lu %n", lab, sha, &bytes, &used) != 3 || used == 0) {
            snprintf(err, errlen, "run %d: malformed line", c->nruns + 1);
            return -1;
        }
        const char *cases = p + used, *nl = memchr(cases, '\n', (size_t)(end - cases));
        if (!nl || bytes > (unsigned long)(end - nl - 1)) {
            snprintf(err, errlen, "run %d (%s): truncated", c->nruns + 1, lab);
            return -1;
        }
        char cs[2048];
        snprintf(cs, sizeof cs, "%.*s", (int)(nl - cases), cases);
        if (cml_cal_put(c, lab, sha, cs, nl + 1, bytes) < 0) {
            snprintf(err, errlen, "more than %d runs", CML_CAL_RUNS);
            return -1;
        }
        p = nl + 1 + bytes;
        if (p < end && *p == '\n')
            p++;
    }
    return 0;
}

/* Contract in calibration.h. */
int cml_cal_load(const char *path, cml_calibration *c, char *err, size_t errlen)
{
    char e[256] = "", v[32] = "", d[32] = "";
    size_t len = 0;
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    char *text = cml_read_text(path, CAL_MAX_BYTES, &len);
    const char *p = text;
    if (!text)
        snprintf(e, sizeof e, "cannot read it (run cml-grade calibrate to write one)");
    else if (strncmp(text, CAL_MAGIC, strlen(CAL_MAGIC)) != 0)
        snprintf(e, sizeof e, "not a calibration file (no '%.17s' line)", CAL_MAGIC);
    else if ((p += strlen(CAL_MAGIC)), !header(&p, "gpu", c->gpu, sizeof c->gpu) ||
             !header(&p, "cc", v, sizeof v) || !header(&p, "driver", d, sizeof d) ||
             !header(&p, "nvcc", c->nvcc, sizeof c->nvcc) ||
             !header(&p, "created", c->created, sizeof c->created))
        snprintf(e, sizeof e, "its header lacks gpu, cc, driver, nvcc or created");
    else
        load_runs(p, text + len, c, e, sizeof e); /* sets e on failure */
    if (!e[0]) {
        c->cc = atoi(v);
        c->driver = atoi(d);
        char hex[CML_SHA256_HEX];
        cml_sha256_ctx h;
        cml_sha256_init(&h);
        cml_sha256_update(&h, text, len);
        cml_sha256_hex(&h, hex);
        snprintf(c->id, sizeof c->id, "%.16s", hex);
    }
    free(text);
    if (e[0]) {
        snprintf(err, errlen, "calibration %s: %s", path, e);
        cml_cal_free(c);
        return -1;
    }
    return 0;
}

/* The whole file as text (malloc'd), for saving and for its id. */
static char *render(const cml_calibration *c, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        return NULL;
    fprintf(f, CAL_MAGIC "gpu %s\ncc %d\ndriver %d\nnvcc %s\ncreated %s\n", c->gpu, c->cc,
            c->driver, c->nvcc, c->created);
    for (int i = 0; i < c->nruns; i++) {
        const cml_cal_run *r = &c->runs[i];
        fprintf(f, "run %s %s %zu %s\n", r->lab, r->ref_sha, r->len, r->cases);
        fwrite(r->text, 1, r->len, f);
        fputc('\n', f);
    }
    return fclose(f) == 0 ? buf : (free(buf), NULL);
}

/* Contract in calibration.h. */
int cml_cal_save(const char *path, cml_calibration *c, char *err, size_t errlen)
{
    char tmp[CML_PATH], hex[CML_SHA256_HEX];
    size_t len = 0;
    char *text = render(c, &len);
    if (!text || cml_fmt(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid()) < 0 ||
        cml_write_file(tmp, text, len) < 0 || rename(tmp, path) < 0) {
        snprintf(err, errlen, "cannot write the calibration file %s: is its folder writable?",
                 path);
        unlink(tmp);
        free(text);
        return -1;
    }
    cml_sha256_ctx h;
    cml_sha256_init(&h);
    cml_sha256_update(&h, text, len);
    cml_sha256_hex(&h, hex);
    snprintf(c->id, sizeof c->id, "%.16s", hex);
    snprintf(c->path, sizeof c->path, "%s", path);
    free(text);
    return 0;
}

/* Contract in calibration.h. */
int cml_cal_matches_gpu(const cml_calibration *c, const cml_grading *g, char *why, size_t len)
{
    if (strcmp(c->gpu, g->gpu_name) == 0 && c->cc == g->cc && c->driver == g->driver)
        return 1;
    snprintf(why, len, "calibration %s was measured on %s (sm_%d, driver %d), this is %s "
             "(sm_%d, driver %d): the reference is measured live", c->id, c->gpu, c->cc,
             c->driver, g->gpu_name, g->cc, g->driver);
    return 0;
}

/* Contract in calibration.h. */
const cml_cal_run *cml_cal_find(const cml_calibration *c, const char *lab, const char *ref_sha,
                                const char *cases)
{
    for (int i = 0; c && i < c->nruns; i++)
        if (strcmp(c->runs[i].lab, lab) == 0 && strcmp(c->runs[i].ref_sha, ref_sha) == 0 &&
            strcmp(c->runs[i].cases, cases) == 0)
            return &c->runs[i];
    return NULL;
}

/* Contract in calibration.h. */
int cml_cal_put(cml_calibration *c, const char *lab, const char *ref_sha, const char *cases,
                const char *text, size_t len)
{
    cml_cal_run *r = (cml_cal_run *)cml_cal_find(c, lab, ref_sha, cases);
    if (!r && c->nruns == CML_CAL_RUNS)
        return -1;
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, text, len);
    copy[len] = '\0';
    if (!r) {
        r = &c->runs[c->nruns++];
        snprintf(r->lab, sizeof r->lab, "%s", lab);
        snprintf(r->ref_sha, sizeof r->ref_sha, "%s", ref_sha);
        snprintf(r->cases, sizeof r->cases, "%s", cases);
    } else {
        free(r->text);
    }
    r->text = copy;
    r->len = len;
    return 0;
}

/* Contract in calibration.h. */
void cml_cal_free(cml_calibration *c)
{
    for (int i = 0; i < c->nruns; i++) {
        free(c->runs[i].text);
        c->runs[i].text = NULL;
    }
    c->nruns = 0;
}
