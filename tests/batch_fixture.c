/* The batch suites' fixture (batch_fixture.h): a fake repository with a submissions folder, and
 * the class commands run through the CLI. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_fixture.h"
#include "helpers.h"
#include "util.h"

char root[64], sub[CML_PATH], out[CML_PATH];
char *output;

void batch_setup(void)
{
    test_tmpdir(root, sizeof root);
    fake_root_make(root, 20, 20);
    cml_fmt(sub, sizeof sub, "%s/submissions", root);
    cml_fmt(out, sizeof out, "%s/out", root);
    cml_mkdirs(sub);
    output = NULL;
}

void batch_teardown(void)
{
    free(output);
    cml_rmtree(root);
}

/* Run a shell command line (test fixtures only: copies and archives). */
void sh(const char *fmt, const char *a, const char *b)
{
    char cmd[3 * CML_PATH];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    ck_assert_msg(system(cmd) == 0, "fixture command failed: %s", cmd);
}

/* A student folder that is a copy of the fake labs/ tree; `fake_cu` replaces 01's file. */
void student(const char *name, const char *fake_cu)
{
    char dir[CML_PATH], path[CML_PATH];
    cml_fmt(dir, sizeof dir, "%s/%s", sub, name);
    sh("cp -r %s/labs \"%s\"", root, dir);
    if (fake_cu) {
        cml_fmt(path, sizeof path, "%s/01_fake/fake.cu", dir);
        test_write(path, fake_cu);
    }
}

/* cml-grade with args (NULL-terminated, after the program); its exit status. */
int cli(const char *const *args)
{
    char *argv[32] = { (char *)test_path("build/cml-grade") };
    int n = 1;
    while (args[n - 1] && n < 31) {
        argv[n] = (char *)args[n - 1];
        n++;
    }
    argv[n] = NULL;
    free(output);
    return test_exec(argv, 240, &output);
}

cml_student_status status_of(const char *name)
{
    cml_student_status s;
    if (cml_status_read(out, name, &s) < 0)
        snprintf(s.state, sizeof s.state, "none");
    return s;
}
