/* A graph of the grader's source files (every .c and .h under grader/src) and the knot finder of
 * tests/test_layers_files.c. A folder graph (folder_graph.h) holds 24 folders in square tables;
 * the files are ~160 today and the edges few per file, so the edges are a list, the table only
 * points into it. */
#ifndef CML_FILE_GRAPH_H
#define CML_FILE_GRAPH_H

#include <stddef.h>

#define MAX_FILES 320
#define MAX_FILE_EDGES 4096
#define MAX_FILE_SYMS 8192

typedef struct {
    int a, b;
    int more;       /* reasons after the first */
    char why[112];  /* the first reason: uses cml_x, includes "x.h" */
} file_edge;

typedef struct {
    int n, nedges;
    char name[MAX_FILES][64]; /* the path under grader/src: "3_run/records.c", "main.c" */
    short edge[MAX_FILES][MAX_FILES]; /* 1 + the index in edges of a -> b, 0 when none */
    file_edge edges[MAX_FILE_EDGES];
} file_graph;

/* A global symbol an object defines or uses, and the node of the object's source file. */
typedef struct {
    char name[96];
    int file;
} file_sym;

typedef struct {
    file_sym def[MAX_FILE_SYMS], use[MAX_FILE_SYMS];
    int ndef, nuse;
} file_syms;

/* The node named `name` (a path under grader/src), added when new; -1 when g is full. */
int file_node(file_graph *g, const char *name);
/* The edge a -> b with its reason printf-style (the first reason kept, later ones counted). */
void file_edge_add(file_graph *g, int a, int b, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The include edges of node a, whose text is `text`: each directive line `#include "x.h"`
 * outside a comment, to the node of x.h in a's own folder, else in any folder (the grader is
 * built with -I of every folder); a header that is no node (common/'s) makes none. How many. */
int file_include_edges(file_graph *g, int a, const char *text);
/* The call edges: a use of node a that node b (b != a) defines makes a -> b "uses name". */
void file_call_edges(file_graph *g, const file_syms *t);
/* How many knots g has (strongly connected sets of two files or more); for each, appended to
 * why: its files and its shortest cycle through its first file, one edge and reason a line. */
int file_cycles(const file_graph *g, char *why, size_t len);

#endif /* CML_FILE_GRAPH_H */
