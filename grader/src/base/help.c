/* Every command's help (help.h), in one table: its one-line summary for the overview and its
 * whole --help text. Durations are written with their units, as the options take them. */
#include "help.h"

#include <string.h>

#define EXITS(zero, one)                                                                     \
    "Exit status: 0 " zero "; 1 " one "; 2 refused before starting (a bad option, no usable\n" \
    "GPU: the one-line message says what to do) or nothing could be graded.\n"

static const struct {
    const char *name, *summary, *text;
} commands[] = {
    { "grade", "grade one submission on this GPU: a table per lab, Score: x/y last",
      "usage: cml-grade grade [--submission PATH] [--lab NN] [--seed N] [--out DIR]\n"
      "                       [--root DIR] [--no-color] [--keep] [--calibration FILE]\n"
      "                       [--gpu-lock FILE] [--gpu-share N] [--protect DIR]...\n"
      "                       [--student NAME] [--calibration-pending FILE]\n"
      "Builds the submission's labs beside pristine harnesses, runs them on this GPU, checks\n"
      "every output on the CPU, times them against the reference solution; Score: x/y last.\n"
      "  --submission PATH  the student's files, a folder or an archive (.zip, .tar, .tar.gz,\n"
      "                     .tgz): lab folders or flat, at the top, under one top folder or\n"
      "                     under labs/ (default: ROOT/labs)\n"
      "  --lab NN           only the labs whose name starts with NN (e.g. 02)\n"
      "  --seed N           input seed, a whole number, to repeat an earlier grading\n"
      "                     (default: random; the report prints it)\n"
      "  --out DIR          a folder for the reports (default: ROOT/build/grade):\n"
      "                       record.json    everything a regrade or an appeal needs\n"
      "                       results.json   Gradescope's format (only when a GPU graded)\n"
      "                       summary.tsv    one line per task: lab task status score max why\n"
      "                       feedback.md, feedback.html   for the student, with a chart\n"
      "                       junit.xml      for CI dashboards (only when a GPU graded)\n"
      "                       work/          build folders and lab outputs (with --keep)\n"
      "  --root DIR         the repository (default: the folder above this program's folder)\n"
      "  --no-color         no colour even on a terminal\n"
      "  --keep             keep build folders and outputs under OUT/work\n"
      "  --calibration FILE the reference's timings from `cml-grade calibrate` on this GPU\n"
      "                     model instead of a reference run per lab\n"
      "  --calibration-pending FILE  with --gpu-share: the batch's calibration, still being\n"
      "                     made; read once the builds are done and a place is had, and if it\n"
      "                     is not there then, the reference is measured here (batch sets it)\n"
      "  --gpu-lock FILE    hold this lock while using the GPU (batch sets it)\n"
      "  --gpu-share N      with --gpu-lock: at most N gradings of that lock past their builds\n"
      "                     at once, 1 to 8; this one waits after its builds (batch sets it)\n"
      "  --protect DIR      other students' files (at most 2): never read by a lab run, never\n"
      "                     #included by a build (batch passes its submissions and output)\n"
      "  --student NAME     the student's name for the feedback and the record (batch passes\n"
      "                     it as the platform gave it: UTF-8 letters kept)\n"
      "Labs are graded two at a time, one on the GPU while the one before is verified on the\n"
      "CPU (CML_LAB_WORKERS=1: one at a time); their runs never share the GPU.\n"
      "After the last lab's runs, compute-sanitizer checks each solved task (an error costs its\n"
      "task every point): CML_SANITIZE_JOBS=N runs N at a time, CML_SANITIZE=off skips them.\n"
      "Without a GPU only the builds are checked: the report says so and nothing is scored.\n"
      "Exit status: 0 full marks; 1 graded, not full marks; 2 not graded: a bad option, or no\n"
      "usable GPU (only the builds were checked), or grading could not start.\n" },
    { "bench", "print the reference solutions' bandwidth tables on this GPU",
      "usage: cml-grade bench [--lab NN] [--root DIR]\n"
      "Builds the reference solutions and prints each lab's bandwidth table on this GPU\n"
      "(a lab may run up to 10m). Writes nothing but its build cache under ROOT/build.\n"
      "  --lab NN    only the labs whose name starts with NN (e.g. 02)\n"
      "  --root DIR  the repository (default: the folder above this program's folder)\n"
      EXITS("every table printed", "a lab's table failed") },
    { "batch", "grade a folder of submissions on every GPU of this host, into a gradebook",
      "usage: cml-grade batch --submissions DIR --out DIR [--gpus LIST] [--per-gpu N]\n"
      "                       [--calibration FILE | --no-calibration] [--check-every N]\n"
      "                       [--timeout TIME] [--lab NN] [--root DIR] [--builds-only]\n"
      "                       [--platform NAME] [--canvas-assignment \"Name (id)\"]\n"
      "       cml-grade batch --out DIR --index I    (plan entry I alone: a Slurm array task)\n"
      "Grades every student folder or archive (.zip, .tar, .tar.gz, .tgz) in DIR, writes\n"
      "OUT/students/NAME/ (grade's reports, grade.log, status) and OUT/gradebook.csv, .md.\n"
      "Run it again with the same --out to finish an interrupted batch: it grades those\n"
      "without a result, and those the batch's own --timeout stopped.\n"
      "  --submissions DIR  one folder or archive per student, or a course platform's\n"
      "                     download (its folder or its one .zip); OUT may not be inside it\n"
      "  --platform NAME    auto (default: detected), canvas, moodle, github or folders\n"
      "  --canvas-assignment \"Name (id)\"  the Canvas gradebook column to fill (default: a new\n"
      "                     column \"CUDA memory labs\"; kept in OUT for the next run)\n"
      "  --out DIR          the batch's folder, created when missing (not an existing file)\n"
      "  --gpus LIST        GPU indexes, e.g. 0 or 0,1,3 (default: CUDA_VISIBLE_DEVICES, else\n"
      "                     every /dev/nvidiaN); each must be on this machine\n"
      "  --per-gpu N        gradings sharing one GPU, 1 to 7 (default 2: one builds on the\n"
      "                     CPU while the other is timed), and one more that builds ahead\n"
      "                     and waits for a place (CML_BATCH_AHEAD=0: none)\n"
      "  --calibration FILE reference timings from `cml-grade calibrate` (default: made once\n"
      "                     into OUT/calibration.cal, about 20 s on one GPU)\n"
      "  --no-calibration   measure the reference in every grading instead\n"
      "  --check-every N    students graded between two drift checks of a GPU, 0 to 10000\n"
      "                     (default 10; 0: never)\n"
      "  --timeout TIME     wall-clock limit of one student's whole grading: whole seconds\n"
      "                     (90 or 90s), minutes (10m) or hours (1h) (default 30m); a student\n"
      "                     it stops is graded again by the next run of the same command\n"
      "  --lab NN           only the labs whose name starts with NN\n"
      "  --index I          plan entry I (0 to the number of students - 1) of an OUT made\n"
      "                     before (by slurm or batch), graded alone in the foreground\n"
      "  --root DIR         the repository (default: the folder above this program's folder)\n"
      "  --builds-only      no GPU wanted: check that every submission builds and passes the\n"
      "                     build rules; no one is graded (state builds-only, graded by the\n"
      "                     next batch without this option)\n"
      "Before anything is written it checks the options and that every GPU answers; without\n"
      "a usable GPU it refuses (exit 2) and marks no one.\n"
      EXITS("every student graded (whatever their scores)",
            "some student not graded: the gradebook says why") },
    { "calibrate", "measure the reference solutions once per GPU model (or --check drift)",
      "usage: cml-grade calibrate [--out FILE] [--lab NN]... [--root DIR]\n"
      "       cml-grade calibrate --check FILE [--lab NN]... [--tolerance F] [--gpu-lock FILE]\n"
      "Measures the reference solution's timed runs on this GPU (default file:\n"
      "ROOT/build/calibration/<gpu>.cal). --check measures the labs again (default 01 and 06)\n"
      "and exits 3 when a lab's time moved by more than the tolerance.\n"
      "  --out FILE       where to write the calibration (not an existing folder)\n"
      "  --check FILE     an existing calibration to compare with\n"
      "  --lab NN         only these labs (repeat it for several)\n"
      "  --tolerance F    allowed drift, a fraction above 0 and at most 1 (default 0.06 = 6%)\n"
      "  --gpu-lock FILE  hold this lock while using the GPU (batch sets it)\n"
      "  --root DIR       the repository (default: the folder above this program's folder)\n"
      EXITS("written, or no drift", "a lab could not be measured; 3 drift (--check)") },
    { "slurm", "write (and --submit) a Slurm job array: one student per array task",
      "usage: cml-grade slurm --submissions DIR --out DIR [--throttle N] [--lab NN]\n"
      "                       [--partition P] [--time TIME] [--cpus N]\n"
      "                       [--calibration FILE] [--root DIR] [--submit]\n"
      "Writes OUT/plan.tsv and OUT/grade-array.sbatch (a job array, one student per task, one\n"
      "GPU each); --submit hands it to sbatch. Then: cml-grade collect --out DIR.\n"
      "  --submissions DIR  one folder or archive per student, or a course platform's\n"
      "                     download (its folder or its one .zip); OUT may not be inside it\n"
      "  --out DIR          the batch's folder, created when missing (not an existing file)\n"
      "  --throttle N       array tasks running at once, 1 to 1000 (default 4)\n"
      "  --time TIME        Slurm's limit per task, with its unit: seconds (90s), minutes\n"
      "                     (10m) or hours (1h), rounded up to whole minutes (default 30m)\n"
      "  --cpus N           CPUs per task, 1 to 1024 (default 8)\n"
      "  --partition P      the Slurm partition\n"
      "  --calibration FILE reference timings from `cml-grade calibrate`\n"
      "  --lab NN           only the labs whose name starts with NN\n"
      "  --root DIR         the repository (default: the folder above this program's folder)\n"
      "  --submit           run sbatch on the script\n"
      EXITS("the script written (and accepted)", "sbatch refused it") },
    { "collect", "merge a batch's or a Slurm array's results into the gradebook",
      "usage: cml-grade collect --out DIR   (a batch's or slurm's --out)\n"
      "Writes OUT/gradebook.csv and OUT/gradebook.md from every student's status.\n"
      EXITS("every student has a result", "some have none yet (the gradebook says who)") },
    { "regrade", "grade one student again from their record (same seed) and compare",
      "usage: cml-grade regrade --student DIR [--out DIR2] [--root REPO]\n"
      "  --student DIR  a grading's folder holding record.json and summary.tsv (a batch's\n"
      "                 OUT/students/NAME)\n"
      "  --out DIR2     where the new grading goes (default DIR/regrade)\n"
      "  --root REPO    the repository (default: the folder above this program's folder)\n"
      EXITS("the same result, task by task", "some task differs") },
    { "doctor", "say what the sandbox enforces here and whether the GPU answers inside it",
      "usage: cml-grade doctor\n"
      "Prints what the sandbox enforces on this machine and whether a confined process\n"
      "reaches the GPU. Exit status: 0 a GPU answers; 1 none (the reason is printed).\n" },
    { "contract", "print each task's contract from its spec, or write it into the sheets",
      "usage: cml-grade contract [--lab NN] [--write]\n"
      "Prints, per task, what it is graded on as its spec says: the cases, the ranges each\n"
      "grading draws from, the output check, the technique evidence and the speed rule.\n"
      "--write puts these blocks into labs/<lab>/EXERCISE.md where they differ.\n"
      "Exit status: 0 the sheets agree (or were written); 1 a sheet differs; 2 bad option.\n" },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* Contract in help.h. */
const char *cml_help(const char *cmd)
{
    for (size_t i = 0; cmd && i < NCOMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].text;
    return NULL;
}

/* Contract in help.h. */
void cml_help_overview(FILE *f)
{
    fputs("usage: cml-grade COMMAND [options]     (cml-grade COMMAND --help for its options)\n",
          f);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("Exit status: 0 done (grade: full marks), 1 done but not all good (grade: not full\n"
          "marks), 2 refused before starting (a bad option, no usable GPU).\n", f);
}

/* Contract in help.h. */
int cml_help_print(const char *cmd)
{
    const char *text = cml_help(cmd);
    fputs(text ? text : "", stdout);
    return 0;
}
