/* One run of the lab binary under a tool (ncu, compute-sanitizer): in a fresh run folder, the
 * lab started through cml-confine (sandbox.h), the tool's own output taken from a log file in a
 * folder only the tool may write, never from the lab's stdout. */
#ifndef CML_TOOL_RUN_H
#define CML_TOOL_RUN_H

#include <stddef.h>

#include "cml.h"
#include "technique.h"

/* Run argv (the tool first, the lab named "./lab" among its arguments) confined; `log_opt` is
 * the tool's option that names its log file ("--log-file"), put right after argv[0];
 * result_fd (or -1) is the lab's result channel, as in a graded run (cml_run). On
 * return r->output holds the tool's log alone (the lab's own output is dropped: a lab could
 * print what looks like the tool's report). 0 when the tool ran to an end; -1 with detail
 * "not checked (...)" when it did not (no run folder, no cml-confine, timeout, killed). */
int cml_tool_run(char *const argv[], const char *log_opt, const cml_technique_env *env,
                 int result_fd, const char *tool, cml_proc_result *r, char *detail,
                 size_t len);

#endif /* CML_TOOL_RUN_H */
