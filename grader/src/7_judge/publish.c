/* publish: the judge's verdicts written into the results the reports read, and the totals.
 * Nothing else writes a task's status, points or detail, or a lab's or a grading's score. */
#include "judge.h"

#include <string.h>

/* Contract in judge.h. */
void cml_publish_task(cml_task_result *r)
{
    if (!r->spec)
        return;
    const cml_verdict v = cml_judge(r);
    r->status = v.status;
    r->correctness_score = v.correctness_score;
    r->perf_score = v.perf_score;
    r->technique_score = v.technique_score;
    r->score = v.score;
    r->max_score = v.max_score;
    memcpy(r->detail, v.detail, sizeof r->detail);
}

/* Contract in judge.h. */
void cml_publish_lab(cml_lab_result *lab)
{
    lab->score = lab->max_score = 0;
    for (int i = 0; i < lab->ntasks; i++) {
        cml_publish_task(&lab->tasks[i]);
        lab->score += lab->tasks[i].score;
        lab->max_score += lab->tasks[i].max_score;
    }
}

/* Contract in judge.h. */
void cml_publish_totals(cml_grading *g)
{
    g->score = g->max_score = 0;
    for (int l = 0; l < g->nlabs; l++) {
        g->score += g->labs[l].score;
        g->max_score += g->labs[l].max_score;
    }
}

/* Contract in judge.h. */
void cml_publish_grading(cml_grading *g)
{
    for (int l = 0; l < g->nlabs; l++)
        cml_publish_lab(&g->labs[l]);
    cml_publish_totals(g);
}
