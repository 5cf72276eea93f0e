/* The file graph of tests/test_layers_files.c (file_graph.h). */
#include "file_graph.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Contract in file_graph.h. */
int file_node(file_graph *g, const char *name)
{
    for (int v = 0; v < g->n; v++)
        if (strcmp(g->name[v], name) == 0)
            return v;
    if (g->n == MAX_FILES || strlen(name) >= sizeof g->name[0])
        return -1;
    snprintf(g->name[g->n], sizeof g->name[0], "%s", name);
    return g->n++;
}

/* Contract in file_graph.h. */
void file_edge_add(file_graph *g, int a, int b, const char *fmt, ...)
{
    if (a < 0 || b < 0 || a == b)
        return;
    if (g->edge[a][b]) {
        g->edges[g->edge[a][b] - 1].more++;
        return;
    }
    if (g->nedges == MAX_FILE_EDGES)
        return;
    file_edge *e = &g->edges[g->nedges++];
    e->a = a, e->b = b, e->more = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->why, sizeof e->why, fmt, ap);
    va_end(ap);
    g->edge[a][b] = (short)g->nedges;
}

/* Whether a block comment is open at the end of the line [p, end) when `open` says whether one
 * was at its start. Quoted text is skipped, so a comment opener inside a string opens nothing. */
static int comment_open_after(const char *p, const char *end, int open)
{
    char quote = 0;
    for (; p < end; p++) {
        if (open) {
            if (p[0] == '*' && p + 1 < end && p[1] == '/')
                open = 0, p++;
        } else if (quote) {
            if (*p == '\\')
                p++;
            else if (*p == quote)
                quote = 0;
        } else if (*p == '"' || *p == '\'') {
            quote = *p;
        } else if (p[0] == '/' && p + 1 < end && p[1] == '/') {
            break;
        } else if (p[0] == '/' && p + 1 < end && p[1] == '*') {
            open = 1, p++;
        }
    }
    return open;
}

/* The header a directive line names (`# include "x.h"`, spaces allowed around the #) into
 * header; 0 when the line is no quoted include. */
static int directive_header(const char *p, const char *end, char *header, size_t len)
{
    p += strspn(p, " \t");
    if (p >= end || *p != '#')
        return 0;
    p += 1 + strspn(p + 1, " \t");
    if (end - p < 8 || strncmp(p, "include", 7) != 0)
        return 0;
    p += 7 + strspn(p + 7, " \t");
    const char *q = p < end && *p == '"' ? memchr(p + 1, '"', (size_t)(end - p - 1)) : NULL;
    if (!q || (size_t)(q - p - 1) >= len)
        return 0;
    snprintf(header, len, "%.*s", (int)(q - p - 1), p + 1);
    return 1;
}

/* The node of `header` included by node a: a's folder first, then any folder; -1 when none. */
static int header_node(const file_graph *g, int a, const char *header)
{
    const char *slash = strrchr(g->name[a], '/');
    int folder = slash ? (int)(slash - g->name[a]) + 1 : 0, any = -1;
    for (int v = 0; v < g->n; v++) {
        const char *base = strrchr(g->name[v], '/');
        base = base ? base + 1 : g->name[v];
        if (strcmp(base, header) != 0 && strcmp(g->name[v], header) != 0)
            continue;
        if ((int)(base - g->name[v]) == folder && strncmp(g->name[v], g->name[a], folder) == 0)
            return v;
        if (any < 0)
            any = v;
    }
    return any;
}

/* Contract in file_graph.h. */
int file_include_edges(file_graph *g, int a, const char *text)
{
    int open = 0, n = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        end = end ? end : line + strlen(line);
        char header[200];
        if (!open && directive_header(line, end, header, sizeof header)) {
            int b = header_node(g, a, header);
            if (b >= 0 && b != a)
                file_edge_add(g, a, b, "includes \"%s\"", header), n++;
        }
        open = comment_open_after(line, end, open);
        line = *end ? end + 1 : end;
    }
    return n;
}

/* Contract in file_graph.h. */
void file_call_edges(file_graph *g, const file_syms *t)
{
    for (int u = 0; u < t->nuse; u++)
        for (int d = 0; d < t->ndef; d++)
            if (t->def[d].file != t->use[u].file &&
                strcmp(t->def[d].name, t->use[u].name) == 0)
                file_edge_add(g, t->use[u].file, t->def[d].file, "uses %s", t->use[u].name);
}

/* Tarjan's strongly connected sets: comp[v] the set of v, numbered from 0; how many sets. */
typedef struct {
    const file_graph *g;
    int index[MAX_FILES], low[MAX_FILES], on[MAX_FILES], stack[MAX_FILES], comp[MAX_FILES];
    int next, top, ncomp;
} tarjan;

static void strong(tarjan *t, int v)
{
    t->index[v] = t->low[v] = ++t->next;
    t->stack[t->top++] = v, t->on[v] = 1;
    for (int w = 0; w < t->g->n; w++) {
        if (!t->g->edge[v][w])
            continue;
        if (!t->index[w]) {
            strong(t, w);
            if (t->low[w] < t->low[v])
                t->low[v] = t->low[w];
        } else if (t->on[w] && t->index[w] < t->low[v]) {
            t->low[v] = t->index[w];
        }
    }
    if (t->low[v] == t->index[v]) {
        int w;
        do {
            w = t->stack[--t->top], t->on[w] = 0, t->comp[w] = t->ncomp;
        } while (w != v);
        t->ncomp++;
    }
}

/* Appended to why, printf-style. */
static void say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t len, const char *fmt, ...)
{
    size_t used = strlen(why);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why + used, len - used, fmt, ap);
    va_end(ap);
}

/* The shortest cycle through s inside its own set comp[s] (breadth first from s back to s), into why. */
static void shortest_cycle(const file_graph *g, const int *comp, int s, char *why, size_t len)
{
    int from[MAX_FILES], queue[MAX_FILES], head = 0, tail = 0, last = -1;
    for (int v = 0; v < g->n; v++)
        from[v] = -1;
    queue[tail++] = s;
    while (head < tail && last < 0) {
        int v = queue[head++];
        for (int w = 0; w < g->n && last < 0; w++)
            if (g->edge[v][w] && comp[w] == comp[s]) {
                if (w == s)
                    last = v;
                else if (from[w] < 0)
                    from[w] = v, queue[tail++] = w;
            }
    }
    int path[MAX_FILES], n = 0; /* s -> ... -> last, then last -> s */
    for (int v = last; v != s && v >= 0; v = from[v])
        path[n++] = v;
    path[n++] = s;
    for (int k = n - 1; k >= 0; k--) {
        int a = path[k], b = k ? path[k - 1] : s;
        const file_edge *e = &g->edges[g->edge[a][b] - 1];
        say(why, len, "  %s -> %s (%s", g->name[a], g->name[b], e->why);
        if (e->more)
            say(why, len, ", and %d more", e->more);
        say(why, len, ")\n");
    }
}

/* Contract in file_graph.h. */
int file_cycles(const file_graph *g, char *why, size_t len)
{
    static tarjan t;
    memset(&t, 0, sizeof t);
    t.g = g;
    for (int v = 0; v < g->n; v++)
        if (!t.index[v])
            strong(&t, v);
    int knots = 0;
    for (int c = 0; c < t.ncomp; c++) {
        int first = -1, size = 0;
        for (int v = 0; v < g->n; v++)
            if (t.comp[v] == c)
                first = first < 0 ? v : first, size++;
        if (size < 2)
            continue;
        say(why, len, "knot %d, %d files:", ++knots, size);
        for (int v = 0; v < g->n; v++)
            if (t.comp[v] == c)
                say(why, len, " %s", g->name[v]);
        say(why, len, "\n");
        shortest_cycle(g, t.comp, first, why, len);
    }
    return knots;
}
