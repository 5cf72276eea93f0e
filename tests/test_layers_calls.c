/* No call cycle between the grader's folders: an edge a -> b when an object of folder a refers
 * to a symbol an object of folder b defines (`nm -P`: undefined in a, defined, global, in b), over
 * the objects make built for sources that still exist. An include graph without cycles can
 * still hide one: technique.h (2_static) declares what 4_run defines, and 2_static's technique
 * verdict once called 4_run's ncu runs while 4_run called 3_build's nvcc and 3_build called
 * 2_static, so 0_spec, 2_static, 3_build and 4_run were one call cycle. Part of the sheets
 * suite; it reads build/obj, which `make check` builds first. No GPU. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "folder_graph.h"
#include "helpers.h"
#include "suites.h"
#include "util.h"

#define MAX_SYMS 8192

typedef struct {
    char name[96];
    char file[40];
    int folder;
} sym;

typedef struct {
    sym def[MAX_SYMS], use[MAX_SYMS];
    int ndef, nuse;
} sym_table;

/* One object's symbols going into a table, for read_symbols. */
typedef struct {
    sym_table *t;
    const char *file;
    int a;
} object_syms;

static void add_symbol(void *ctx, const char *name, char type)
{
    object_syms *os = ctx;
    sym_table *t = os->t;
    int defined = strchr("TDBRV", type) != NULL, used = type == 'U';
    sym *s = strlen(name) >= sizeof t->def[0].name ? NULL
             : defined && t->ndef < MAX_SYMS ? &t->def[t->ndef++]
             : used && t->nuse < MAX_SYMS ? &t->use[t->nuse++] : NULL;
    if (s)
        snprintf(s->name, sizeof s->name, "%s", name),
            snprintf(s->file, sizeof s->file, "%.39s", os->file), s->folder = os->a;
}

/* The global symbols `obj` (of folder a, source file `file`) defines and uses, into t. */
static void read_symbols(sym_table *t, const char *obj, const char *file, int a)
{
    object_syms os = { t, file, a };
    each_symbol(obj, add_symbol, &os);
}

/* The edges of every use that another folder's object defines. */
static void call_edges(folder_graph *g, const sym_table *t)
{
    for (int u = 0; u < t->nuse; u++)
        for (int d = 0; d < t->ndef; d++)
            if (t->def[d].folder != t->use[u].folder &&
                strcmp(t->def[d].name, t->use[u].name) == 0) {
                add_edge(g, t->use[u].folder, t->def[d].folder, "%.30s uses %.40s of %.20s",
                         t->use[u].file, t->use[u].name, t->def[d].file);
                break;
            }
}

START_TEST(grader_folders_call_no_cycle)
{
    static folder_graph g;
    static sym_table t;
    char dir[CML_PATH], obj[CML_PATH], why[4096] = "";
    memset(&t, 0, sizeof t);
    grader_folders(&g);
    int objects = 0;
    for (int a = 0; a < g.n; a++) {
        if (cml_fmt(dir, sizeof dir, "%s/grader/src/%s", test_root(), g.name[a]) != 0)
            continue;
        DIR *d = opendir(dir);
        ck_assert_msg(d != NULL, "cannot open %s", dir);
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            size_t n = strlen(e->d_name);
            if (n < 3 || strcmp(e->d_name + n - 2, ".c") != 0 ||
                cml_fmt(obj, sizeof obj, "%s/build/obj/grader/src/%s/%.*so", test_root(),
                        g.name[a], (int)(n - 1), e->d_name) != 0 || access(obj, R_OK) != 0)
                continue;
            read_symbols(&t, obj, e->d_name, a);
            objects++;
        }
        closedir(d);
    }
    ck_assert_msg(objects >= 80 && t.ndef > 300 && t.ndef < MAX_SYMS && t.nuse < MAX_SYMS,
                  "%d objects, %d symbols defined, %d used: is the grader built (make all)?",
                  objects, t.ndef, t.nuse);
    call_edges(&g, &t);
    ck_assert_msg(!find_cycle(&g, why, sizeof why), "a call cycle between folders:\n%s", why);
}
END_TEST

/* The edges themselves: 2_static's verdict using 4_run's ncu run, 4_run's probe using 3_build's
 * nvcc, 3_build using 2_static's evidence make the cycle found; a use defined in its own folder
 * or nowhere makes no edge. */
START_TEST(a_call_cycle_is_caught)
{
    static folder_graph g;
    static sym_table t;
    char why[1024] = "";
    memset(&g, 0, sizeof g);
    memset(&t, 0, sizeof t);
    g.n = 3;
    snprintf(g.name[0], 32, "2_static");
    snprintf(g.name[1], 32, "3_build");
    snprintf(g.name[2], 32, "4_run");
    const sym def[] = { { "cml_tech_ncu", "technique_run.c", 2 },
                        { "cml_nvcc", "nvcc.c", 1 },
                        { "cml_evidence_collect", "evidence.c", 0 },
                        { "cml_tech_code", "technique.c", 0 } };
    const sym use[] = { { "cml_tech_ncu", "technique.c", 0 },
                        { "cml_evidence_collect", "build.c", 1 },
                        { "cml_tech_code", "technique.c", 0 },
                        { "printf", "probe.c", 2 } };
    memcpy(t.def, def, sizeof def), t.ndef = 4;
    memcpy(t.use, use, sizeof use), t.nuse = 4;
    call_edges(&g, &t);
    ck_assert_int_eq(find_cycle(&g, why, sizeof why), 0);
    t.use[t.nuse++] = (sym){ "cml_nvcc", "probe.c", 2 };
    call_edges(&g, &t);
    ck_assert_msg(find_cycle(&g, why, sizeof why) &&
                  strstr(why, "4_run -> 3_build (probe.c uses cml_nvcc of nvcc.c)") &&
                  strstr(why, "2_static -> 4_run (technique.c uses cml_tech_ncu"), "%s", why);
}
END_TEST

/* Contract in suites.h. */
void layers_calls_add(Suite *s)
{
    TCase *tc = tcase_create("layers_calls");
    tcase_set_timeout(tc, 60); /* nm over every object: 2.4 s alone, past Check's 4 s under load */
    tcase_add_test(tc, grader_folders_call_no_cycle);
    tcase_add_test(tc, a_call_cycle_is_caught);
    suite_add_tcase(s, tc);
}
