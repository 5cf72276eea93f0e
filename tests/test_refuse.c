/* Every command refuses what is wrong before any work starts: one line on stderr saying what
 * and what to do, exit status 2, nothing written. Also what a batch does without a usable GPU
 * (the fake probe says "no driver" or "no device"), a student the batch's own time limit
 * stopped, the help texts, and `make grade` with a path holding spaces. All through the
 * built build/cml-grade, on the fake repository (batch_fixture.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch_fixture.h"
#include "helpers.h"
#include "suites.h"

/* Whether path exists. */
static int there(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The last cli() call was refused: exit 2, one line naming `text`, and `written` (the --out
 * it was given) not made. */
static void refused(int rc, const char *text, const char *written)
{
    int lines = 0;
    for (const char *p = output; p && *p; p++)
        lines += *p == '\n';
    ck_assert_msg(rc == 2 && output && strstr(output, text) && lines == 1 && !there(written),
                  "exit %d (want 2), %d line(s) (want 1) with '%s', %s %s; output:\n%s", rc,
                  lines, text, written, there(written) ? "was made" : "not made",
                  output ? output : "");
}

/* cml-grade grade on the fake root with --submission s and --out o, extra options after. */
static int grade(const char *s, const char *o, const char *extra1, const char *extra2)
{
    const char *args[] = { "grade", "--root", root, "--submission", s, "--out", o,
                           "--no-color", extra1, extra2, NULL };
    return cli(args);
}

/* cml-grade batch on the fake root with sub and out, extra options after. */
static int batch(const char *o, const char *extra1, const char *extra2)
{
    const char *args[] = { "batch", "--root", root, "--submissions", sub, "--out", o,
                           "--no-calibration", extra1, extra2, NULL };
    return cli(args);
}

START_TEST(grade_refuses_a_mistyped_submission)
{
    char typo[CML_PATH];
    cml_fmt(typo, sizeof typo, "%s/lbas", root);
    refused(grade(typo, out, NULL, NULL), "--submission", out);
    ck_assert_ptr_nonnull(strstr(output, "no such file or folder"));
}
END_TEST

START_TEST(grade_refuses_a_plain_file_as_submission)
{
    char notes[CML_PATH];
    cml_fmt(notes, sizeof notes, "%s/notes.txt", root);
    test_write(notes, "not an archive\n");
    refused(grade(notes, out, NULL, NULL), "neither a folder nor an archive", out);
}
END_TEST

START_TEST(grade_refuses_an_existing_file_as_out)
{
    char labs[CML_PATH];
    cml_fmt(labs, sizeof labs, "%s/labs", root);
    test_write(out, "keep me\n");
    int rc = grade(labs, out, NULL, NULL);
    char *text = cml_read_text(out, 100, NULL);
    ck_assert_msg(rc == 2 && strstr(output, "is an existing file") && text &&
                  strcmp(text, "keep me\n") == 0, "exit %d; output:\n%s", rc, output);
    free(text);
}
END_TEST

START_TEST(grade_refuses_a_seed_that_is_not_a_whole_number)
{
    char labs[CML_PATH];
    cml_fmt(labs, sizeof labs, "%s/labs", root);
    refused(grade(labs, out, "--seed", "12abc"), "--seed '12abc' is not a whole number", out);
}
END_TEST

START_TEST(grade_without_gpu_says_only_builds_were_checked_and_exits_2)
{
    char labs[CML_PATH], path[CML_PATH];
    cml_fmt(labs, sizeof labs, "%s/labs", root);
    setenv("CML_FAKE_GPU", "0", 1);
    int rc = grade(labs, out, NULL, NULL);
    cml_fmt(path, sizeof path, "%s/summary.tsv", out);
    int summary = there(path);
    cml_fmt(path, sizeof path, "%s/results.json", out);
    int gradescope = there(path);
    cml_fmt(path, sizeof path, "%s/junit.xml", out);
    int junit = there(path);
    ck_assert_msg(rc == 2 && strstr(output, "no GPU: only the builds were checked") &&
                  summary && !gradescope && !junit, "exit %d (want 2), summary.tsv %d (want 1), "
                  "results.json %d, junit.xml %d (want 0); output:\n%s", rc, summary,
                  gradescope, junit, output);
    /* after the report, not in the middle of it: where both go to one file (make's output,
     * a log), the report's buffered lines would otherwise come out around the message */
    const char *score = strstr(output, "Score:"), *said = strstr(output, "no GPU: only");
    ck_assert_msg(score && said > score, "the message comes before the report's end:\n%s",
                  output);
}
END_TEST

/* A course grading whose technique checks could not run (no ncu here) keeps their points but
 * exits 3 and says so, unless the instructor set CML_UNCHECKED=keep (issue 44: `make grade`
 * without the trace library was silently more lenient than the course server). */
START_TEST(unchecked_course_grading_exits_3)
{
    char labs[CML_PATH];
    cml_fmt(labs, sizeof labs, "%s/labs", root);
    unsetenv("CML_UNCHECKED");
    int rc = grade(labs, out, NULL, NULL);
    setenv("CML_UNCHECKED", "keep", 1);
    ck_assert_msg(rc == 3 && strstr(output, "did not run") && strstr(output, "is not final"),
                  "exit %d (want 3); output:\n%s", rc, output);
    cml_rmtree(out);
    rc = grade(labs, out, NULL, NULL);
    ck_assert_msg(rc <= 1 && !strstr(output, "is not final"), "exit %d (want 0 or 1); "
                  "output:\n%s", rc, output);
}
END_TEST

START_TEST(batch_refuses_durations_without_a_known_unit)
{
    static const char *const bad[] = { "1x", "-5", "0", "", "10 m" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refused(batch(out, "--timeout", bad[i]), "is not a duration", out);
}
END_TEST

START_TEST(batch_takes_minutes_as_minutes)
{
    student("alice", NULL);
    setenv("FAKE_NVCC_SLEEP", "2", 1); /* every build 2 s: more than "1m" read as 1 s */
    int rc = batch(out, "--timeout", "1m");
    cml_student_status a = status_of("alice");
    ck_assert_msg(rc == 0 && strcmp(a.state, "graded") == 0 && strstr(output, "at most 1m each"),
                  "exit %d, alice %s (%s); output:\n%s", rc, a.state, a.why, output);
}
END_TEST

START_TEST(batch_refuses_out_inside_submissions)
{
    char inside[CML_PATH];
    student("alice", NULL);
    cml_fmt(inside, sizeof inside, "%s/results", sub);
    refused(batch(inside, NULL, NULL), "is inside --submissions", inside);
}
END_TEST

/* The same folder through a link: compared as real paths, not as text. */
START_TEST(batch_refuses_out_inside_submissions_through_a_link)
{
    char link[CML_PATH], via[CML_PATH], made[CML_PATH];
    student("alice", NULL);
    cml_fmt(link, sizeof link, "%s/elsewhere", root);
    ck_assert_int_eq(symlink(sub, link), 0);
    cml_fmt(via, sizeof via, "%s/results", link);
    cml_fmt(made, sizeof made, "%s/results", sub);
    refused(batch(via, NULL, NULL), "is inside --submissions", made);
}
END_TEST

START_TEST(batch_refuses_submissions_inside_out)
{
    student("alice", NULL);
    refused(batch(root, NULL, NULL), "is inside --out", out);
}
END_TEST

START_TEST(batch_refuses_an_existing_file_as_out)
{
    student("alice", NULL);
    test_write(out, "keep me\n");
    int rc = batch(out, NULL, NULL);
    char *text = cml_read_text(out, 100, NULL);
    ck_assert_msg(rc == 2 && strstr(output, "is an existing file") && text &&
                  strcmp(text, "keep me\n") == 0, "exit %d; output:\n%s", rc, output);
    free(text);
}
END_TEST

START_TEST(batch_refuses_gpus_and_numbers_that_are_not_whole_numbers)
{
    student("alice", NULL);
    refused(batch(out, "--gpus", "x"), "is not a GPU index", out);
    refused(batch(out, "--gpus", "0,0"), "twice", out);
    /* 7 at most: one grading more per GPU builds ahead, 8 processes in all */
    refused(batch(out, "--per-gpu", "8"), "--per-gpu '8' is not a whole number from 1 to 7",
            out);
    const char *args[] = { "batch", "--root", root, "--out", out, "--index", "x", NULL };
    refused(cli(args), "--index 'x' is not a whole number", out);
}
END_TEST

/* A platform's download may be one archive, so --submissions takes a .zip; any other file is
 * refused. */
START_TEST(batch_refuses_a_file_as_submissions)
{
    char file[CML_PATH];
    cml_fmt(file, sizeof file, "%s/list.txt", root);
    test_write(file, "alice\n");
    const char *args[] = { "batch", "--root", root, "--submissions", file, "--out", out, NULL };
    refused(cli(args), "is neither a folder nor an archive", out);
}
END_TEST

START_TEST(batch_without_a_driver_refuses_and_marks_no_one)
{
    student("alice", NULL);
    setenv("FAKE_PROBE", "nodriver", 1);
    refused(batch(out, NULL, NULL), "driver", out);
    ck_assert_msg(!strstr(output, "CUDA driver version is insufficient"), "CUDA's words "
                  "instead of plain ones:\n%s", output);
}
END_TEST

START_TEST(batch_without_a_device_refuses_and_marks_no_one)
{
    student("alice", NULL);
    setenv("FAKE_PROBE", "nodevice", 1);
    refused(batch(out, NULL, NULL), "no GPU visible", out);
}
END_TEST

START_TEST(batch_refuses_a_gpu_this_machine_does_not_have)
{
    student("alice", NULL);
    setenv("FAKE_PROBE_GPUS", "0,1", 1);
    refused(batch(out, "--gpus", "0,5"), "GPU 5 cannot be used", out);
}
END_TEST

START_TEST(batch_grades_again_a_student_its_time_limit_stopped)
{
    student("eve", "HANG\n"); /* its build never ends */
    int first = batch(out, "--timeout", "3s");
    cml_student_status e = status_of("eve");
    ck_assert_msg(first == 1 && strcmp(e.state, "timeout") == 0 &&
                  strstr(e.why, "stopped by the batch's time limit (--timeout 3s)"),
                  "exit %d, eve %s (%s); output:\n%s", first, e.state, e.why, output);
    batch(out, "--timeout", "3s");
    ck_assert_msg(strstr(output, "1 submission(s), 1 to grade"), "the second run did not grade "
                  "eve again:\n%s", output);
}
END_TEST

/* --builds-only: no GPU wanted, builds checked, no one graded; a later batch grades them. */
START_TEST(batch_builds_only_grades_no_one_and_a_later_batch_does)
{
    student("alice", NULL);
    setenv("FAKE_PROBE", "nodevice", 1);
    int first = batch(out, "--builds-only", NULL);
    cml_student_status a = status_of("alice");
    ck_assert_msg(first == 1 && strcmp(a.state, "builds-only") == 0, "exit %d, alice %s (%s); "
                  "output:\n%s", first, a.state, a.why, output);
    unsetenv("FAKE_PROBE");
    int second = batch(out, NULL, NULL);
    a = status_of("alice");
    ck_assert_msg(second == 0 && strcmp(a.state, "graded") == 0 && a.score == a.max,
                  "exit %d, alice %s (%s); output:\n%s", second, a.state, a.why, output);
}
END_TEST

START_TEST(slurm_collect_and_regrade_refuse_bad_options)
{
    char inside[CML_PATH], missing[CML_PATH];
    student("alice", NULL);
    cml_fmt(inside, sizeof inside, "%s/arrays", sub);
    cml_fmt(missing, sizeof missing, "%s/nothing-here", root);
    const char *time[] = { "slurm", "--submissions", sub, "--out", out, "--time", "1x", NULL };
    refused(cli(time), "--time '1x' is not a duration", out);
    const char *bare[] = { "slurm", "--submissions", sub, "--out", out, "--time", "30", NULL };
    refused(cli(bare), "--time '30' has no unit", out);
    const char *nested[] = { "slurm", "--submissions", sub, "--out", inside, NULL };
    refused(cli(nested), "is inside --submissions", inside);
    const char *collect[] = { "collect", "--out", missing, NULL };
    refused(cli(collect), "no such file or folder", missing);
    const char *regrade[] = { "regrade", "--student", missing, NULL };
    refused(cli(regrade), "--student", missing);
}
END_TEST

START_TEST(bare_command_lists_every_command)
{
    static const char *const names[] = { "grade", "bench", "batch", "calibrate", "slurm",
                                         "collect", "regrade", "doctor" };
    const char *none[] = { NULL };
    int rc = cli(none);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char line[32];
        snprintf(line, sizeof line, "\n  %s ", names[i]);
        ck_assert_msg(rc == 2 && strstr(output, line), "exit %d; '%s' not listed:\n%s", rc,
                      names[i], output);
    }
}
END_TEST

START_TEST(bench_help_is_its_own)
{
    const char *args[] = { "bench", "--help", NULL };
    int rc = cli(args);
    ck_assert_msg(rc == 0 && strstr(output, "usage: cml-grade bench") &&
                  !strstr(output, "cml-grade grade"), "exit %d:\n%s", rc, output);
}
END_TEST

START_TEST(grade_help_names_every_output)
{
    static const char *const outputs[] = { "record.json", "results.json", "summary.tsv",
                                           "feedback.md", "feedback.html", "junit.xml" };
    const char *args[] = { "grade", "--help", NULL };
    int rc = cli(args);
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++)
        ck_assert_msg(rc == 0 && strstr(output, outputs[i]), "exit %d; %s not named:\n%s", rc,
                      outputs[i], output);
}
END_TEST

START_TEST(batch_help_gives_units)
{
    const char *args[] = { "batch", "--help", NULL };
    int rc = cli(args);
    ck_assert_msg(rc == 0 && strstr(output, "(default 30m)") && strstr(output, "10m") &&
                  strstr(output, "1 to 7"), "exit %d:\n%s", rc, output);
}
END_TEST

/* make grade SUBMISSION="my  labs" (two spaces together): the recipe make would run passes it
 * as one argument, unchanged (the shell's own word splitting shows what the program gets). */
START_TEST(make_grade_passes_a_path_with_spaces_as_one_argument)
{
    char cmd[3 * CML_PATH], args_path[CML_PATH];
    cml_fmt(args_path, sizeof args_path, "%s/args.txt", root);
    snprintf(cmd, sizeof cmd, "cd %s && line=$(make -s -n grade \"SUBMISSION=%s/my  labs\" "
             "LAB=01 | sed -n '/cml-grade grade/,$p') && eval \"set -- $line\" && "
             "printf '[%%s]\\n' \"$@\" > %s",
             test_root(), root, args_path);
    ck_assert_int_eq(system(cmd), 0);
    char *args = cml_read_text(args_path, 1 << 16, NULL), want[CML_PATH];
    cml_fmt(want, sizeof want, "[%s/my  labs]", root); /* two spaces, kept */
    ck_assert_msg(args && strstr(args, want) && strstr(args, "[grade]"), "want %s among:\n%s",
                  want, args ? args : "");
    free(args);
}
END_TEST

/* The suite. */
Suite *refuse_suite(void)
{
    Suite *s = suite_create("refuse");
    TCase *tc = tcase_create("refuse");
    tcase_add_checked_fixture(tc, batch_setup, batch_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, grade_refuses_a_mistyped_submission);
    tcase_add_test(tc, grade_refuses_a_plain_file_as_submission);
    tcase_add_test(tc, grade_refuses_an_existing_file_as_out);
    tcase_add_test(tc, grade_refuses_a_seed_that_is_not_a_whole_number);
    tcase_add_test(tc, grade_without_gpu_says_only_builds_were_checked_and_exits_2);
    tcase_add_test(tc, unchecked_course_grading_exits_3);
    tcase_add_test(tc, batch_refuses_durations_without_a_known_unit);
    tcase_add_test(tc, batch_takes_minutes_as_minutes);
    tcase_add_test(tc, batch_refuses_out_inside_submissions);
    tcase_add_test(tc, batch_refuses_out_inside_submissions_through_a_link);
    tcase_add_test(tc, batch_refuses_submissions_inside_out);
    tcase_add_test(tc, batch_refuses_an_existing_file_as_out);
    tcase_add_test(tc, batch_refuses_gpus_and_numbers_that_are_not_whole_numbers);
    tcase_add_test(tc, batch_refuses_a_file_as_submissions);
    tcase_add_test(tc, batch_without_a_driver_refuses_and_marks_no_one);
    tcase_add_test(tc, batch_without_a_device_refuses_and_marks_no_one);
    tcase_add_test(tc, batch_refuses_a_gpu_this_machine_does_not_have);
    tcase_add_test(tc, batch_grades_again_a_student_its_time_limit_stopped);
    tcase_add_test(tc, batch_builds_only_grades_no_one_and_a_later_batch_does);
    tcase_add_test(tc, slurm_collect_and_regrade_refuse_bad_options);
    tcase_add_test(tc, bare_command_lists_every_command);
    tcase_add_test(tc, bench_help_is_its_own);
    tcase_add_test(tc, grade_help_names_every_output);
    tcase_add_test(tc, batch_help_gives_units);
    tcase_add_test(tc, make_grade_passes_a_path_with_spaces_as_one_argument);
    suite_add_tcase(s, tc);
    return s;
}
