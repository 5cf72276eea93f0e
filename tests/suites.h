/* The Check suites, one per module; tests/check_main.c adds each to the runner. */
#ifndef CML_TESTS_SUITES_H
#define CML_TESTS_SUITES_H

#include <check.h>
#include <stddef.h>

Suite *spec_suite(void);    /* tests/test_spec.c: the grading spec reader */
void spec_domains_add(Suite *s); /* tests/test_domains.c: each task's domain, in the spec suite */
void spec_contract_0103_add(Suite *s); /* tests/test_contract_0103.c: labs 01-03's contracts */
void spec_domains_layout_add(Suite *s); /* tests/test_domains_layout.c: labs 04-05's layouts */
void spec_draw_add(Suite *s); /* tests/test_draw.c: drawn cases, added to the spec suite */
Suite *records_suite(void); /* tests/test_records.c: the result protocol parser */
Suite *verify_suite(void);  /* tests/test_verify.c: the CPU references and the compare */
Suite *score_suite(void);   /* tests/test_score.c: points, ratios, statuses */
Suite *status_suite(void);  /* tests/test_status.c: the status table and cml_judge */
void judge_add(Suite *s);   /* tests/test_judge.c: judged once, in the status suite */
Suite *claims_suite(void);  /* tests/test_claims*.c, test_bytes.c, test_verified.c: claims */
Suite *report_suite(void);  /* tests/test_report.c: terminal, JSON, Gradescope, TSV */
Suite *feedback_suite(void); /* tests/test_feedback.c: feedback.md, feedback.html, junit.xml */
Suite *screenshot_suite(void); /* tests/test_screenshot.c: feedback.html in headless Chromium */
Suite *gradebook_suite(void); /* tests/test_gradebook.c: the class gradebook, CSV and Markdown */
Suite *run_suite(void);      /* tests/test_run.c: the sandbox */
Suite *pipeline_suite(void); /* tests/test_pipeline.c: the whole pipeline on fake lab binaries */
Suite *build_suite(void);    /* tests/test_build.c: every skeleton and solution compiles */
Suite *technique_suite(void); /* tests/test_technique.c: technique checks, fake ncu */
void technique_ncu_add(Suite *s); /* tests/test_technique_ncu.c: its ncu tests */
void technique_ncu_run_add(Suite *s); /* tests/test_technique_ncu_run.c: the lab under ncu */
void technique_ncu_cases_add(Suite *s); /* tests/test_technique_ncu_cases.c: several cases */
void technique_trace_add(Suite *s); /* tests/test_trace.c: the CUPTI trace checks */
void technique_trace_launches_add(Suite *s); /* tests/test_trace_launches.c: launches per call, their stream */
void technique_trace_calls_add(Suite *s); /* tests/test_trace_calls.c: timed calls held to the
                                             checked one */
void technique_trace_cases_add(Suite *s); /* tests/test_trace_cases.c: every traced case */
void technique_trace_streams_add(Suite *s); /* tests/test_trace_streams.c: ops on `stream` */
void technique_labs_add(Suite *s); /* tests/test_technique_labs.c: the technique phase */
void build_objects_add(Suite *s); /* tests/test_build_objects.c: kept harness objects */
void run_turn_add(Suite *s); /* tests/test_run_turn.c: a lab run that waits for its turn */
void lex_add(Suite *s);       /* tests/test_lex.c: the source reader, in the technique suite */
Suite *sanitize_suite(void);  /* tests/test_sanitize*.c: compute-sanitizer on solved tasks */
Suite *planted_suite(void);   /* tests/test_planted.c: planted bugs as patches on the solutions */
Suite *link_suite(void);      /* tests/test_link.c: link rules on attacks and correct code */
Suite *sandbox_suite(void);   /* tests/test_sandbox.c: attacks on the sandbox, and unconfined */
Suite *variants_suite(void);  /* tests/test_variants.c: static checks on real variant builds */
void variants_planted_add(TCase *tc); /* tests/test_variants_planted.c: the planted corpus's
                                         static checks, added to the variants suite */
Suite *honest_suite(void);    /* tests/test_honest.c: the honest corpus built by the grader */
Suite *attacks_suite(void);   /* tests/test_attacks.c: the attack corpus built without a GPU */
Suite *sheets_suite(void);    /* tests/test_sheets.c: each EXERCISE.md's points are its spec's */
void sheets_rules_add(Suite *s); /* tests/test_sheets_rules.c: the rules page, in sheets */
void sheets_contract_add(Suite *s); /* tests/test_sheets_contract.c: each sheet's contracts */
void layers_add(Suite *s);       /* tests/test_layers.c: base/ includes only base/ and common/ */
void layers_calls_add(Suite *s); /* tests/test_layers_calls.c: no call cycle between folders */
void layers_files_add(Suite *s); /* tests/test_layers_files.c: no cycle between files */
void docs_links_add(Suite *s);   /* tests/test_docs_links.c: no page cites a missing file */
void docs_links_code_add(Suite *s); /* tests/test_docs_links_code.c: nor a code comment */
Suite *batch_suite(void);    /* tests/test_batch.c: batch, resume, regrade, slurm script */
Suite *platforms_suite(void); /* tests/test_platforms.c: course platform downloads and imports */
void batch_lock_add(Suite *s); /* tests/test_batch_lock.c: the GPU lock, in the batch suite */
void batch_calibration_add(Suite *s); /* tests/test_batch_calibration.c: the batch's calibration */
void batch_progress_add(Suite *s); /* tests/test_batch_progress.c: the progress display */
void batch_others_add(Suite *s); /* tests/test_batch_others.c: a student against the others */
Suite *find_suite(void);      /* tests/test_find.c: a lab's student files in any submission */
void find_archives_add(Suite *s); /* tests/test_find_archives.c: archives graded, missing labs */
Suite *refuse_suite(void);   /* tests/test_refuse.c: bad options refused before any work */
Suite *calibration_suite(void); /* tests/test_calibration.c: the calibration file */
Suite *practice_suite(void); /* tests/test_practice*.c, test_bundle.c: practice grade, bundle */
void calibration_cli_add(Suite *s); /* tests/test_calibration_cli.c: calibrate and grade
                                       --calibration on the fake repository */
Suite *slurm_suite(void);     /* tests/test_slurm.c: a job array on a private local Slurm */
Suite *student_text_suite(void); /* tests/test_student_text.c: what a student reads (paths,
                                    UTF-8, Markdown, names) */
Suite *runner_suite_of_tests(void); /* tests/test_runner.c: the runner's progress lines */
Suite *gpu_suite(void);      /* tests/test_gpu.c: needs a GPU; add it only when gpu_present() */

/* tests/test_gpu.c: whether a usable GPU is here (the probe runs in a child process); the
 * reason when not. And how many GPU tests there are (the same list gpu_suite() adds). */
int gpu_present(char *reason, size_t len);
int gpu_test_count(void);

/* tests/test_gpu_attacks.c: the attack corpus graded on the GPU, as one test case of the GPU
 * suite (tag gpu-attacks); how many tests it adds (one per attack). */
void gpu_attacks_add(Suite *s);
int gpu_attack_count(void);

/* tests/test_sandbox.c: how many confined attack tests sandbox_suite() left out because this
 * kernel has no Landlock (0 where it has). */
int sandbox_tests_skipped(void);

/* tests/test_slurm.c: how many tests slurm_suite() left out because Slurm cannot run here
 * (0 where it can), and why ("not found: slurmd (apt-get install slurm-wlm munge)"). Call
 * after slurm_suite(). */
int slurm_tests_skipped(char *why, size_t len);

/* tests/test_sandbox_tool.c: the lab under ncu or compute-sanitizer, confined again by
 * cml-confine; adds its test case to s and returns how many confined tests it left out. */
int sandbox_tool_add(Suite *s);

/* tests/test_screenshot.c: how many Chromium tests screenshot_suite() left out because no
 * chromium binary is on PATH (0 where one is), and why into reason. */
int screenshot_tests_skipped(char *reason, size_t len);

void verify_passthrough_add(Suite *s); /* tests/test_verify_passthrough.c, verify suite */
void verify_inputs_add(Suite *s); /* tests/test_inputs_read.c: inputs only read, verify suite */
void verify_bits_add(Suite *s);        /* tests/test_verify_bits.c, verify suite */

void variants_probe_add(TCase *tc); /* tests/test_variants_probe.c, variants suite */

#endif /* CML_TESTS_SUITES_H */
