/* What one student's submission may not do to the others in a batch: fill the disk they share
 * (an archive bomb), or compile another student's file into its own (an #include by the path a
 * report shows). Part of the batch suite. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch_fixture.h"
#include "helpers.h"
#include "suites.h"
#include "util.h"

/* An archive bomb: a tarball of a few hundred KiB that unpacks to 256 MiB (a sparse file that
 * tar reads as zeros), and one that hides 64 MiB 70 folders deep, past the depth the watch
 * walks (refused for its depth). Under an unpacked-size cap of 8 MiB (CML_EXTRACT_MAX_MB)
 * each is unusable, says why, and leaves nothing unpacked; the honest archive beside them is
 * graded (and the batch exits 0: an unusable entry is the gradebook's to report, as a corrupt
 * one is). Fails without the cap (the bomb unpacks and its student is graded), and when depth
 * hides bytes from the count. */
START_TEST(archive_bomb_is_stopped_at_the_size_cap)
{
    char cmd[4 * CML_PATH], path[CML_PATH];
    sh("tar -czf %s/carol.tar.gz -C %s/labs .", sub, root);
    snprintf(cmd, sizeof cmd, "mkdir -p %s/bomb && truncate -s 256M %s/bomb/zeros.cu && "
             "tar -czf %s/mallory.tar.gz -C %s/bomb . && rm -rf %s/bomb", root, root, sub,
             root, root);
    ck_assert_msg(system(cmd) == 0, "fixture command failed: %s", cmd);
    /* trent hides the same bytes 70 folders down, below what a count could walk */
    char deep[160] = "";
    for (int i = 0; i < 70; i++)
        strcat(deep, "d/");
    snprintf(cmd, sizeof cmd, "mkdir -p %s/bomb/%s && truncate -s 64M %s/bomb/%szeros.cu && "
             "tar -czf %s/trent.tar.gz -C %s/bomb . && rm -rf %s/bomb", root, deep, root, deep,
             sub, root, root);
    ck_assert_msg(system(cmd) == 0, "fixture command failed: %s", cmd);
    setenv("CML_EXTRACT_MAX_MB", "8", 1);
    const char *args[] = { "batch", "--root", root, "--submissions", sub, "--out", out,
                           "--gpus", "0", "--no-calibration", NULL };
    int rc = cli(args);
    unsetenv("CML_EXTRACT_MAX_MB");
    cml_student_status c = status_of("carol"), m = status_of("mallory"),
                       t = status_of("trent");
    cml_fmt(path, sizeof path, "%s/extracted/mallory/zeros.cu", out);
    ck_assert_msg(rc == 0 && strcmp(c.state, "graded") == 0 && c.score == c.max &&
                  strcmp(m.state, "unusable") == 0 && strstr(m.why, "more than 8 MiB") &&
                  access(path, F_OK) != 0, "exit %d; carol %s %g/%g; mallory %s (%s); "
                  "output:\n%s", rc, c.state, c.score, c.max, m.state, m.why, output);
    cml_fmt(path, sizeof path, "%s/extracted/trent", out);
    ck_assert_msg(strcmp(t.state, "unusable") == 0 && strstr(t.why, "deeper than 64 folders") &&
                  access(path, F_OK) != 0, "trent %s (%s)", t.state, t.why);
}
END_TEST

/* Bob's coalescing.cu is one line, an #include of Alice's by its absolute path (a report shows
 * the submissions folder). Every grading of a batch protects the batch's submissions and output
 * folders like its own, so the include rule refuses it: Bob's lab 01 is a build error naming
 * the rule, Alice's builds, and a regrade from Bob's record (which names the folders) agrees.
 * Real nvcc and the real lab 01; no GPU needed (batch --builds-only). Fails when the batch
 * does not pass those folders (Bob's build then succeeds with Alice's code), or the regrade
 * does not. */
START_TEST(include_of_another_students_file_is_refused)
{
    char cmd[12 * CML_PATH], path[CML_PATH];
    const char *repo = test_root();
    snprintf(cmd, sizeof cmd, "mkdir -p %s/alice %s/bob/01_coalescing && "
             "cp -r %s/labs/01_coalescing %s/alice/ && "
             "cp %s/solutions/01_coalescing/coalescing.cu %s/alice/01_coalescing/ && "
             "echo '#include \"%s/alice/01_coalescing/coalescing.cu\"' "
             "> %s/bob/01_coalescing/coalescing.cu", sub, sub, repo, sub, repo, sub, sub, sub);
    ck_assert_msg(system(cmd) == 0, "fixture command failed: %s", cmd);
    unsetenv("NVCC"); /* the fixture's fake nvcc reads no #include: the real one */
    const char *args[] = { "batch", "--root", repo, "--submissions", sub, "--out", out,
                           "--lab", "01", "--gpus", "0", "--builds-only", NULL };
    cli(args);
    cml_fmt(path, sizeof path, "%s/students/bob/summary.tsv", out);
    char *bob = cml_read_text(path, 1 << 20, NULL);
    cml_fmt(path, sizeof path, "%s/students/alice/summary.tsv", out);
    char *alice = cml_read_text(path, 1 << 20, NULL);
    ck_assert_msg(bob && strstr(bob, "build-error") && strstr(bob, "(rule: include)") &&
                  strstr(bob, "alice/01_coalescing/coalescing.cu") && alice &&
                  !strstr(alice, "build-error"), "bob:\n%s\nalice:\n%s\noutput:\n%s",
                  bob ? bob : "(none)", alice ? alice : "(none)", output);
    free(bob);
    free(alice);
    /* a regrade from Bob's record protects the same folders: lab 01 the same build error (the
     * regrade grades every lab: the batch's --lab is not in the record) */
    cml_fmt(path, sizeof path, "%s/students/bob", out);
    const char *again[] = { "regrade", "--student", path, "--root", repo, NULL };
    cli(again);
    cml_fmt(path, sizeof path, "%s/students/bob/regrade/summary.tsv", out);
    char *re = cml_read_text(path, 1 << 20, NULL);
    ck_assert_msg(re && strstr(re, "(rule: include)") && !strstr(output, "differs: 01_"),
                  "regrade of bob:\n%s\nsummary:\n%s", output, re ? re : "(none)");
    free(re);
}
END_TEST

/* Contract in suites.h. */
void batch_others_add(Suite *s)
{
    TCase *tc = tcase_create("other students");
    tcase_add_checked_fixture(tc, batch_setup, batch_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, archive_bomb_is_stopped_at_the_size_cap);
    tcase_add_test(tc, include_of_another_students_file_is_refused);
    suite_add_tcase(s, tc);
}
