/* The verdict on a task, decided once from its findings (judge.c), and its publication into the
 * results that reports read (publish.c): the only code that writes a status, points, a detail
 * or a total. Depends on cml.h (the result types) and through it on status.h. */
#ifndef CML_JUDGE_H
#define CML_JUDGE_H

#include "cml.h"

/* What the judge decides for one task. */
typedef struct {
    enum cml_status status;
    double correctness_score, perf_score, technique_score, score, max_score;
    char detail[1024];
} cml_verdict;

/* judge.c: task r's verdict from its findings (r->found, r->cases, r->credit, r->tech,
 * r->sanitizers), by one precedence, highest first:
 *   tampered (a forged record)                         -> tampered
 *   stopped (not built, not handed in, no GPU, not run, crashed, timed out: no verdict of
 *     its cases)                                       -> cml_stop_status
 *   (the table's rows are judge.c's; a failed case's faults name its status by
 *    cml_fault_status: todo, then a guard region's -> sanitizer, error, no result -> crash,
 *    wrong)
 *   a sanitizer tool's error, on a task whose cases passed or whose failure was a guard
 *     region's finding                                 -> sanitizer (the tools' words first)
 *   a case failed                                      -> cml_fault_status
 *   a technique check failed                           -> technique
 *   else passed, or slow when the speed credit is short of 1.
 * The detail is the leading finding's words, then found.why and found.note. Points: each part
 * counts only when the status earns it (cml_status_earns) and as far as the credit goes:
 *   correctness = points * credit.cases / ncases   (0 without cases)
 *   perf        = perf_points * credit.perf
 *   technique   = technique_points when credit.technique
 * score is their sum; max_score is always the spec's points + perf_points + technique_points,
 * whatever the status. Pure: reads r only. r->spec must be set. */
cml_verdict cml_judge(const cml_task_result *r);

/* judge.c's tables: the status a stop gives (build-error, missing, no-gpu, error, crash,
 * timeout), and the status failed cases give, by the first of their faults that holds (todo,
 * sanitizer, error, crash, wrong; none for 0). */
enum cml_status cml_stop_status(enum cml_stop s);
enum cml_status cml_fault_status(unsigned faults);

/* publish.c: task r's verdict (cml_judge) written into r: status, the four scores, max_score
 * and detail. A task without a spec is left as it is. */
void cml_publish_task(cml_task_result *r);
/* Every task of lab published once, then the lab's score and max_score from its tasks'. Called
 * when the lab's runs end (so an interrupted grading keeps them) and by cml_publish_grading. */
void cml_publish_lab(cml_lab_result *lab);
/* The grading's score and max_score from its labs' (each published before). */
void cml_publish_totals(cml_grading *g);
/* Every lab of g published again (after the phases that add findings to every lab: the
 * sanitizers, the technique checks), then g's totals. */
void cml_publish_grading(cml_grading *g);

#endif /* CML_JUDGE_H */
