/* The fake lab and the batch's GPU lock (tests/fake_lab_lock.c). */
#ifndef CML_FAKE_LAB_LOCK_H
#define CML_FAKE_LAB_LOCK_H

/* FAKE_LOCK_HELD=path: this run must find the batch's GPU lock held by its grading; 1 (the lab
 * then exits 9) when it is free or unreadable, with a line on stderr; 0 otherwise. */
int fake_lock_not_held(void);

/* FAKE_EXCLUSIVE=path (a file the lab may read): this run takes an exclusive flock on it for
 * FAKE_EXCLUSIVE_MS (default 300) before its cases, and keeps it until it exits; 1 (the lab then
 * exits 9) when another run holds it, with a line on stderr: two runs met on the GPU. */
int fake_run_overlaps(void);

/* --hold, as the probe's binary (common/probe.cu): with FAKE_HOLD_LOG set, note the start and
 * the end of the hold there with whether the GPU lock of FAKE_LOCK_HELD was held, say "1", wait
 * for EOF on stdin; without it, refuse the argument (2). */
int fake_hold(void);

#endif /* CML_FAKE_LAB_LOCK_H */
