/* The folder graph of the layer tests (folder_graph.h). */
#include "folder_graph.h"
#include "helpers.h"

#include <check.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Contract in folder_graph.h. */
void grader_folders(folder_graph *g)
{
    char src[4096];
    memset(g, 0, sizeof *g);
    snprintf(src, sizeof src, "%s/grader/src", test_root());
    snprintf(g->name[g->n++], sizeof g->name[0], ".");
    DIR *d = opendir(src);
    ck_assert_msg(d != NULL, "cannot open %s", src);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_type == DT_DIR && e->d_name[0] != '.' && g->n < MAX_FOLDERS)
            snprintf(g->name[g->n++], sizeof g->name[0], "%.31s", e->d_name);
    closedir(d);
}

/* Contract in folder_graph.h. */
void add_edge(folder_graph *g, int a, int b, const char *fmt, ...)
{
    if (!g->edge[a][b]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g->example[a][b], sizeof g->example[a][b], fmt, ap);
        va_end(ap);
    }
    g->edge[a][b] = 1;
}

/* DFS from v; 1 when a folder on the current path is reached again, the path in why. */
static int cycle_from(const folder_graph *g, int v, int *state, int *path, int depth, char *why,
                      size_t len)
{
    state[v] = 1, path[depth] = v;
    for (int w = 0; w < g->n; w++) {
        if (!g->edge[v][w] || state[w] == 2)
            continue;
        if (state[w] == 1) { /* back edge: the cycle is path[from..depth] then w */
            int from = 0;
            while (path[from] != w)
                from++;
            for (int k = from; k <= depth; k++) {
                int a = path[k], b = k < depth ? path[k + 1] : w;
                size_t used = strlen(why);
                snprintf(why + used, len - used, "%s -> %s (%s)\n", g->name[a], g->name[b],
                         g->example[a][b]);
            }
            return 1;
        }
        if (cycle_from(g, w, state, path, depth + 1, why, len))
            return 1;
    }
    state[v] = 2;
    return 0;
}

/* Contract in folder_graph.h. */
int find_cycle(const folder_graph *g, char *why, size_t len)
{
    int state[MAX_FOLDERS] = { 0 }, path[MAX_FOLDERS];
    for (int v = 0; v < g->n; v++)
        if (state[v] == 0 && cycle_from(g, v, state, path, 0, why, len))
            return 1;
    return 0;
}
