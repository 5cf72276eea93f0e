/* The grader's lowest folder stays the lowest: every `#include "..."` of grader/src/base/ names
 * a header of base/ itself or of common/ (the harness's shared headers, cml_rand.h), never one
 * of the pipeline's folders, so base/ can be read, built and tested alone. (A status table in
 * 7_judge/ that base/cml.h included once made base, 5_verify and 7_score one include cycle.)
 * And no two folders of grader/src include each other, directly or around a loop, and no numbered
 * folder includes a later one's header. Added to the sheets suite. No GPU. */
#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folder_graph.h"
#include "helpers.h"
#include "suites.h"
#include "util.h"

/* Whether `name` is a file of folder `dir` under root. */
static int in_folder(const char *root, const char *dir, const char *name)
{
    char path[CML_PATH];
    FILE *f = cml_fmt(path, sizeof path, "%s/%s/%s", root, dir, name) == 0 ? fopen(path, "r")
                                                                           : NULL;
    if (f)
        fclose(f);
    return f != NULL;
}

/* The quoted includes of `text` (from file `file`) that are neither base/'s nor common/'s,
 * appended to why; how many. */
static int foreign_includes(const char *root, const char *file, const char *text, char *why,
                            size_t len)
{
    int bad = 0;
    for (const char *p = strstr(text, "#include \""); p; p = strstr(p + 1, "#include \"")) {
        char name[200];
        const char *start = p + 10, *end = strchr(start, '"');
        if (!end || end - start >= (long)sizeof name)
            continue;
        snprintf(name, sizeof name, "%.*s", (int)(end - start), start);
        if (in_folder(root, "grader/src/base", name) || in_folder(root, "common", name))
            continue;
        size_t used = strlen(why);
        snprintf(why + used, len - used, "%s includes \"%s\"\n", file, name);
        bad++;
    }
    return bad;
}

/* fn(ctx, name, text) for every .c and .h of the folder dir (an absolute path); how many. */
static int each_source(const char *dir, void (*fn)(void *, const char *, const char *),
                       void *ctx)
{
    char path[CML_PATH];
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    int files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n < 3 || (strcmp(e->d_name + n - 2, ".c") && strcmp(e->d_name + n - 2, ".h")))
            continue;
        char *text = cml_fmt(path, sizeof path, "%s/%s", dir, e->d_name) == 0
                     ? cml_read_text(path, 1 << 20, NULL) : NULL;
        ck_assert_msg(text != NULL, "cannot read %s", path);
        fn(ctx, e->d_name, text);
        free(text);
        files++;
    }
    closedir(d);
    return files;
}

typedef struct {
    int bad;
    char why[4096];
} foreign;

static void count_foreign(void *ctx, const char *name, const char *text)
{
    foreign *f = ctx;
    f->bad += foreign_includes(test_root(), name, text, f->why, sizeof f->why);
}

START_TEST(base_includes_only_base_and_common)
{
    char dir[CML_PATH];
    static foreign f;
    memset(&f, 0, sizeof f);
    snprintf(dir, sizeof dir, "%s/grader/src/base", test_root());
    int files = each_source(dir, count_foreign, &f);
    ck_assert_msg(files >= 8 && f.bad == 0, "%d file(s) of base/, %d foreign include(s):\n%s",
                  files, f.bad, f.why);
}
END_TEST

/* The check itself: an include of a pipeline folder's header is caught, base's and common's
 * are not. */
START_TEST(an_include_of_a_pipeline_header_is_caught)
{
    char why[512] = "";
    int bad = foreign_includes(test_root(), "cml.h", "#include \"status.h\"\n#include "
                               "\"cml_rand.h\"\n#include <stdio.h>\n#include \"speed.h\"\n",
                               why, sizeof why);
    ck_assert_msg(bad == 1 && strstr(why, "\"speed.h\""), "%d: %s", bad, why);
}
END_TEST

/* ---- no include cycle between the grader's folders ----
 * An edge a -> b: a file of folder a includes (a line starting `#include "`, so a comment that
 * quotes one does not count) a header that sits in folder b. A cycle means no folder of it can be
 * read or tested without the others; the runner and the sandbox once sat in 4_run, included by
 * 1_stage to 3_build while 4_run included theirs, and made 0_spec to 4_run one cycle. */
/* The edges of folder a's file `file` (its text). */
static void file_edges(folder_graph *g, int a, const char *file, const char *text)
{
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
        const char *p = line + strspn(line, " \t");
        if (strncmp(p, "#include \"", 10) != 0)
            continue;
        char header[200], dir[CML_PATH];
        const char *end = strchr(p + 10, '"');
        if (!end || end - (p + 10) >= (long)sizeof header)
            continue;
        snprintf(header, sizeof header, "%.*s", (int)(end - (p + 10)), p + 10);
        for (int b = 0; b < g->n; b++) {
            if (b != a && cml_fmt(dir, sizeof dir, "grader/src/%s", g->name[b]) == 0 &&
                in_folder(test_root(), dir, header))
                add_edge(g, a, b, "%.30s includes \"%.30s\"", file, header);
        }
    }
}

typedef struct {
    folder_graph *g;
    int a;
} folder_file;

static void add_file_edges(void *ctx, const char *name, const char *text)
{
    folder_file *f = ctx;
    file_edges(f->g, f->a, name, text);
}

/* g: the grader's folders and their include edges. */
static void include_graph(folder_graph *g)
{
    char src[CML_PATH], dir[CML_PATH];
    grader_folders(g);
    snprintf(src, sizeof src, "%s/grader/src", test_root());
    int files = 0;
    for (int a = 0; a < g->n; a++) {
        folder_file ff = { g, a };
        if (cml_fmt(dir, sizeof dir, "%s/%s", src, g->name[a]) == 0)
            files += each_source(dir, add_file_edges, &ff);
    }
    ck_assert_msg(g->n >= 12 && files >= 100, "%d folders, %d files", g->n, files);
}

START_TEST(grader_folders_include_no_cycle)
{
    static folder_graph g;
    char why[4096] = "";
    include_graph(&g);
    ck_assert_msg(!find_cycle(&g, why, sizeof why), "an include cycle between folders:\n%s", why);
}
END_TEST

/* A folder's place in the order a submission travels (docs/ARCHITECTURE.md): base lowest, then
 * the sandbox, the numbered steps by their number, the class tools above them and main.c
 * (grader/src itself, ".") on top; -1 for a folder with no place, which must be given one. */
static int rank(const char *folder)
{
    if (isdigit((unsigned char)folder[0]) && folder[1] == '_')
        return 2 + folder[0] - '0';
    static const char *const NAMED[] = { "base", "sandbox", "class", "." };
    static const int RANK[] = { 0, 1, 12, 13 };
    for (size_t i = 0; i < sizeof NAMED / sizeof NAMED[0]; i++)
        if (strcmp(folder, NAMED[i]) == 0)
            return RANK[i];
    return -1;
}

/* The edges that go against the order ("3_run -> 4_verify (...)": a folder includes a later
 * folder's header), and every folder without a place, one per line into why; how many. */
static int upward_edges(const folder_graph *g, char *why, size_t len)
{
    int n = 0;
    for (int a = 0; a < g->n; a++)
        if (rank(g->name[a]) < 0) {
            size_t used = strlen(why);
            snprintf(why + used, len - used, "%s has no place in the order (test_layers.c)\n",
                     g->name[a]);
            n++;
        }
    for (int a = 0; a < g->n; a++)
        for (int b = 0; b < g->n; b++)
            if (g->edge[a][b] && rank(g->name[b]) > rank(g->name[a])) {
                size_t used = strlen(why);
                snprintf(why + used, len - used, "%s -> %s (%s)\n", g->name[a], g->name[b],
                         g->example[a][b]);
                n++;
            }
    return n;
}

/* The folders' order is the order a submission goes through them: a stage may read what an
 * earlier one defines, never a later one's, and base and the sandbox read no stage. (0_spec once
 * asked 5_verify for a case's output size and 2_static for the link rules' parser; both now live
 * in 0_spec.) */
START_TEST(folders_include_no_later_folder)
{
    static folder_graph g;
    char why[4096] = "";
    include_graph(&g);
    ck_assert_msg(upward_edges(&g, why, sizeof why) == 0, "includes against the order:\n%s", why);
}
END_TEST

/* g emptied to three folders named a, b and c (0, 1, 2), for the checkers' own tests. */
static void three_folders(folder_graph *g, const char *a, const char *b, const char *c)
{
    memset(g, 0, sizeof *g);
    g->n = 3;
    snprintf(g->name[0], sizeof g->name[0], "%s", a);
    snprintf(g->name[1], sizeof g->name[1], "%s", b);
    snprintf(g->name[2], sizeof g->name[2], "%s", c);
}

/* The order check itself: 0_spec -> 5_verify is caught and named, 5_verify -> 0_spec and an
 * edge into an unnumbered folder are not. */
START_TEST(an_include_against_the_order_is_caught)
{
    static folder_graph g;
    char why[512] = "";
    three_folders(&g, "0_spec", "5_verify", "sandbox");
    add_edge(&g, 1, 0, "%s includes \"%s\"", "verify.c", "checks.h");
    add_edge(&g, 0, 2, "%s includes \"%s\"", "spec.c", "run.h");
    ck_assert_int_eq(upward_edges(&g, why, sizeof why), 0);
    add_edge(&g, 0, 1, "%s includes \"%s\"", "spec_draw.c", "verify.h");
    ck_assert_msg(upward_edges(&g, why, sizeof why) == 1 &&
                  strstr(why, "0_spec -> 5_verify (spec_draw.c includes \"verify.h\")"), "%s",
                  why);
    three_folders(&g, "sandbox", "class", "pipeline"); /* the sandbox reads no step; class may */
    add_edge(&g, 1, 0, "%s includes \"%s\"", "batch.c", "run.h");
    why[0] = '\0';
    ck_assert_msg(upward_edges(&g, why, sizeof why) == 1 && strstr(why, "pipeline has no place"),
                  "%s", why);
    add_edge(&g, 0, 1, "%s includes \"%s\"", "run.c", "batch.h");
    ck_assert_msg(upward_edges(&g, why, sizeof why) == 2 && strstr(why, "sandbox -> class"), "%s",
                  why);
}
END_TEST

/* The cycle finder itself: a -> b -> c -> a is found and named edge by edge; a -> b -> c, and
 * an include written in a comment, are not cycles. */
START_TEST(an_include_cycle_is_caught)
{
    static folder_graph g;
    char why[1024] = "";
    three_folders(&g, "1_stage", "4_run", "sandbox");
    add_edge(&g, 0, 1, "%s includes \"%s\"", "unpack.c", "run.h");
    add_edge(&g, 1, 2, "%s includes \"%s\"", "probe.c", "sandbox.h");
    ck_assert_int_eq(find_cycle(&g, why, sizeof why), 0);
    add_edge(&g, 2, 0, "%s includes \"%s\"", "sandbox_caps.c", "stage.h");
    ck_assert_msg(find_cycle(&g, why, sizeof why) && strstr(why, "sandbox -> 1_stage "
                  "(sandbox_caps.c includes \"stage.h\")") && strstr(why, "1_stage -> 4_run"),
                  "%s", why);
    three_folders(&g, "base", "7_score", "sandbox");
    file_edges(&g, 0, "cml.h", "/* once: #include \"speed.h\" */\n  #include \"sandbox.h\"\n");
    ck_assert_msg(!g.edge[0][1] && g.edge[0][2], "the comment's include counted, or the "
                  "indented one missed");
}
END_TEST

/* Contract in suites.h. */
void layers_add(Suite *s)
{
    TCase *tc = tcase_create("layers");
    tcase_add_test(tc, base_includes_only_base_and_common);
    tcase_add_test(tc, an_include_of_a_pipeline_header_is_caught);
    tcase_add_test(tc, grader_folders_include_no_cycle);
    tcase_add_test(tc, an_include_cycle_is_caught);
    tcase_add_test(tc, folders_include_no_later_folder);
    tcase_add_test(tc, an_include_against_the_order_is_caught);
    suite_add_tcase(s, tc);
}
