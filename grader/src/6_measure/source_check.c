/* The source check (forbid) and what it reads: a student file's text as the compiler saw it,
 * its own lines of the preprocessed translation unit (`#if 0` blocks and comments gone, macros
 * expanded, so `a##b` shows the name it pastes, lines from headers left out), and its object's
 * symbols, so that the work a check is about cannot move to another student file. */
#include "lex.h"
#include "technique.h"
#include "util.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the marker's file names `file` (the staged copy's path ends in "/<file>"). */
static int names(const char *marker_file, const char *file)
{
    size_t m = strlen(marker_file), f = strlen(file);
    return m >= f && strcmp(marker_file + m - f, file) == 0 &&
           (m == f || marker_file[m - f - 1] == '/');
}

/* Contract in technique.h. */
char *cml_own_text(const char *ii, const char *file, long **linenos)
{
    size_t len = strlen(ii), lines = 1;
    for (const char *p = ii; *p; p++)
        lines += *p == '\n';
    char *out = malloc(len + 1), current[CML_PATH] = "";
    long *map = calloc(lines + 1, sizeof *map), no = 0;
    if (!out || !map) {
        free(out);
        free(map);
        return NULL;
    }
    size_t o = 0, k = 0;
    for (const char *l = ii; *l; k++) {
        size_t n = strcspn(l, "\n");
        int marker = cml_line_marker(l, &no, current, sizeof current);
        if (!marker && names(current, file)) {
            memcpy(out + o, l, n);
            o += n;
        }
        no += !marker;
        map[k] = marker ? 0 : no;
        out[o++] = '\n';
        l += n + (l[n] == '\n');
    }
    out[o] = '\0';
    /* a stringified call such as CML_CHECK's "cudaHostAlloc(...)" names a call without
     * making it */
    cml_blank_code(out, CML_BLANK_LITERALS);
    *linenos = map;
    return out;
}

/* Whether `name` is on a line "<kind> name" of text. */
static int has_symbol(const char *text, char kind, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text; p && *p; p += strcspn(p, "\n"), p += *p == '\n')
        if (p[0] == kind && p[1] == ' ' && strncmp(p + 2, name, n) == 0 &&
            (p[2 + n] == '\n' || p[2 + n] == '\0'))
            return 1;
    return 0;
}

/* Whether line p of a .symbols evidence is "U name" (a function the object calls): 1 with the
 * name in name. */
static int called_name(const char *p, char *name, size_t len)
{
    if (p[0] != 'U' || p[1] != ' ')
        return 0;
    snprintf(name, len, "%.*s", (int)strcspn(p + 2, "\n"), p + 2);
    return 1;
}

/* A function that `file` calls (`mine`: its .symbols evidence, or NULL) and another student
 * file of the lab defines (its .symbols evidence), from which that file's code reaches a call matching re (its .calls evidence,
 * followed any number deep): the path a forbid check is about must not hand the forbidden
 * call to another file, where the check does not look. A call into another file for anything
 * else (a shared grid-size helper) is ordinary code. 1 with "name -> what it reaches" into
 * found; 0 when there is none. */
static int hands_off(const cml_lab_spec *spec, const cml_technique_env *env, const char *file,
                     const char *mine, const regex_t *re, char *found, size_t flen)
{
    char why[300], name[200], reach[200];
    int hit = 0, seen = 0;
    for (int i = 0; mine && !hit && i < spec->nfiles; i++) {
        int theirs_cu = strcmp(spec->files[i], file) && cml_is_cu(spec->files[i]);
        char *theirs = theirs_cu ? cml_tech_evidence(env, spec->files[i], ".symbols", why,
                                                     sizeof why) : NULL;
        char *calls = theirs ? cml_tech_evidence(env, spec->files[i], ".calls", why,
                                                 sizeof why) : NULL;
        for (const char *p = mine; calls && !hit && *p; p += strcspn(p, "\n"),
             p += *p == '\n')
            if (called_name(p, name, sizeof name)) {
                hit = has_symbol(theirs, 'T', name) &&
                      cml_calls_reach(calls, name, re, reach, sizeof reach, &seen);
                if (hit)
                    snprintf(found, flen, "%.60s calls %.100s, defined in %.40s, where %.160s",
                             file, name, spec->files[i], reach);
            }
        free(calls);
        free(theirs);
    }
    return hit;
}

/* A function that file's object calls and re matches as a whole, which its text does not name:
 * code the file instantiates from a header (Thrust's device_malloc allocates with cudaMalloc,
 * its copy copies with cudaMemcpyAsync) is the file's own code. `mine`: the file's .symbols
 * evidence (NULL: none, as in the tests' hand-written folders). 1 with the name in found. */
static int object_calls(const char *mine, const regex_t *re, char *found, size_t flen)
{
    char name[200];
    int hit = 0;
    for (const char *p = mine; p && !hit && *p; p += strcspn(p, "\n"), p += *p == '\n')
        hit = called_name(p, name, sizeof name) && regexec(re, name, 0, NULL, 0) == 0;
    if (hit)
        snprintf(found, flen, "%s", name);
    return hit;
}

/* The first name in text (code with its literals blanked) that re matches: 1 with its line
 * (blanks squeezed, capped to len) in found and the line's number in *line_no; else 0. Names
 * are read as the compiler's tokens: whole (a helper named replaces_cudaMemcpy is not
 * cudaMemcpy), whatever the lines (a call split after its name is still seen), and never from
 * inside a number (0x1e5f, 4'000'000ull). */
static int find_name(const char *text, const regex_t *re, char *found, size_t len, int *line_no)
{
    static const char NAME[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
    const char *line = text;
    int no = 1;
    for (const char *p = text; *p;) {
        size_t n = strspn(p, NAME);
        if (*p == '\n') {
            line = ++p;
            no++;
        } else if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
            for (p++; *p && (strchr(NAME, *p) || *p == '.' || *p == '\'' ||
                             ((*p == '+' || *p == '-') && strchr("eEpP", p[-1]))); p++)
                ; /* a preprocessing number, digit separators and exponents included */
        } else if (n == 0) {
            p++;
        } else {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)n, p);
            if (regexec(re, name, 0, NULL, 0) == 0) {
                cml_tech_quote_line(line, strcspn(line, "\n"), found, len);
                *line_no = no;
                return 1;
            }
            p += n;
        }
    }
    return 0;
}

/* Contract in technique.h. forbid: no name in the student's file, as the compiler saw it,
 * matches the pattern as a whole: the preprocessed text's lines from that file (cml_own_text
 * above), so code under `#if 0` and comments never count and a call spelled with `##` does;
 * the file's object calls no function of such a name (a library template it instantiates);
 * and the file calls no function of another student file whose code reaches such a name.
 * Evidence without preprocessed text (the tests' hand-written folders) falls back to the
 * source with comments and literals blanked. */
void cml_tech_forbid(const cml_lab_spec *spec, const cml_task_spec *t, const cml_tech_spec *c,
                     const cml_technique_env *env, cml_tech_result *out)
{
    (void)t; /* the file is c->file */
    char found[160], why[300], handed_how[400], called[200];
    int line = 0;
    long *linenos = NULL;
    out->state = CML_TECH_NOT_CHECKED;
    char *ii = env->ev_dir ? cml_tech_evidence(env, c->file, ".ii", why, sizeof why) : NULL;
    char *src = ii ? cml_own_text(ii, c->file, &linenos)
                : env->ev_dir ? cml_tech_evidence(env, c->file, "", why, sizeof why) : NULL;
    free(ii);
    if (!src) {
        snprintf(out->detail, sizeof out->detail, "not checked (cannot read %.60s)", c->file);
        return;
    }
    if (!linenos)
        cml_blank_code(src, CML_BLANK_COMMENTS | CML_BLANK_LITERALS);
    char whole[sizeof c->pattern + 8];
    snprintf(whole, sizeof whole, "^(%s)$", c->pattern); /* the whole name, never a part */
    regex_t re;
    int hit = 0, handed = 0, calls = 0;
    char *mine = cml_tech_evidence(env, c->file, ".symbols", why, sizeof why);
    if (regcomp(&re, whole, REG_EXTENDED | REG_NOSUB) == 0) {
        hit = find_name(src, &re, found, 120, &line);
        calls = !hit && object_calls(mine, &re, called, sizeof called);
        handed = !hit && !calls &&
                 hands_off(spec, env, c->file, mine, &re, handed_how, sizeof handed_how);
        regfree(&re);
    }
    free(mine);
    if (hit && linenos)
        line = (int)linenos[line - 1];
    free(src);
    free(linenos);
    out->state = hit || calls || handed ? CML_TECH_FAILED : CML_TECH_PASSED;
    if (hit)
        snprintf(out->detail, sizeof out->detail, "%s line %d: %s", c->file, line, found);
    else if (calls)
        snprintf(out->detail, sizeof out->detail, "%s's object calls %.100s, which the file "
                 "does not name: a library's code it uses (Thrust's device_malloc and copy "
                 "allocate and copy) counts as its own", c->file, called);
    else if (handed)
        snprintf(out->detail, sizeof out->detail, "%.230s: the forbidden call is reached "
                 "all the same", handed_how);
    else
        snprintf(out->detail, sizeof out->detail, "%s has nothing matching %.150s", c->file,
                 c->pattern);
}
