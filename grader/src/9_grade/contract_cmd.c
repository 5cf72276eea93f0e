/* `cml-grade contract [--lab NN] [--write]`: each task's contract as its spec writes it
 * (contract.h), printed, or written into the lab's sheet (labs/<lab>/EXERCISE.md) where the
 * sheet's copy differs. Exit 0; 1 when --write is not given and a sheet differs (a check for
 * scripts); 2 on a bad option or spec. */
#include "args.h"
#include "contract.h"
#include "grade.h"
#include "help.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK = 8192 };

/* One lab: print its blocks, or bring its sheet in step. 0 in step or written, 1 differs,
 * -1 error (said on stderr). */
static int one_lab(const char *root, const cml_lab_spec *lab, int write)
{
    char path[CML_PATH], err[256];
    if (cml_fmt(path, sizeof path, "%s/labs/%s/EXERCISE.md", root, lab->lab) < 0)
        return -1;
    char *sheet = cml_read_text(path, 1u << 20, NULL);
    int changed = 0;
    char *text = sheet ? cml_contract_sheet(lab, sheet, &changed, err, sizeof err) : NULL;
    if (!text) {
        fprintf(stderr, "cml-grade contract: %s\n", sheet ? err : "cannot read the sheet");
        free(sheet);
        return -1;
    }
    if (write && changed && cml_write_file(path, text, strlen(text)) < 0) {
        perror(path);
        changed = -1;
    } else if (write) {
        printf("%s: %d contract block%s written\n", path, changed, changed == 1 ? "" : "s");
        changed = 0;
    } else {
        char *block = malloc(BLOCK);
        for (int i = 0; block && i < lab->ntasks; i++) {
            cml_contract_text(lab, &lab->tasks[i], block, BLOCK);
            printf("%s\n", block);
        }
        free(block);
        if (changed)
            printf("(%s: %d block%s differ from the spec: `cml-grade contract --write`)\n",
                   path, changed, changed == 1 ? "" : "s");
    }
    free(sheet);
    free(text);
    return changed < 0 ? -1 : changed > 0;
}

/* Contract in grade.h. */
int cml_cmd_contract(int argc, char **argv)
{
    const char *only = NULL;
    int write = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--write") == 0)
            write = 1;
        else if (strcmp(argv[i], "--lab") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--help") == 0)
            return cml_help_print("contract");
        else
            return cml_arg_refuse("contract", "usage: cml-grade contract [--lab NN] [--write]");
    }
    char root[CML_PATH], err[512];
    cml_lab_spec *specs = calloc(CML_MAX_LABS, sizeof *specs);
    int n = specs && cml_find_root(root, sizeof root, err, sizeof err) == 0
                ? cml_load_specs(root, only, specs, CML_MAX_LABS, err, sizeof err) : -1;
    int rc = n > 0 ? 0 : cml_arg_refuse("contract", specs ? err : "out of memory");
    for (int i = 0; n > 0 && i < n; i++) {
        int r = one_lab(root, &specs[i], write);
        rc = r < 0 ? 2 : rc == 2 ? 2 : (r > 0 ? 1 : rc);
    }
    free(specs);
    return rc;
}
