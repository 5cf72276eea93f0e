/* Speed (speed.c): what a task's case verdicts and the times of the student's and the
 * reference's runs say, recorded as findings (how its cases failed, its credit, its speed and
 * the words for them); the judge (judge.h) turns them into a status, points and a detail when
 * the results are published.
 * Depends on cml.h (the result types) and through it on status.h (the status table). */
#ifndef CML_SPEED_H
#define CML_SPEED_H

#include <stddef.h>

#include "cml.h"

/* The words a timed task's detail puts between its ratio and its credit bounds ("0.95x the
 * reference time (full credit up to 1.15x, none from 2.5x)"): speed.c and speed_practice.c
 * write them, the batch's drift rule (batch_drift_spare.c) reads the figures back. */
#define CML_RATIO_WORDS "x the reference time (full credit up to "

/* Fraction of the performance points for a time ratio: 1 at ratio <= full, 0 at ratio >= zero,
 * linear between; 0 for a ratio that is not a positive finite number. */
double cml_perf_fraction(double ratio, double full_ratio, double zero_ratio);

/* Records r's findings from r->cases (already verified) and the `time` records of both runs:
 * its credit, what its failed cases showed (found.faults) and the words (found.why), its timings:
 * ratio = geometric mean over the timed cases of student ms / reference ms. A tampered student
 * run is recorded as such (found.tampered), which the judge scores 0. */
void cml_score_task(cml_task_result *r, const cml_run_record *student,
                    const cml_run_record *reference);
/* The practice grade (no reference solution here: docs/ARCHITECTURE.md, "Practice grade"): as
 * cml_score_task, but speed is judged from the student's own run, the geometric mean over the
 * timed cases of each time's fraction of its bound (cml_bound_fraction), against the spec's
 * practice_fraction (cml_practice_credit). */
void cml_score_task_practice(cml_task_result *r, const cml_run_record *student);

/* speed_practice.c: the performance credit of a task whose cases all passed, in a practice
 * grade. `fraction` is the student's geometric mean fraction of the bound over the timed cases
 * (0: some case's is unknown). With the spec's practice_fraction P, the ratio to the reference
 * is P / fraction (a student at the reference's fraction is at ratio 1), scored as the spec's
 * perf line scores a real ratio; r->ratio and r->timed are set to it, r->ref_ms stays 0.
 * Without P, or without a fraction, speed is not judged: credit 0, and detail says why.
 * Writes the detail into buf; returns the credit, 0..1. */
double cml_practice_credit(cml_task_result *r, double fraction, char *buf, size_t len);

/* bound.c: whether t's bytes cross the host link (its check has a `link` function). */
int cml_host_link(const cml_task_spec *t);
/* bound.c: a time's fraction of the physical bound in run bw's bandwidths: for a host-involved
 * check, the least time the pinned link allows, max(h2d bytes / h2d GB/s, d2h bytes / d2h
 * GB/s), over ms; for a device check, gbps over the device-to-device copy's GB/s. 0 when the
 * bound is unknown (no bw, or bw measured no such bandwidth). Above 1.05: implausible. */
double cml_bound_fraction(const cml_task_spec *t, const cml_case_spec *c, double ms,
                          double gbps, const cml_run_record *bw);


#endif /* CML_SPEED_H */
