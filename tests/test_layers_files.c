/* No cycle between the grader's FILES (issue 43, "No cycles"). The folder tests
 * (test_layers.c, test_layers_calls.c) see folders only; inside a folder, a helper left in the
 * file that first needed it made pairs like records.c <-> records_types.c, where neither file can
 * be read or moved without the other. Nodes: every .c and .h under grader/src, recursively.
 * Edges: a's directive `#include "x.h"` (not one in a comment) -> x.h; object a.o uses a global
 * symbol b.o defines (`nm -P` on build/obj/grader/src/.../a.o, as test_layers_calls.c) -> a.c
 * -> b.c. Each knot is named with its shortest cycle, every edge with its reason. Part of the
 * sheets suite; it reads build/obj, which `make check` builds first. No GPU. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_graph.h"
#include "helpers.h"
#include "suites.h"
#include "util.h"

/* Every .c and .h under grader/src/<rel> (rel "" for grader/src), recursively, as nodes. */
static void add_files(file_graph *g, const char *rel)
{
    char dir[CML_PATH], path[CML_PATH], sub[CML_PATH];
    ck_assert(cml_fmt(dir, sizeof dir, "%s/grader/src%s%s", test_root(), *rel ? "/" : "",
                      rel) == 0);
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        struct stat st;
        if (e->d_name[0] == '.' || cml_fmt(path, sizeof path, "%s/%s", dir, e->d_name) != 0 ||
            cml_fmt(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name) != 0 ||
            stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            add_files(g, sub);
        else if (n > 2 && (!strcmp(e->d_name + n - 2, ".c") || !strcmp(e->d_name + n - 2, ".h")))
            ck_assert_msg(file_node(g, sub) >= 0, "more than %d files", MAX_FILES);
    }
    closedir(d);
}

/* One object's symbols going into a table, for read_symbols. */
typedef struct {
    file_syms *t;
    int v;
} node_syms;

static void add_symbol(void *ctx, const char *name, char type)
{
    node_syms *ns = ctx;
    file_syms *t = ns->t;
    int defined = strchr("TDBRVW", type) != NULL, used = type == 'U';
    file_sym *s = strlen(name) >= sizeof t->def[0].name ? NULL
                  : defined && t->ndef < MAX_FILE_SYMS ? &t->def[t->ndef++]
                  : used && t->nuse < MAX_FILE_SYMS ? &t->use[t->nuse++] : NULL;
    if (s)
        snprintf(s->name, sizeof s->name, "%s", name), s->file = ns->v;
}

/* The global symbols the object of node v (a .c) defines and uses, into t; 0 when it has no
 * object (a source make has not built). */
static int read_symbols(file_syms *t, const file_graph *g, int v)
{
    char obj[CML_PATH];
    size_t n = strlen(g->name[v]);
    if (cml_fmt(obj, sizeof obj, "%s/build/obj/grader/src/%.*so", test_root(), (int)(n - 1),
                g->name[v]) != 0 || access(obj, R_OK) != 0)
        return 0;
    node_syms ns = { t, v };
    each_symbol(obj, add_symbol, &ns);
    return 1;
}

START_TEST(grader_files_no_cycle)
{
    static file_graph g;
    static file_syms t;
    static char why[16384];
    char path[CML_PATH];
    memset(&g, 0, sizeof g), memset(&t, 0, sizeof t), why[0] = 0;
    add_files(&g, "");
    int objects = 0, includes = 0, files = g.n;
    for (int v = 0; v < files; v++) {
        char *text = cml_fmt(path, sizeof path, "%s/grader/src/%s", test_root(), g.name[v]) == 0
                     ? cml_read_text(path, 1 << 20, NULL) : NULL;
        ck_assert_msg(text != NULL, "cannot read %s", path);
        includes += file_include_edges(&g, v, text);
        free(text);
        size_t n = strlen(g.name[v]);
        if (g.name[v][n - 1] == 'c')
            objects += read_symbols(&t, &g, v);
    }
    ck_assert_msg(files >= 120 && includes > 300 && objects >= 80 && t.ndef > 300 &&
                  t.ndef < MAX_FILE_SYMS && t.nuse < MAX_FILE_SYMS,
                  "%d files, %d includes, %d objects, %d symbols defined, %d used: is the grader "
                  "built (make all)?", files, includes, objects, t.ndef, t.nuse);
    file_call_edges(&g, &t);
    int knots = file_cycles(&g, why, sizeof why);
    ck_assert_msg(knots == 0, "%d knot(s) of files that call or include each other:\n%s", knots,
                  why);
}
END_TEST

/* The call edges and the knot finder: records.c -> records_types.c -> records_claims.c is no
 * cycle, a use back from records_claims.c into records.c makes the three one knot, named edge by
 * edge; a use defined in the same file or nowhere makes no edge. */
START_TEST(a_three_file_call_cycle_is_caught)
{
    static file_graph g;
    static file_syms t;
    char why[2048] = "";
    memset(&g, 0, sizeof g), memset(&t, 0, sizeof t);
    int r = file_node(&g, "3_run/records.c"), ty = file_node(&g, "3_run/records_types.c"),
        c = file_node(&g, "3_run/records_claims.c");
    const file_sym def[] = { { "cml_records_parse", r }, { "cml_record_kind", ty },
                             { "cml_claim_check", c } };
    const file_sym use[] = { { "cml_record_kind", r }, { "cml_claim_check", ty },
                             { "cml_records_parse", r }, { "printf", c } };
    memcpy(t.def, def, sizeof def), t.ndef = 3;
    memcpy(t.use, use, sizeof use), t.nuse = 4;
    file_call_edges(&g, &t);
    ck_assert_int_eq(g.nedges, 2);
    ck_assert_int_eq(file_cycles(&g, why, sizeof why), 0);
    t.use[t.nuse++] = (file_sym){ "cml_records_parse", c };
    file_call_edges(&g, &t);
    ck_assert_msg(file_cycles(&g, why, sizeof why) == 1 && strstr(why, "knot 1, 3 files") &&
                  strstr(why, "3_run/records_claims.c -> 3_run/records.c (uses "
                                  "cml_records_parse)") &&
                  strstr(why, "3_run/records.c -> 3_run/records_types.c (uses cml_record_kind"),
                  "%s", why);
}
END_TEST

/* The include edges: two headers that include each other are a knot; an include written in a
 * comment (a block over several lines, or after //) is no edge, an indented `# include` is one,
 * and a header found in the includer's own folder wins over one of the same name elsewhere. */
START_TEST(a_two_header_include_cycle_is_caught)
{
    static file_graph g;
    char why[1024] = "";
    memset(&g, 0, sizeof g);
    int a = file_node(&g, "8_report/report.h"), b = file_node(&g, "8_report/json_write.h"),
        other = file_node(&g, "base/report.h"), c = file_node(&g, "8_report/report_term.c");
    ck_assert_int_eq(file_include_edges(&g, a, "/* once:\n#include \"json_write.h\"\n*/\n"
                                               "// #include \"json_write.h\"\n"
                                               "#include \"cml_rand.h\"\n#include <stdio.h>\n"
                                               "const char *s = \"/*\";\n"),
                     0);
    ck_assert_int_eq(file_include_edges(&g, b, "  #  include \"report.h\" /* x */\n"), 1);
    ck_assert_msg(g.edge[b][a] && !g.edge[b][other], "the folder's own report.h not chosen");
    ck_assert_int_eq(file_cycles(&g, why, sizeof why), 0);
    file_include_edges(&g, c, "#include \"report.h\"\n");
    ck_assert_int_eq(file_include_edges(&g, a, "#include \"json_write.h\"\n"), 1);
    ck_assert_msg(file_cycles(&g, why, sizeof why) == 1 &&
                  strstr(why, "knot 1, 2 files: 8_report/report.h 8_report/json_write.h") &&
                  strstr(why, "8_report/report.h -> 8_report/json_write.h (includes "
                                  "\"json_write.h\")") &&
                  strstr(why, "8_report/json_write.h -> 8_report/report.h (includes "
                                  "\"report.h\")") && !strstr(why, "report_term"),
                  "%s", why);
}
END_TEST

/* Contract in suites.h. */
void layers_files_add(Suite *s)
{
    TCase *tc = tcase_create("layers_files");
    tcase_set_timeout(tc, 60); /* nm over every object, as layers_calls */
    tcase_add_test(tc, grader_files_no_cycle);
    tcase_add_test(tc, a_three_file_call_cycle_is_caught);
    tcase_add_test(tc, a_two_header_include_cycle_is_caught);
    suite_add_tcase(s, tc);
}
