/* The command line's help: one table (help.c) holds every command's one-line summary and its
 * full --help text, so the overview, `cml-grade CMD --help` and the docs never disagree. */
#ifndef CML_HELP_H
#define CML_HELP_H

#include <stdio.h>

/* Command cmd's whole --help text (usage, every option with its unit and default, what it
 * writes, its exit statuses); NULL for an unknown command. */
const char *cml_help(const char *cmd);

/* Every command with its one-line summary, and where to read more. */
void cml_help_overview(FILE *f);

/* Print cmd's --help text to stdout (`CMD --help`). Returns 0, the exit status of --help. */
int cml_help_print(const char *cmd);

#endif /* CML_HELP_H */
