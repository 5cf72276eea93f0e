/* The specs a grading reads: every grader/specs/NN_name.spec of the repository, in name order,
 * with the shared link rules (grader/specs/link.rules) added to each. */
#include "grade.h"
#include "linkrules.h"
#include "spec.h"
#include "util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int is_spec(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return e->d_name[0] != '.' && n > 5 && strcmp(e->d_name + n - 5, ".spec") == 0;
}

/* Appends root's link.rules to s->link. A root without the file (a test's fake root) gets no
 * link rules, and every build of it says they were not enforced. */
static int load_link_rules(const char *root, cml_lab_spec *s, char *err, size_t errlen)
{
    char path[CML_PATH];
    if (cml_fmt(path, sizeof path, "%s/%s", root, CML_LINK_RULES_FILE) < 0 ||
        access(path, F_OK) != 0)
        return 0;
    return cml_link_rules_load(path, &s->link, err, errlen);
}

/* Contract in grade.h. */
int cml_load_specs(const char *root, const char *prefix, cml_lab_spec *specs, int max,
                   char *err, size_t errlen)
{
    char dir[CML_PATH], path[CML_PATH];
    struct dirent **list = NULL;
    int n = cml_fmt(dir, sizeof dir, "%s/grader/specs", root) == 0
            ? scandir(dir, &list, is_spec, alphasort) : -1;
    if (n < 0) {
        snprintf(err, errlen, "cannot read the specs folder %s/grader/specs: is --root the "
                 "repository's top folder?", root);
        return -1;
    }
    int kept = 0, rc = 0;
    for (int i = 0; i < n; i++) {
        if (rc == 0 && cml_fmt(path, sizeof path, "%s/%s", dir, list[i]->d_name) == 0) {
            if (kept == max) {
                snprintf(err, errlen, "more than %d specs in %s: grade fewer with --lab", max, dir);
                rc = -1;
            } else if (cml_spec_load(path, &specs[kept], err, errlen) < 0 ||
                       load_link_rules(root, &specs[kept], err, errlen) < 0) {
                rc = -1;
            } else if (!prefix || strncmp(specs[kept].lab, prefix, strlen(prefix)) == 0) {
                kept++;
            }
        }
        free(list[i]);
    }
    free(list);
    if (rc == 0 && kept == 0)
        snprintf(err, errlen, "no lab in %s matches '%s': --lab takes the start of a lab's "
                 "name, e.g. --lab 01", dir, prefix ? prefix : "");
    return rc < 0 ? -1 : kept;
}
