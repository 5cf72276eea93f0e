/* The fake lab's attacks on the sandbox (tests/test_sandbox.c): each runs inside the lab
 * process, writes what happened to ./attack.log in its run folder, and returns, so the lab
 * then behaves honestly and the grading goes on. */
#ifndef CML_FAKE_LAB_ATTACKS_H
#define CML_FAKE_LAB_ATTACKS_H

/* Whether `mode` names an attack (FAKE_MODE=attack_*). */
int fake_is_attack(const char *mode);

/* Run attack `mode` against the targets in FAKE_TARGETS (':'-separated) from the run folder
 * `dir`. Returns 1 when it planted case0.bin itself (a link or a FIFO): the lab must then not
 * write that file; 0 otherwise. */
int fake_attack(const char *mode, const char *dir);

#endif /* CML_FAKE_LAB_ATTACKS_H */
