/* A task's status: one enum, and one table (status.c) that gives each value its name in the
 * reports and its properties. The names are a contract: record.json, summary.tsv, results.json,
 * planted-bug EXPECT files and scripts read them, so a name never changes.
 * Depends on nothing: the lowest header of the grader; cml.h includes it. */
#ifndef CML_STATUS_H
#define CML_STATUS_H

enum cml_status {
    CML_STATUS_NONE = 0,     /* not graded (a zeroed result): named "", shown as "-" */
    CML_STATUS_PASSED,       /* full marks */
    CML_STATUS_SLOW,         /* correct, lost performance points */
    CML_STATUS_TECHNIQUE,    /* correct, but a technique check failed */
    CML_STATUS_WRONG,        /* a case failed verification */
    CML_STATUS_TODO,         /* the run reached a TODO stub of the task */
    CML_STATUS_ERROR,        /* the harness reported a CUDA error (or the grader could not run) */
    CML_STATUS_CRASH,        /* the run ended without its results */
    CML_STATUS_TIMEOUT,      /* the run was killed at the lab's timeout */
    CML_STATUS_TAMPERED,     /* the run wrote records no honest harness writes */
    CML_STATUS_BUILD_ERROR,  /* the student's side did not stage or build */
    CML_STATUS_NO_GPU,       /* compiled, not run: no GPU here */
    CML_STATUS_SANITIZER,    /* every case passed, but compute-sanitizer found an error */
    CML_STATUS_MISSING,      /* the lab's student file was not handed in (not in the submission) */
    CML_STATUS_COUNT
};

/* The parts of a task's points (a bit set): which a status can earn. */
enum cml_part {
    CML_PART_CORRECTNESS = 1,
    CML_PART_PERF = 2,
    CML_PART_TECHNIQUE = 4
};

/* How the terminal report paints a status. */
enum cml_shade { CML_SHADE_BAD = 0, CML_SHADE_PARTIAL, CML_SHADE_GOOD };

/* The name the reports write ("passed", "build-error"; "" for NONE); "?" for a value outside
 * the enum. */
const char *cml_status_name(enum cml_status s);
/* The status named `name` into *out: 0, or -1 for an unknown name ("" and NULL included). */
int cml_status_from_name(const char *name, enum cml_status *out);
/* Whether every case of the task passed and nothing found it wrong: passed, slow, technique
 * (not sanitizer: a memory error that happened to give the right output is not solved). */
int cml_status_solved(enum cml_status s);
/* Whether the task's cases ran here (the report shows "passed/cases"): not for build-error,
 * missing or no-gpu. */
int cml_status_ran(enum cml_status s);
/* The parts of the points the status can earn (enum cml_part bits); the judge
 * gives each part only as far as the task's credit goes. */
unsigned cml_status_earns(enum cml_status s);
enum cml_shade cml_status_shade(enum cml_status s);

#endif /* CML_STATUS_H */
