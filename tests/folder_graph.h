/* A graph of the grader's folders (grader/src/ and each folder in it) and the cycle finder the
 * layer tests share: tests/test_layers.c (includes), tests/test_layers_calls.c (calls). */
#ifndef CML_FOLDER_GRAPH_H
#define CML_FOLDER_GRAPH_H

#include <stddef.h>

#define MAX_FOLDERS 24

typedef struct {
    int n;
    char name[MAX_FOLDERS][32];
    unsigned char edge[MAX_FOLDERS][MAX_FOLDERS];
    char example[MAX_FOLDERS][MAX_FOLDERS][96]; /* the first reason for the edge */
} folder_graph;

/* g emptied, then "." (grader/src itself) and every folder of grader/src, as folder 0..n-1. */
void grader_folders(folder_graph *g);
/* The edge a -> b, its reason printf-style (kept when the edge is new). */
void add_edge(folder_graph *g, int a, int b, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* 1 when g has a cycle, each of its edges and reasons appended to why, one per line. */
int find_cycle(const folder_graph *g, char *why, size_t len);

#endif /* CML_FOLDER_GRAPH_H */
